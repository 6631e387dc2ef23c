"""Chooses the match recorder from the configured database URL."""

from __future__ import annotations

from app.store.recorder import MatchRecorder, MemoryRecorder, RecorderUnavailable
from app.store.sql.engine import DEFAULT_DATABASE_URL
from app.store.sql.recorder import SqlRecorder

__all__ = ["DEFAULT_DATABASE_URL", "RecorderUnavailable", "create_recorder"]


def create_recorder(database_url: str | None) -> MatchRecorder:
    """`None` or "memory://" keeps matches in memory; any SQLAlchemy async URL uses the database
    (e.g. the embedded default "sqlite+aiosqlite:///data/uno.db", or "postgresql+asyncpg://…")."""
    if database_url is None or database_url.startswith("memory://"):
        return MemoryRecorder()
    return SqlRecorder(database_url)
