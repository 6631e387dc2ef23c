"""The durable local outbox: completed rounds the database has not taken yet.

A small SQLite file next to the data, not a JSONL file: an insert and a delete are each one
atomic transaction, so a crash can neither tear a record nor lose one, and a record is removed
only after the database committed it.

`append` is the round end's durable step and runs on the event loop itself: one INSERT through
a stdlib `sqlite3` connection (WAL, synchronous=NORMAL), which is a write into the WAL file with
no fsync. A committed WAL write survives the process dying (kill -9: the bytes are in the OS
page cache); only an OS crash or power loss can lose the rounds appended since the last
checkpoint. Everything else (reads, removals, the fallback `put`/`put_many` when the file stays
locked) runs through synchronous SQLAlchemy Core in a worker thread.

A process that dies between the database's commit and the removal delivers the record again at
its next start, which changes nothing: delivery is idempotent on (match_id, number).
The key is unique here too, so a duplicate is kept once (a repeat that adds the match's end
updates the waiting record). Several processes may share the file: each delivers what it
finds, and the idempotent key makes a double delivery harmless.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
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
    bindparam,
    create_engine,
    delete,
    event,
    func,
    select,
    update,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.sqlite import insert

try:
    import orjson
except ImportError:  # optional: a faster encoder for the round end (see encode)
    orjson = None  # type: ignore[assignment]

from app.store.recorder import RoundRecord
from app.store.sql.records import record_from_json, record_to_json

_metadata = MetaData()
OUTBOX = Table(
    "outbox",
    _metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("match_id", String, nullable=False),
    Column("number", Integer, nullable=False),
    # Not indexed: the table holds only the rounds waiting (a scan is cheap), and every index
    # is one more page written by each append.
    Column("room", String, nullable=False),
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


# How long `append` may wait for another writer of the file (a removal here, or a process
# sharing the outbox) before it hands the round to a worker thread, which waits longer.
APPEND_BUSY_TIMEOUT_MS = 50
WORKER_BUSY_TIMEOUT_MS = 5000
_ROW = ("match_id", "number", "room", "ended_at", "match_over", "body")
_NAMED = sqlite.dialect(paramstyle="named")  # the stdlib driver takes :name parameters
# Compiled once from SQLAlchemy Core, executed by the stdlib driver: the same statements as
# the worker thread's, without SQLAlchemy's per-call overhead on the event loop.
_APPEND = (
    insert(OUTBOX)
    .values({name: bindparam(name) for name in _ROW})
    .on_conflict_do_nothing(index_elements=[OUTBOX.c.match_id, OUTBOX.c.number])
    .compile(dialect=_NAMED)
)
_ADD_MATCH_END = (
    update(OUTBOX)
    .where(
        OUTBOX.c.match_id == bindparam("match_id"),
        OUTBOX.c.number == bindparam("number"),
        OUTBOX.c.match_over.is_(False),
    )
    .values(match_over=True, body=bindparam("body"))
    .compile(dialect=_NAMED)
)


class Outbox:
    """Rounds waiting for the database, in arrival order. All methods are thread-safe, except
    `append`, which belongs to the thread that opened the outbox (the event loop)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._engine: Engine | None = None
        self._fast: sqlite3.Connection | None = None  # append's own connection
        self._lock = threading.Lock()  # the worker threads' connection, one at a time
        self._count_lock = threading.Lock()  # held only to update the counters
        self._count = 0
        self._appends = 0  # rounds added by append (see _recount)

    def __len__(self) -> int:
        """Rounds waiting (kept in memory, so the move path never reads the file to ask)."""
        return self._count

    async def open(self) -> None:
        await asyncio.to_thread(self._open)
        if self._fast is None:
            self._fast = _append_connection(self.path)

    async def close(self) -> None:
        if self._fast is not None:
            self._fast.close()
            self._fast = None
        await asyncio.to_thread(self._close)

    def append(self, record: RoundRecord, body: bytes | None = None) -> None:
        """Add the record on the calling thread; returns once it is committed to the file
        (survives the process dying, see the module doc). Raises sqlite3.Error when the file
        stays locked by another writer for APPEND_BUSY_TIMEOUT_MS: then use `put`.
        `body`: the record already encoded (`encode`)."""
        if self._fast is None:
            raise RuntimeError("the outbox is not open")
        params = _row(record, (body or encode(record)).decode())
        with self._fast:  # one transaction: committed here, or rolled back on an error
            added = self._fast.execute(_APPEND.string, params).rowcount
            if not added and record.match_over:  # a repeat that adds the match's end
                self._fast.execute(_ADD_MATCH_END.string, params)
        with self._count_lock:
            self._count += added
            self._appends += added

    async def put(self, record: RoundRecord) -> None:
        """`append` in a worker thread, waiting up to WORKER_BUSY_TIMEOUT_MS for the file."""
        await self.put_many([(record, encode(record))])

    async def put_many(self, entries: list[tuple[RoundRecord, bytes]]) -> None:
        """Several rounds (each with its encoded body) in one transaction, in a worker thread
        (waiting up to WORKER_BUSY_TIMEOUT_MS for the file)."""
        await asyncio.to_thread(self._put_many, entries)

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
            with self._count_lock:
                appends_before = self._appends
            counted = conn.execute(select(func.count()).select_from(OUTBOX)).scalar_one()
            # An append that committed meanwhile may or may not be in `counted`: adding it
            # can only overcount (one more delivery pass), never hide a waiting round.
            with self._count_lock:
                self._count = counted + self._appends - appends_before
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

    def _put_many(self, entries: list[tuple[RoundRecord, bytes]]) -> None:
        added = 0
        with self._lock, self._require().begin() as conn:
            for record, body in entries:
                params = _row(record, body.decode())
                added += conn.execute(
                    insert(OUTBOX)
                    .values(params)
                    .on_conflict_do_nothing(index_elements=[OUTBOX.c.match_id, OUTBOX.c.number])
                ).rowcount
                if record.match_over:  # a repeat that adds the match's end
                    conn.execute(
                        update(OUTBOX)
                        .where(
                            OUTBOX.c.match_id == record.match_id,
                            OUTBOX.c.number == record.number,
                            OUTBOX.c.match_over.is_(False),
                        )
                        .values(match_over=True, body=params["body"])
                    )
        with self._count_lock:
            self._count += added

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
            removed = conn.execute(delete(OUTBOX).where(OUTBOX.c.seq == seq)).rowcount
        with self._count_lock:
            self._count -= removed

    def _remove(self, seq: int) -> None:
        with self._lock, self._require().begin() as conn:
            removed = conn.execute(delete(OUTBOX).where(OUTBOX.c.seq == seq)).rowcount
        with self._count_lock:
            self._count -= removed


