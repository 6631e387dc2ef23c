"""Creating the async engine: SQLite gets its data folder and durable pragmas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///data/uno.db"

# How long opening a PostgreSQL connection may take before we call the database unreachable.
CONNECT_TIMEOUT_S = 2.0
# Shorter than the recorder's write timeout (1 s), see _sqlite_pragmas.
SQLITE_BUSY_TIMEOUT_MS = 300


def sqlite_path(url: URL) -> Path | None:
    """The database file of a SQLite URL (None for in-memory or other databases)."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def make_engine(database_url: str, connect_args: dict[str, Any] | None = None) -> AsyncEngine:
    url = make_url(database_url)
    args = dict(connect_args or {})
    path = sqlite_path(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    if url.get_backend_name() == "postgresql":
        args.setdefault("timeout", CONNECT_TIMEOUT_S)
    # pre-ping: after an outage the pool's old connections are dead; find out before writing.
    # (A SQLite connection is a file handle: it cannot go stale, so no ping to pay for.)
    networked = url.get_backend_name() != "sqlite"
    engine = create_async_engine(
        url, connect_args=args, pool_pre_ping=networked, json_serializer=json_text
    )
    if url.get_backend_name() == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def json_text(value: Any) -> str:
    """A JSON column's value as text: bytes are JSON encoded already (a room checkpoint's state
    as the shared store was sent it, app/rooms/checkpoints.py) and go in as they are."""
    if isinstance(value, bytes):
        return value.decode()
    return json.dumps(value)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers run beside the writer; synchronous=FULL makes a commit survive power loss
    # (a round is "durable" when round_completed returns). busy_timeout: wait that long for
    # another writer, then fail cleanly (the round goes to the outbox) rather than be cut off
    # by the recorder's write timeout while a worker thread still waits on the lock.
    cursor = dbapi_connection.cursor()
    for pragma in (
        f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}",  # first: switching to WAL may wait
        "PRAGMA journal_mode=WAL",
        "PRAGMA synchronous=FULL",
        "PRAGMA foreign_keys=ON",
    ):
        cursor.execute(pragma)
    cursor.close()
