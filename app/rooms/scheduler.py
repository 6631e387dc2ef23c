"""One timer for the whole process: a heap of (wake time, room) and one task sleeping until
the earliest. Idle rooms have no entry and cost nothing; a room re-scheduled replaces its
previous wake time (older heap entries are skipped when they surface).

Times are milliseconds since the epoch (deadlines go on the wire as such), but read from a
`SteadyClock`: the wall clock once, at start-up, then advanced by the monotonic clock. A step of
the system clock (NTP, a VM resumed, an operator) therefore neither fires every deadline at once
(+1 h) nor stalls them (-1 h); slow NTP slewing still reaches it through the monotonic clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


class SteadyClock:
    """Epoch milliseconds that move only with the monotonic clock (see the module doc)."""

    def __init__(
        self,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._monotonic = monotonic
        self._origin_ms = int(wall() * 1000)
        self._origin_mono = monotonic()

    def __call__(self) -> int:
        return self._origin_ms + int((self._monotonic() - self._origin_mono) * 1000)


# The process's clock for deadlines, timers and the times in views.
wall_ms: Callable[[], int] = SteadyClock()


class Scheduler:
    def __init__(
        self,
        wake: Callable[[str], Awaitable[None]],
        clock: Callable[[], int] = wall_ms,
    ) -> None:
        self._wake = wake
        self._clock = clock
        self._heap: list[tuple[int, str]] = []
        self._due: dict[str, int] = {}
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()

    def schedule(self, room: str, at: int | None) -> None:
        """Wake `room` at `at` (ms since epoch), replacing any earlier plan; None cancels."""
        if at is None:
            self._due.pop(room, None)
            return
        if self._due.get(room) == at:
            return
        self._due[room] = at
        heapq.heappush(self._heap, (at, room))
        if self._heap[0] == (at, room):
            self._changed.set()

    def due_at(self, room: str) -> int | None:
        return self._due.get(room)

    def pending(self) -> int:
        return len(self._due)

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="room-scheduler")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for task in list(self._running):
            task.cancel()
        for task in list(self._running):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _run(self) -> None:
        while True:
            self._changed.clear()
            timeout = self._fire_due()
            if timeout is None:
                await self._changed.wait()
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout)

    def _fire_due(self) -> float | None:
        """Start the wake-ups that are due; return seconds until the next one (None: none)."""
        now = self._clock()
        while self._heap:
            at, room = self._heap[0]
            if self._due.get(room) != at:
                heapq.heappop(self._heap)  # replaced or cancelled plan
                continue
            if at > now:
                return (at - now) / 1000
            heapq.heappop(self._heap)
            del self._due[room]
            task = asyncio.create_task(self._guarded(room))
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        return None

    async def _guarded(self, room: str) -> None:
        try:
            await self._wake(room)
        except Exception:  # one room's failure must not stop the others' timers
            log.exception("timer wake-up failed for a room")
