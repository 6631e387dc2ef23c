"""Who drives a tournament's tables, and when: any process, one at a time, each change once.

A table is looked at (app/tournaments/referee.py) when
- a process commits to the table's room something that may concern the tournament (an entrant
  joined, connected or left the lobby, the settings changed, the match ended): that process
  hears it from the rooms (`Tables.on_commit`) and looks at once;
- its `look_at` time comes (the end of the grace period, a match record not yet stored, or
  a safety net for a playing table): the process that last looked keeps a timer, and every
  process scans the running tournaments every `scan_seconds`, so a process that died with
  the table's end unheard or a timer pending costs at most a scan period.
Whoever looks first takes the tournament's lease (one driver at a time in the cluster), loads
the record, looks, and saves with compare-and-set: a table's result and the next round are
written once, by one process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from app.rooms.service import RoomError
from app.tournaments.records import PLAYING, RUNNING, TournamentRecord, to_json
from app.tournaments.referee import LOBBY_LOOK_MS, Referee
from app.tournaments.store import TournamentStore

log = logging.getLogger(__name__)

T = TypeVar("T")

LEASE_MS = 10_000  # longer than seating a round takes; a dead driver's lease runs out
LEASE_WAIT_SECONDS = 5.0  # an HTTP change waits this long for another driver to finish
SAVE_TRIES = 8
TIMER_MAX_SECONDS = 60.0
BUSY_RETRY_SECONDS = 0.25
# Room events that may concern a table waiting in its lobby; a playing table only cares
# about its rounds' ends.
LOBBY_KINDS = frozenset(
    {
        "player_joined",
        "player_left",
        "connected",
        "disconnected",
        "player_returned",
        "settings_changed",
        "host_changed",
        "round_started",
        "match_ended",
    }
)
PLAYING_KINDS = frozenset({"match_ended", "round_ended"})  # a tie plays on: referee.py

Saved = Callable[[TournamentRecord], Awaitable[None]]


class Runner:
    def __init__(
        self,
        store: TournamentStore,
        referee: Referee,
        clock: Callable[[], int],
        saved: Saved,
        *,
        scan_seconds: float = 2.0,
    ) -> None:
        self.store = store
        self.referee = referee
        self.clock = clock
        self._saved = saved  # told after every successful save (the page's notices)
        self.scan_seconds = scan_seconds
        self.owner = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"
        self._watched: dict[str, tuple[str, str]] = {}  # room → (tournament, table status)
        self._pending: dict[str, set[str]] = {}  # tournament → rooms heard from
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._local: dict[str, asyncio.Lock] = {}
        self._busy: set[str] = set()  # tournaments whose lease another process held just now
        self._scanner: asyncio.Task[None] | None = None
        self._finding: dict[str, asyncio.Task[None]] = {}  # room → its tournament looked for
        self._stopped = False
        self.advanced = 0  # saves that recorded a result or a new round here (tests, logs)

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        self._stopped = False
        if self._scanner is None:
            self._scanner = asyncio.create_task(self._scan_forever(), name="tournament-scan")

    async def stop(self) -> None:
        self._stopped = True  # commits still heard while the process shuts down start nothing
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        tasks = [
            t
            for t in (self._scanner, *self._drivers.values(), *self._finding.values())
            if t is not None
        ]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._scanner = None
        self._drivers.clear()
        self._finding.clear()

    def forget(self, code: str) -> None:
        """A deleted tournament: nothing of it stays in this process."""
        timer = self._timers.pop(code, None)
        if timer is not None:
            timer.cancel()
        self._pending.pop(code, None)
        self._busy.discard(code)
        lock = self._local.get(code)
        if lock is not None and not lock.locked():
            del self._local[code]

    # --- what starts a look ---------------------------------------------------------------

    def heard(self, room: str, kinds: frozenset[str]) -> None:
        """A commit of this process to `room` (Tables.on_commit)."""
        watched = self._watched.get(room)
        if watched is None:
            if "match_ended" in kinds and not self._stopped and room not in self._finding:
                # Maybe a table of a round this process has not scanned yet (another process
                # opened it moments ago): its end would wait for the table's safety-net look
                # (PLAYING_LOOK_MS) instead of the next round starting now. Match ends are
                # rare, so looking among the running tournaments for it costs little.
                task = asyncio.create_task(self._find(room), name="tournament-find")
                self._finding[room] = task
                task.add_done_callback(lambda _t: self._finding.pop(room, None))
            return
        code, status = watched
        if kinds & (PLAYING_KINDS if status == PLAYING else LOBBY_KINDS):
            self.nudge(code, room)

    async def _find(self, room: str) -> None:
        """The running tournament `room` is an open table of, if any: learn it and look."""
        try:
            for code in await self.store.running():
                record = await self.store.load(code)
                if record is not None and any(t.room == room for t in record.open_tables()):
                    self._learn(record)
                    self.nudge(code, room)
                    return
        except Exception as exc:  # the store is down: the scan finds the table later
            log.warning("could not look for a table's tournament: %s", type(exc).__name__)

    def nudge(self, code: str, room: str | None = None) -> None:
        """Look at `code`'s due tables (and `room`) soon, once."""
        if self._stopped:
            return
        pending = self._pending.setdefault(code, set())
        if room is not None:
            pending.add(room)
        driver = self._drivers.get(code)
        if driver is None or driver.done():
            self._busy.discard(code)
            task = asyncio.create_task(self._drive(code), name=f"tournament-{code[:6]}")
            self._drivers[code] = task
            task.add_done_callback(lambda t: self._forget_driver(code, t))

    def _forget_driver(self, code: str, task: asyncio.Task[None]) -> None:
        if self._drivers.get(code) is task:
            del self._drivers[code]
            # Heard while the driver was releasing its lease: not looked at yet. (Not when the
            # lease was another's: the retry timer comes back, no tight loop of tries.)
            if self._pending.get(code) and code not in self._busy and not task.cancelled():
                self.nudge(code)

    async def _scan_forever(self) -> None:
        while True:
            await asyncio.sleep(self.scan_seconds)
            try:
                await self.scan()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis or the database down: the next scan retries
                log.warning("tournament scan failed: %s", type(exc).__name__)

    async def scan(self) -> None:
        """Learn every running tournament's tables; look at those due."""
        running = set(await self.store.running())
        for room, (code, _) in list(self._watched.items()):
            if code not in running:
                del self._watched[room]
        now = self.clock()
        for code in running:
            record = await self.store.load(code)
            if record is None:
                continue
            self._learn(record)
            if any(t.look_at <= now for t in record.open_tables()):
                self.nudge(code)

    def _learn(self, record: TournamentRecord) -> None:
        open_tables = {t.room: t.status for t in record.open_tables()}
        for room, (code, _) in list(self._watched.items()):
            if code == record.code and room not in open_tables:
                del self._watched[room]
        for room, status in open_tables.items():
            self._watched[room] = (record.code, status)
        self._arm(record)

    def _arm(self, record: TournamentRecord) -> None:
        """This process's timer for the record's next look (the scan is the safety net)."""
        due = [t.look_at for t in record.open_tables()]
        if not due:
            old = self._timers.pop(record.code, None)
            if old is not None:
                old.cancel()
            return
        self._later(record.code, (min(due) - self.clock()) / 1000)

    def _later(self, code: str, delay: float) -> None:
        old = self._timers.pop(code, None)
        if old is not None:
            old.cancel()
        delay = min(max(0.0, delay), TIMER_MAX_SECONDS)
        self._timers[code] = asyncio.get_running_loop().call_later(delay, self.nudge, code)

    # --- one look, under the lease --------------------------------------------------------

    async def _drive(self, code: str) -> None:
        try:
            async with self._leased(code, wait=False) as held:
                if not held:  # another process drives it now: what was heard waits for it
                    self._busy.add(code)
                    self._later(code, BUSY_RETRY_SECONDS)
                    return
                while True:
                    rooms = self._pending.pop(code, set())
                    await self._look(code, rooms)
                    if not self._pending.get(code):
                        return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("tournament look failed (%s); retrying later", type(exc).__name__)
            self._later(code, LOBBY_LOOK_MS / 1000)

    async def _look(self, code: str, rooms: set[str]) -> None:
        for _ in range(SAVE_TRIES):
            record = await self.store.load(code)
            if record is None or record.status != RUNNING:
                self._pending.pop(code, None)
                return
            before = to_json(record)
            now = self.clock()
            due = [t.room for t in record.open_tables() if t.look_at <= now or t.room in rooms]
            durable = False
            for room in due:
                if record.status != RUNNING:
                    break
                if await self.referee.look(record, room):
                    durable = True
                    await self.referee.advance(record)
            if to_json(record) == before:
                self._learn(record)
                return
            if durable:
                record.touched_at = self.clock()
            if await self.store.save(record, durable=durable):
                self.advanced += durable
                self._learn(record)
                await self._saved(record)
                return
            log.info("a tournament changed under its driver; looking again")
        log.warning("tournament look gave up after %d lost saves", SAVE_TRIES)

    # --- changes from HTTP ----------------------------------------------------------------

    async def change(
        self,
        code: str,
        load: Callable[[str], Awaitable[TournamentRecord]],
        apply: Callable[[TournamentRecord], Awaitable[T]],
        *,
        durable: bool = False,
    ) -> T:
        """Apply an HTTP change to the tournament under its lease and save it with
        compare-and-set (loaded again and applied again if another writer was first)."""
        async with self._leased(code, wait=True) as held:
            if not held:
                raise RoomError("unavailable", "the tournament is busy, try again", 503)
            for _ in range(SAVE_TRIES):
                record = await load(code)
                result = await apply(record)
                record.touched_at = self.clock()
                if await self.store.save(record, durable=durable):
                    self._learn(record)
                    await self._saved(record)
                    return result
        raise RoomError("unavailable", "the tournament is busy, try again", 503)

    @contextlib.asynccontextmanager
    async def _leased(self, code: str, *, wait: bool) -> AsyncIterator[bool]:
        lock = self._local.setdefault(code, asyncio.Lock())
        async with lock:
            deadline = asyncio.get_running_loop().time() + LEASE_WAIT_SECONDS
            held = await self.store.lease(code, self.owner, LEASE_MS)
            while not held and wait and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.05)
                held = await self.store.lease(code, self.owner, LEASE_MS)
            try:
                yield held
            finally:
                if held:
                    with contextlib.suppress(Exception):
                        await self.store.release(code, self.owner)
