"""Timers and bot moves on a shared store: every process polls the store's wake-up index.

A poll claims the due rooms by pushing their wake-up `lease_ms` out (not deleting them), then
wakes each claimed room through the ordinary RoomService.wake: due deadlines are applied as
timeout actions carrying the version they were set at, and the compare-and-set commit makes
exactly one effect happen whichever processes claim the same entry. A process that dies
holding a claim only delays the timer by the lease; the commit (or a re-plan) replaces it.

After the store was unreachable, deadlines get a grace period (`grace_ms`) before the poller
fires them again: players could not act during the outage either.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable

from app.rooms.stopping import stop_task
from app.store.shared import SharedRoomStore, StoreUnavailable

log = logging.getLogger(__name__)


class WakePoller:
    def __init__(
        self,
        store: SharedRoomStore,
        wake: Callable[[str], Awaitable[None]],
        clock: Callable[[], int],
        *,
        interval: float = 0.1,
        lease_ms: int = 5000,
        batch: int = 64,
        grace_ms: int = 3000,
    ) -> None:
        self.store = store
        self._wake = wake
        self._clock = clock
        self._interval = interval
        self._lease_ms = lease_ms
        self._batch = batch
        self._grace_ms = grace_ms
        self._task: asyncio.Task[None] | None = None
        self._running: dict[str, asyncio.Task[None]] = {}
        self._paused_until = 0
        self.woken = 0  # rooms this process woke (tests, figures)

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="room-wakeups")

    async def stop(self) -> None:
        await stop_task(self._task)
        self._task = None
        for task in list(self._running.values()):
            await stop_task(task)

    async def _run(self) -> None:
        failing = False
        while True:
            try:
                await self.poll()
                if failing:
                    failing = False
                    self._paused_until = self._clock() + self._grace_ms
                    log.info("room store reachable again; timers resume after a grace period")
            except StoreUnavailable as exc:
                if not failing:
                    log.warning("wake-up index unreachable: %s", exc)
                failing = True
                await asyncio.sleep(1.0)
                continue
            except Exception:
                log.exception("wake-up poll failed")
            await asyncio.sleep(self._interval)

    async def poll(self) -> int:
        """Claim and wake the due rooms once; how many were woken."""
        now = self._clock()
        if now < self._paused_until:
            return 0
        rooms = await self.store.claim_due(now, self._lease_ms, self._batch)
        for room in rooms:
            if room in self._running:
                continue  # still busy with its previous wake-up here
            task = asyncio.create_task(self._guarded(room))
            self._running[room] = task
            task.add_done_callback(functools.partial(self._done, room))
        self.woken += len(rooms)
        return len(rooms)

    def _done(self, room: str, task: asyncio.Task[None]) -> None:
        if self._running.get(room) is task:
            del self._running[room]

    async def _guarded(self, room: str) -> None:
        try:
            await self._wake(room)
        except Exception:  # one room's failure must not stop the others' timers
            log.exception("timer wake-up failed for a room")