def encode(record: RoundRecord) -> bytes:
    """The record as JSON bytes: the outbox's body. This runs on the event loop at every
    round end: orjson encodes the ~3.5 KB record several times faster than the stdlib, which
    is the fallback (orjson not installed, or a value it refuses, such as an integer beyond
    64 bits)."""
    data = record_to_json(record)
    if orjson is not None:
        try:
            return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:
            pass
    return json.dumps(data, separators=(",", ":")).encode()


def _row(record: RoundRecord, body: str) -> dict[str, Any]:
    return {
        "match_id": record.match_id,
        "number": record.number,
        "room": record.room,
        "ended_at": record.ended_at,
        "match_over": record.match_over,
        "body": body,
    }


def _append_connection(path: Path) -> sqlite3.Connection:
    # check_same_thread off only so that close() may run anywhere; appends stay on one thread.
    conn = sqlite3.connect(path, check_same_thread=False)
    _pragmas(conn, APPEND_BUSY_TIMEOUT_MS)
    # Checkpoints (which fsync) are left to the worker thread's connection, off the loop.
    conn.execute("PRAGMA wal_autocheckpoint=0")
    return conn


def _durable_pragmas(dbapi_connection: Any, _record: Any) -> None:
    _pragmas(dbapi_connection, WORKER_BUSY_TIMEOUT_MS)


def _pragmas(dbapi_connection: Any, busy_timeout_ms: int) -> None:
    # synchronous=NORMAL in WAL mode: a commit is a write into the WAL, no fsync; it survives
    # the process dying, not the OS crashing (see the module doc). FULL would put an fsync
    # (0.3 ms to tens of ms under load) into every round end, or make append wait for one.
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")  # first: switching to WAL may wait
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
