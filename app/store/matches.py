"""Chooses the match recorder from the configured database URL."""

from __future__ import annotations

from app.store.recorder import MatchRecorder, MemoryRecorder


def create_recorder(database_url: str | None) -> MatchRecorder:
    """`None` or "memory://" keeps matches in memory; any SQLAlchemy async URL uses the database."""
    if database_url is None or database_url.startswith("memory://"):
        return MemoryRecorder()
    raise NotImplementedError("the SQL match recorder is not ready yet")
