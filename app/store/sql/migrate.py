"""Migrating the database to head from inside the running server (`alembic upgrade head`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

REPO_ROOT = Path(__file__).resolve().parents[3]


def alembic_config() -> Config:
    """The repository's alembic.ini, with paths that do not depend on the working directory."""
    ini = REPO_ROOT / "alembic.ini"
    config = Config(str(ini)) if ini.exists() else Config()
    config.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    return config


async def upgrade_to_head(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        await conn.run_sync(run_command, "upgrade", "head")
        await conn.commit()


def run_command(conn: Connection, name: str, revision: str) -> None:
    """Run `alembic <name> <revision>` ("upgrade"/"downgrade") on an open connection."""
    config = alembic_config()
    config.attributes["connection"] = conn
    getattr(command, name)(config, revision)
