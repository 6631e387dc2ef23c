"""The durable local outbox: completed rounds the database has not taken yet.

A small SQLite file (stdlib driver, synchronous SQLAlchemy Core, run in a worker thread) next to
the data, not a JSONL file: an insert and a delete are each one atomic, fsynced transaction, so a
crash can neither tear a record nor lose one, and a record is removed only after the database
committed it. A process that dies between that commit and the removal delivers the record
again at its next start, which changes nothing: delivery is idempotent on (match_id, number).
The key is unique here too, so a duplicate is kept once (a repeat that adds the match's end
updates the waiting record). Several processes may share the file: each delivers what it
finds, and the idempotent key makes a double delivery harmless.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    func,
    select,
    update,
)
from sqlalchemy.dialects.sqlite import insert

from app.store.recorder import RoundRecord
from app.store.sql.records import record_from_json, record_to_json

_metadata = MetaData()
OUTBOX = Table(
    "outbox",
    _metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("match_id", String, nullable=False),
    Column("number", Integer, nullable=False),
    Column("room", String, nullable=False, index=True),
    Column("ended_at", Integer, nullable=False),
    Column("match_over", Boolean, nullable=False),
    Column("body", Text, nullable=False),
    UniqueConstraint("match_id", "number"),
    sqlite_autoincrement=True,  # a seq is never reused, even after the newest row is removed
)
# Records a reachable database refused again and again, kept for an operator to look at.
SET_ASIDE = Table(
    "set_aside",
    _metadata,
    Column("seq", Integer, primary_key=True),
    Column("match_id", String, nullable=False),
    Column("number", Integer, nullable=False),
    Column("error", String, nullable=False),
    Column("body", Text, nullable=False),
)


class Outbox:
    """Rounds waiting for the database, in arrival order. All methods are thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._count = 0

    def __len__(self) -> int:
        """Rounds waiting (kept in memory, so the move path never reads the file to ask)."""
        return self._count

    async def open(self) -> None:
        await asyncio.to_thread(self._open)

    async def close(self) -> None:
        await asyncio.to_thread(self._close)

    async def put(self, record: RoundRecord) -> None:
        """Returns once the record is fsynced to the outbox file."""
        body = json.dumps(record_to_json(record), separators=(",", ":"))
        await asyncio.to_thread(self._put, record, body)

    async def pending(self) -> list[tuple[int, RoundRecord]]:
        """(seq, record) of every waiting round, oldest first."""
        rows = await asyncio.to_thread(
            self._select, select(OUTBOX.c.seq, OUTBOX.c.body).order_by(OUTBOX.c.seq)
        )
        return [(row.seq, record_from_json(json.loads(row.body))) for row in rows]

    async def for_match(self, match_id: str) -> list[RoundRecord]:
        rows = await asyncio.to_thread(
            self._select,
            select(OUTBOX.c.seq, OUTBOX.c.body)
            .where(OUTBOX.c.match_id == match_id)
            .order_by(OUTBOX.c.seq),
        )
        return [record_from_json(json.loads(row.body)) for row in rows]

    async def latest_for_room(self, room: str) -> RoundRecord | None:
        rows = await asyncio.to_thread(
            self._select,
            select(OUTBOX.c.seq, OUTBOX.c.body)
            .where(OUTBOX.c.room == room)
            .order_by(OUTBOX.c.ended_at.desc(), OUTBOX.c.seq.desc())
            .limit(1),
        )
        return record_from_json(json.loads(rows[0].body)) if rows else None

    async def recount(self) -> int:
        """Count the file again (another process sharing it may have delivered or added)."""
        return await asyncio.to_thread(self._recount)

    async def remove(self, seq: int) -> None:
        await asyncio.to_thread(self._remove, seq)

    async def quarantine(self, seq: int, error: str) -> None:
        """Move a record the database keeps refusing out of the delivery queue."""
        await asyncio.to_thread(self._quarantine, seq, error)

    async def set_aside(self) -> list[tuple[str, int, str]]:
        """(match_id, number, error) of every record set aside."""
        rows = await asyncio.to_thread(
            self._select,
            select(SET_ASIDE.c.match_id, SET_ASIDE.c.number, SET_ASIDE.c.error).order_by(
                SET_ASIDE.c.seq
            ),
        )
        return [(row.match_id, row.number, row.error) for row in rows]

    # --- in the worker thread ---

    def _open(self) -> None:
        with self._lock:
            if self._engine is not None:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(f"sqlite:///{self.path}")
            event.listen(engine, "connect", _durable_pragmas)
            _metadata.create_all(engine)
            self._engine = engine
        self._recount()

    def _recount(self) -> int:
        with self._lock, self._require().connect() as conn:
            self._count = conn.execute(select(func.count()).select_from(OUTBOX)).scalar_one()
            return self._count

    def _close(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None

    def _require(self) -> Engine:
        if self._engine is None:
            raise RuntimeError("the outbox is not open")
        return self._engine

    def _put(self, record: RoundRecord, body: str) -> None:
        with self._lock, self._require().begin() as conn:
            added = conn.execute(
                insert(OUTBOX)
                .values(
                    match_id=record.match_id,
                    number=record.number,
                    room=record.room,
                    ended_at=record.ended_at,
                    match_over=record.match_over,
                    body=body,
                )
                .on_conflict_do_nothing(index_elements=[OUTBOX.c.match_id, OUTBOX.c.number])
            ).rowcount
            self._count += added
            if not added and record.match_over:  # a repeat that adds the match's end
                conn.execute(
                    update(OUTBOX)
                    .where(
                        OUTBOX.c.match_id == record.match_id,
                        OUTBOX.c.number == record.number,
                        OUTBOX.c.match_over.is_(False),
                    )
                    .values(match_over=True, body=body)
                )

    def _select(self, query: Any) -> list[Any]:
        with self._lock, self._require().connect() as conn:
            return list(conn.execute(query).all())

    def _quarantine(self, seq: int, error: str) -> None:
        with self._lock, self._require().begin() as conn:
            row = conn.execute(select(OUTBOX).where(OUTBOX.c.seq == seq)).first()
            if row is None:
                return
            conn.execute(
                insert(SET_ASIDE).values(
                    seq=seq, match_id=row.match_id, number=row.number, error=error, body=row.body
                )
            )
            self._count -= conn.execute(delete(OUTBOX).where(OUTBOX.c.seq == seq)).rowcount

    def _remove(self, seq: int) -> None:
        with self._lock, self._require().begin() as conn:
            self._count -= conn.execute(delete(OUTBOX).where(OUTBOX.c.seq == seq)).rowcount


def _durable_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")  # first: switching to WAL may wait
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()
