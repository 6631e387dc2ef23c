"""Alembic: the migrations go up and down cleanly and match the models exactly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from app.store.sql.engine import make_engine
from app.store.sql.migrate import REPO_ROOT, run_command
from app.store.sql.models import Base

from .conftest import Database

TABLES = set(Base.metadata.tables)


def _tables(conn: Connection) -> set[str]:
    return set(inspect(conn).get_table_names()) - {"alembic_version"}


def _drift(conn: Connection) -> list[Any]:
    context = MigrationContext.configure(conn, opts={"compare_type": True})
    diff: list[Any] = compare_metadata(context, Base.metadata)
    return diff


async def test_upgrade_downgrade_and_upgrade_again(database: Database) -> None:
    engine = make_engine(database.url, database.connect_args)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(run_command, "upgrade", "head")
            assert await conn.run_sync(_tables) == TABLES
        async with engine.begin() as conn:
            await conn.run_sync(run_command, "downgrade", "base")
            assert await conn.run_sync(_tables) == set()
        async with engine.begin() as conn:
            await conn.run_sync(run_command, "upgrade", "head")
            assert await conn.run_sync(_tables) == TABLES
            assert await conn.run_sync(_drift) == []
    finally:
        await engine.dispose()


async def test_models_and_migrations_do_not_drift(database: Database) -> None:
    recorder = database.recorder()
    await recorder.start()  # migrates to head, as the server does
    async with recorder.engine.connect() as conn:
        assert await conn.run_sync(_drift) == []


async def test_start_twice_is_a_no_op(database: Database) -> None:
    first = database.recorder()
    await first.start()
    second = database.recorder()
    await second.start()
    assert await second.healthy()


def test_make_migrate_creates_the_data_folder_and_migrates(tmp_path: Path) -> None:
    """`make migrate` is `alembic upgrade head` with DATABASE_URL from the environment."""
    db_file = tmp_path / "nested" / "data" / "uno.db"
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{db_file}"}
    done = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert db_file.exists()
    current = subprocess.run(
        [sys.executable, "-m", "alembic", "current"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "0005 (head)" in current.stdout
