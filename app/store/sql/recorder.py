"""SqlRecorder: completed rounds into the database, through a local outbox.

One path: `round_completed` appends the encoded round to the outbox (a SQLite file, outbox.py:
one INSERT on the event loop, no fsync, durable against the process dying) and returns; a few
milliseconds later (after the move's own events went out) a background task delivers the
outbox, in order, until the database takes each round (each write bounded by the write
timeout; a failure is retried with backoff). Delivery is idempotent on (match_id, number), so
a write that timed out but did commit, or a crash between the commit and the removal from the
outbox, never stores a round twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.store.recorder import (
    MemberRecord,
    PlayerRecord,
    RecorderUnavailable,
    RoomCheckpoint,
    RoundRecord,
    masked,
)
from app.store.sql.engine import make_engine, sqlite_path
from app.store.sql.members import MemberQueue
from app.store.sql.migrate import upgrade_to_head
from app.store.sql.outbox import Outbox, encode
from app.store.sql.pending import with_waiting_rounds
from app.store.sql.reads import (
    read_ceiling,
    read_checkpoint,
    read_latest_snapshot,
    read_match,
    read_members,
)
from app.store.sql.writes import (
    ensure_match,
    prune,
    store_ceilings,
    store_checkpoints,
    store_members,
    store_round,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

WRITE_TIMEOUT_S = 1.0  # longest one database write may take before it counts as failed
READ_TIMEOUT_S = 3.0
RETRY_MIN_S = 0.2
RETRY_MAX_S = 5.0
KNOWN_MATCHES_MAX = 10_000
MAX_REJECTIONS = 5
CLOSE_GRACE_S = 3.0  # how long close() may deliver the outbox, and let timed-out writes end
DELIVERY_DELAY_S = 0.01  # from a round end to its delivery: after the move's fan-out


class SqlRecorder:
    def __init__(
        self,
        database_url: str,
        *,
        outbox_path: Path | None = None,
        connect_args: dict[str, Any] | None = None,
        write_timeout: float = WRITE_TIMEOUT_S,
        read_timeout: float = READ_TIMEOUT_S,
        migrate: bool = True,
    ) -> None:
        self.engine: AsyncEngine = make_engine(database_url, connect_args)
        # Every round goes through the outbox (one local append on the move path, the database
        # write in the background). The price: another process reading the match sees the
        # round once it is delivered (milliseconds); this process merges its outbox into
        # reads, so it never misses one.
        self.outbox = Outbox(outbox_path or default_outbox_path(database_url))
        self._wake_planned = False
        self.write_timeout = write_timeout
        self.read_timeout = read_timeout
        self._migrate = migrate
        self._migrated = False
        self._wake = asyncio.Event()
        self._delivery: asyncio.Task[None] | None = None
        self.members = MemberQueue()
        self._member_delivery: asyncio.Task[None] | None = None
        self._abandoned: set[asyncio.Future[Any]] = set()  # timed-out writes still cleaning up
        self._known_matches: set[str] = set()  # matches this process has seen committed
        self._rejections: dict[int, int] = {}  # outbox seq → refusals by a reachable database
        # SQLite has one writer at a time; queueing our own writes here is fair and cheap,
        # where racing for the file lock fails writers after the busy timeout.
        self._one_writer = self.engine.dialect.name == "sqlite"
        self._write_lock = asyncio.Lock()
        self._database_ok = True  # false from a failed write until a write succeeds

    # --- lifecycle ---

    async def start(self) -> None:
        """Open the outbox, migrate to head, and start delivering what an earlier run left.

        An unreachable database does not stop the server from starting: rounds go to the
        outbox, and the delivery task migrates and delivers when the database comes up.
        """
        await self.outbox.open()
        try:
            await self._ensure_migrated()
        except Exception as exc:
            log.warning("match database unavailable at start-up (%s); using the outbox", _kind(exc))
        self._delivery = asyncio.create_task(self._deliver_forever(), name="match-outbox")
        self._member_delivery = asyncio.create_task(
            self._deliver_members_forever(), name="room-members"
        )
        if len(self.outbox):
            self._wake.set()

    async def close(self) -> None:
        for task in (self._delivery, self._member_delivery):
            if task is not None:
                # Python 3.11's wait_for can swallow a cancellation that lands as its inner
                # wait completes (the loop then goes on waiting): cancel until it ends.
                while not task.done():
                    task.cancel()
                    await asyncio.wait({task}, timeout=1.0)
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    task.result()
        self._delivery = self._member_delivery = None
        if len(self.members) and self._migrated:  # a last try; what stays is lost
            with contextlib.suppress(Exception):
                await self._timed(self._deliver_members(), CLOSE_GRACE_S)
        if len(self.outbox) and self._migrated:  # a last delivery pass; what stays waits
            with contextlib.suppress(Exception):  # in the file for the next start
                await self._timed(self._deliver_outbox(), CLOSE_GRACE_S)
        if self._abandoned:
            await asyncio.wait(self._abandoned, timeout=CLOSE_GRACE_S)
        await self.outbox.close()
        await self.engine.dispose()

    # --- writes ---

    async def match_started(
        self,
        match_id: str,
        room: str,
        settings: dict[str, Any],
        players: tuple[PlayerRecord, ...],
        started_at: int,
    ) -> None:
        """Best effort: the first stored round creates the match anyway. Skipped while the
        database is known to be failing or rounds wait for it, so that a stalled database
        delays no deal; written in the background, so that no deal waits for it."""
        if not self._migrated or not self._database_ok or len(self.outbox):
            return
        write = self._start_match(match_id, room, settings, players, started_at)
        task = asyncio.create_task(write, name="match-start")
        self._abandoned.add(task)  # close() lets it end; its failure is logged inside
        task.add_done_callback(_forget(self._abandoned))

    async def _start_match(
        self,
        match_id: str,
        room: str,
        settings: dict[str, Any],
        players: tuple[PlayerRecord, ...],
        started_at: int,
    ) -> None:
        try:
            await self._timed(self._write_match(match_id, room, settings, players, started_at))
        except Exception as exc:
            self._database_ok = False
            log.warning("match %s not recorded at its start (%s)", masked(match_id), _kind(exc))

    async def round_completed(self, record: RoundRecord) -> None:
        """Returns once the round is durable: committed to the outbox, from which the delivery
        takes it to the database right behind this move."""
        body = encode(record)
        try:
            self.outbox.append(record, body)  # on the event loop: no await before it is durable
        except sqlite3.Error as exc:  # the file stayed locked: wait for it off the loop
            log.warning("outbox busy (%s); appending from a worker thread", _kind(exc))
            await self.outbox.put_many([(record, body)])  # encoded once
        self._wake_after_this_move()

    def _wake_after_this_move(self) -> None:
        """Wake the delivery a moment later, not now: woken now, it would run before the round
        end's own events and ack go out (it was scheduled first), adding its database work to
        the very move players wait for."""
        if self._wake_planned or self._wake.is_set():
            return
        self._wake_planned = True
        asyncio.get_running_loop().call_later(DELIVERY_DELAY_S, self._planned_wake)

    def _planned_wake(self) -> None:
        self._wake_planned = False
        self._wake.set()

    async def member_added(self, member: MemberRecord) -> None:
        """Queued in memory and written in the background (see members.py): never waits."""
        self.members.put(member)

    async def versions_reserved(self, room: str, ceiling: int, at: int) -> None:
        """Queued with the members and written in the background: never waits."""
        self.members.put_ceiling(room, ceiling, at)

    async def version_ceiling(self, room: str) -> int:
        queued = self.members.ceilings.get(room, (0, 0))[0]
        try:
            stored = await self._timed(self._read(read_ceiling, room), self.read_timeout)
        except Exception as exc:
            raise RecorderUnavailable("the match database is unavailable") from exc
        return max(queued, stored)

    async def checkpoint(self, checkpoints: Sequence[RoomCheckpoint]) -> None:
        """Straight to the database, bounded by the write timeout (the checkpointer runs in
        the background and keeps what failed for its next pass)."""
        await self._ensure_migrated()
        await self._timed(self._write_checkpoints(list(checkpoints)))

    async def _write_checkpoints(self, checkpoints: list[RoomCheckpoint]) -> None:
        async with self._writing(), self.engine.begin() as conn:
            await store_checkpoints(conn, checkpoints)

    async def latest_checkpoint(self, room: str) -> RoomCheckpoint | None:
        try:
            return await self._timed(self._read(read_checkpoint, room), self.read_timeout)
        except Exception as exc:
            raise RecorderUnavailable("the match database is unavailable") from exc

    async def prune(self, rooms_before: int, matches_before: int) -> tuple[int, int]:
        await self._ensure_migrated()
        async with self._writing(), self.engine.begin() as conn:
            return await prune(conn, rooms_before, matches_before)

    # --- reads ---

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        """The PROTOCOL body; rounds still in the outbox are included, so nothing seems lost.

        The outbox is read first: a round delivered meanwhile is committed to the database
        before it leaves the outbox, so it is in one read or the other (read the other way
        round, a round delivered between the two reads would be in neither)."""
        waiting = await self.outbox.for_match(match_id) if len(self.outbox) else []
        try:
            match = await self._timed(self._read(read_match, match_id), self.read_timeout)
        except Exception as exc:
            raise RecorderUnavailable("the match database is unavailable") from exc
        return with_waiting_rounds(match, waiting)

    async def latest_snapshot(self, room: str) -> dict[str, Any] | None:
        """The room state at its latest completed round (outbox or database), to restore it."""
        waiting = await self.outbox.latest_for_room(room) if len(self.outbox) else None
        try:
            stored = await self._timed(self._read(read_latest_snapshot, room), self.read_timeout)
        except Exception as exc:
            if waiting is not None and waiting.snapshot is not None:
                return waiting.snapshot
            raise RecorderUnavailable("the match database is unavailable") from exc
        newer = waiting is not None and (stored is None or waiting.ended_at >= stored[0])
        if waiting is not None and waiting.snapshot is not None and newer:
            return waiting.snapshot
        return stored[1] if stored is not None else None

    async def room_members(self, room: str) -> list[MemberRecord]:
        queued = self.members.for_room(room)  # first, as in get_match: none falls in between
        try:
            stored = await self._timed(self._read(read_members, room), self.read_timeout)
        except Exception as exc:
            raise RecorderUnavailable("the match database is unavailable") from exc
        known = {m.token_hash for m in stored}
        return stored + [m for m in queued if m.token_hash not in known]

    async def healthy(self) -> bool:
        try:
            await self._timed(self._read(_ping))
            return True
        except Exception:
            return False

    def wake_delivery(self) -> None:
        """Deliver the outbox now rather than at the next retry."""
        self._wake.set()

    def outbox_size(self) -> int:
        """Rounds waiting for the database (for /healthz details and tests)."""
        return len(self.outbox)

    # --- internals ---

    async def _read(
        self, query: Callable[[AsyncConnection, str], Awaitable[T]], key: str = ""
    ) -> T:
        async with self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                # One snapshot for a read's several SELECTs: a round delivered in the middle
                # would otherwise show in some of them only (READ COMMITTED is per statement).
                await conn.execution_options(isolation_level="REPEATABLE READ")
            return await query(conn, key)

    async def _timed(self, work: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """`work` within `timeout` (default: the write timeout), else TimeoutError at once.

        Not asyncio.wait_for: it waits for the cancelled work to clean up, and closing a
        connection to a stalled server takes seconds. The cancelled work finishes in the
        background instead (and if it did commit, the outbox copy is a harmless duplicate).
        """
        task = asyncio.ensure_future(work)
        try:
            limit = self.write_timeout if timeout is None else timeout
            done, _ = await asyncio.wait({task}, timeout=limit)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if task in done:
            return task.result()
        task.cancel()
        self._abandoned.add(task)
        task.add_done_callback(_forget(self._abandoned))
        raise TimeoutError(f"no answer from the match database in {limit} s")

    async def _ensure_migrated(self) -> None:
        if self._migrated:
            return
        if self._migrate:
            await upgrade_to_head(self.engine)
        self._migrated = True

    async def _write_match(
        self,
        match_id: str,
        room: str,
        settings: dict[str, Any],
        players: tuple[PlayerRecord, ...],
        started_at: int,
    ) -> None:
        async with self._writing(), self.engine.begin() as conn:
            await ensure_match(conn, match_id, room, settings, players, started_at)
        self._remember_match(match_id)

    async def _write_round(self, record: RoundRecord) -> bool:
        known = record.match_id in self._known_matches
        async with self._writing(), self.engine.begin() as conn:
            stored = await store_round(conn, record, match_exists=known)
        self._remember_match(record.match_id)
        self._database_ok = True
        return stored

    def _writing(self) -> contextlib.AbstractAsyncContextManager[Any]:
        return self._write_lock if self._one_writer else contextlib.nullcontext()

    async def _rejected(self, seq: int, exc: Exception) -> bool:
        """True when a reachable database refused this record MAX_REJECTIONS times running:
        bad data, not an outage (an unreachable database never counts against a record)."""
        if _transient(exc) or not await self.healthy():
            return False
        self._rejections[seq] = self._rejections.get(seq, 0) + 1
        return self._rejections[seq] >= MAX_REJECTIONS

    def _remember_match(self, match_id: str) -> None:
        if len(self._known_matches) >= KNOWN_MATCHES_MAX:
            self._known_matches.clear()  # a cache: forgetting costs four idempotent statements
        self._known_matches.add(match_id)

    async def _deliver_forever(self) -> None:
        delay = RETRY_MIN_S
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self._ensure_migrated()
                await self._deliver_outbox()
                delay = RETRY_MIN_S
            except Exception as exc:
                log.warning("outbox delivery failed (%s); retrying in %.1f s", _kind(exc), delay)
                with contextlib.suppress(TimeoutError):  # wake_delivery() retries at once
                    await asyncio.wait_for(self._wake.wait(), delay)
                delay = min(delay * 2, RETRY_MAX_S)
                self._wake.set()

    async def _deliver_members_forever(self) -> None:
        delay = RETRY_MIN_S
        while True:
            await self.members.wake.wait()
            self.members.wake.clear()
            try:
                await self._ensure_migrated()
                await self._deliver_members()
                delay = RETRY_MIN_S
            except Exception as exc:
                log.warning("room members not written (%s); retrying in %.1f s", _kind(exc), delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_S)
                self.members.wake.set()

    async def _deliver_members(self) -> None:
        while batch := self.members.batch():
            await self._timed(self._write_members(batch))
            self.members.done(batch)
        ceilings = self.members.take_ceilings()
        try:
            await self._timed(self._write_ceilings(ceilings))
        except BaseException:
            for room, (ceiling, at) in ceilings.items():  # retried with the next delivery
                self.members.put_ceiling(room, ceiling, at)
            raise

    async def _write_ceilings(self, ceilings: dict[str, tuple[int, int]]) -> None:
        if not ceilings:
            return
        async with self._writing(), self.engine.begin() as conn:
            await store_ceilings(conn, ceilings)

    async def _write_members(self, batch: list[MemberRecord]) -> None:
        async with self._writing(), self.engine.begin() as conn:
            await store_members(conn, batch)

    async def _deliver_outbox(self) -> None:
        for seq, record in await self.outbox.pending():
            try:
                stored = await self._timed(self._write_round(record))
            except Exception as exc:
                if not await self._rejected(seq, exc):
                    raise
                # FIFO delivery must not stall behind a record the database will never take.
                await self.outbox.quarantine(seq, _kind(exc))
                self._rejections.pop(seq, None)
                log.error(
                    "outbox: round %d of match %s rejected %d times (%s); set aside in %s",
                    record.number,
                    masked(record.match_id),
                    MAX_REJECTIONS,
                    _kind(exc),
                    self.outbox.path,
                )
                continue
            self._rejections.pop(seq, None)
            await self.outbox.remove(seq)
            log.info(
                "outbox: round %d of match %s %s",
                record.number,
                masked(record.match_id),
                "delivered" if stored else "was already stored",
            )
        if await self.outbox.recount():  # added meanwhile (here or by a process sharing it)
            self._wake.set()


def default_outbox_path(database_url: str) -> Path:
    """Next to the SQLite file, else data/outbox.sqlite3 (one per process working directory)."""
    path = sqlite_path(make_url(database_url))
    if path is not None:
        return path.with_name(path.stem + ".outbox.sqlite3")
    return Path("data") / "outbox.sqlite3"


async def _ping(conn: AsyncConnection, _key: str) -> None:
    await conn.execute(select(1))


def _forget(tasks: set[asyncio.Future[Any]]) -> Callable[[asyncio.Future[Any]], None]:
    def done(task: asyncio.Future[Any]) -> None:
        tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: the failure was already logged as a timeout

    return done


def _transient(exc: Exception) -> bool:
    """Errors of reaching the database (as opposed to the database refusing the data)."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, TimeoutError | OSError | OperationalError | InterfaceError)


def _kind(exc: BaseException) -> str:
    """The error's type only: messages can carry connection strings or row data."""
    return type(exc).__name__
