"""INSERT ... ON CONFLICT for the two dialects we run on (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection


def insert_for(conn: AsyncConnection, table: Table) -> Any:
    """The dialect's own insert(), which has on_conflict_do_nothing / on_conflict_do_update.

    Typed `Any` because the two dialect Insert classes share those methods but no base class.
    """
    if conn.dialect.name == "postgresql":
        return postgresql.insert(table)
    if conn.dialect.name == "sqlite":
        return sqlite.insert(table)
    raise NotImplementedError(f"unsupported database dialect: {conn.dialect.name}")
