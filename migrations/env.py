"""Alembic environment: async engine, DATABASE_URL from the environment.

Two ways in: the `alembic` command (`make migrate`) builds its own engine from DATABASE_URL;
the server passes an open connection in `config.attributes["connection"]` (see
app/store/sql/migrate.py), so the migration runs on the server's engine and event loop.
"""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from app.store.sql.engine import DEFAULT_DATABASE_URL, make_engine
from app.store.sql.models import Base

# Any constant: serialises concurrent migrations of several server processes on PostgreSQL.
MIGRATION_LOCK_ID = 0x554E4F

config = context.config
target_metadata = Base.metadata


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters by copying tables
        compare_type=True,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(select(func.pg_advisory_xact_lock(MIGRATION_LOCK_ID)))
        context.run_migrations()


async def run_async_migrations(url: str) -> None:
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


def run_migrations_offline(url: str) -> None:
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    given: Connection | None = config.attributes.get("connection")
    if given is not None:
        do_run_migrations(given)
        return
    if config.config_file_name is not None:
        fileConfig(config.config_file_name, disable_existing_loggers=False)
    url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    if context.is_offline_mode():
        run_migrations_offline(url)
    else:
        asyncio.run(run_async_migrations(url))


main()
