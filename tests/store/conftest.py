"""Fixtures: every persistence test runs against SQLite (a temporary file) and PostgreSQL.

PostgreSQL is the real server at 127.0.0.1:5432, database `test`, trust auth (override with
TEST_POSTGRES_URL). Each test gets a fresh schema (via search_path) that is dropped afterwards.
Unreachable PostgreSQL: a skip locally, a failure when CI=true.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.schema import CreateSchema, DropSchema

from app.store.sql.recorder import SqlRecorder

POSTGRES_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
_postgres_error: list[str | None] = []  # memo: checked once per session


async def _postgres_unreachable() -> str | None:
    if not _postgres_error:
        engine = create_async_engine(POSTGRES_URL, connect_args={"timeout": 3})
        try:
            async with engine.connect() as conn:
                await conn.execute(select(1))
            _postgres_error.append(None)
        except Exception as exc:
            _postgres_error.append(f"{type(exc).__name__}: {exc}")
        finally:
            await engine.dispose()
    return _postgres_error[0]


@dataclass
class Database:
    """One test database: where it is and how to build recorders on it."""

    kind: str  # "sqlite" or "postgresql"
    url: str
    connect_args: dict[str, Any]
    workdir: Path
    recorders: list[SqlRecorder] = field(default_factory=list)

    def url_via_port(self, port: int) -> str:
        return make_url(self.url).set(port=port).render_as_string(hide_password=False)

    def recorder(self, url: str | None = None, **options: Any) -> SqlRecorder:
        """A recorder on this database (not started); closed after the test."""
        options.setdefault("outbox_path", self.workdir / "outbox.sqlite3")
        recorder = SqlRecorder(url or self.url, connect_args=dict(self.connect_args), **options)
        self.recorders.append(recorder)
        return recorder


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        db = Database("sqlite", f"sqlite+aiosqlite:///{tmp_path}/data/uno.db", {}, tmp_path)
        yield db
        for r in db.recorders:
            await r.close()
        return
    error = await _postgres_unreachable()
    if error is not None:
        message = f"PostgreSQL unreachable at {POSTGRES_URL}: {error}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    schema = f"t_{uuid.uuid4().hex[:16]}"
    admin = create_async_engine(POSTGRES_URL)
    async with admin.begin() as conn:
        await conn.execute(CreateSchema(schema))
    db = Database(
        "postgresql",
        POSTGRES_URL,
        {"server_settings": {"search_path": schema}},
        tmp_path,
    )
    try:
        yield db
    finally:
        for r in db.recorders:
            await r.close()
        async with admin.begin() as conn:
            await conn.execute(DropSchema(schema, cascade=True))
        await admin.dispose()


@pytest.fixture
def postgres_only(database: Database) -> Database:
    if database.kind != "postgresql":
        pytest.skip("PostgreSQL only")
    return database
