"""Which process holds which player's socket, so that a dead process's players are shown
disconnected (Redis mode).

A player's socket lives in one process; when that socket closes, the process marks the seat
disconnected. A process killed outright marks nothing: without this its players would stay
`connected: true` for the others until they came back. So each process keeps a lease in Redis
(`{prefix}:procs`, a sorted set of process id → lease expiry in ms, refreshed every quarter
lease) and the set of seats whose sockets it holds (`{prefix}:proc:{id}:seats`, entries
"room|member"). Every process looks for expired leases at each refresh; one claims a dead
process (`SET ... NX PX`, so one survivor at a time), submits `connected=false` for each of
its seats through the ordinary compare-and-set path, then removes the lease and the set.

Exactly once: a claimer that dies half-way leaves its claim to expire and another claimer
redoes the work, which changes nothing twice (a seat already disconnected makes no event).
Never wrong: a seat whose player came back through another live process is in that process's
set before its `connected=true` is committed, and the check runs inside the compare-and-set
attempt, so the reaper either sees the new holder or loses the race to its commit and checks
again.

A process whose lease was gone when it refreshed it (it was cut off from Redis for longer than
the lease and reaped meanwhile, or Redis lost its keys) writes its seats back and marks them
connected again: its sockets stayed open. A room restored from the database (restore.py)
marks disconnected only the seats no live process holds. A socket that opened or closed here
while Redis could not be reached left its seat showing the opposite: such seats are settled
at the next refresh that reaches Redis, to what this process holds of them then.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.rooms.stopping import stop_task

if TYPE_CHECKING:
    from app.rooms.service import RoomService

log = logging.getLogger(__name__)

SEATS_TTL_MS = 24 * 3600 * 1000  # a dead process's set waits this long for a survivor


class Presence:
    def __init__(
        self,
        client: Redis,
        prefix: str,
        clock: Callable[[], int],
        *,
        lease_ms: int = 10_000,
        process_id: str | None = None,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.id = process_id or secrets.token_hex(8)
        self._clock = clock
        self.lease_ms = max(200, lease_ms)
        self._seats: set[tuple[str, str]] = set()  # (room, member) this process holds
        # Seats whose socket opened or closed here while their `connected` could not be
        # committed (Redis unreachable): settled at the next refresh that reaches Redis.
        self._unsettled: set[tuple[str, str]] = set()
        self._task: asyncio.Task[None] | None = None
        self._renewed_at: int | None = None  # the last refresh Redis took (ms)
        self.service: RoomService | None = None
        self.reaped = 0  # seats this process marked disconnected for a dead one (tests)

    # --- keys ---------------------------------------------------------------------------

    @property
    def procs_key(self) -> str:
        return f"{self.prefix}:procs"

    def seats_key(self, process_id: str) -> str:
        return f"{self.prefix}:proc:{process_id}:seats"

    def _claim_key(self, process_id: str) -> str:
        return f"{self.prefix}:proc:{process_id}:reaper"

    # --- this process's seats ------------------------------------------------------------

    async def holding(self, room: str, member_id: str, held: bool) -> None:
        """Called before the seat's `connected` is committed (RoomService.set_connected)."""
        entry = f"{room}|{member_id}"
        try:
            if held:
                self._seats.add((room, member_id))
                await self.client.sadd(self.seats_key(self.id), entry)
            else:
                self._seats.discard((room, member_id))
                await self.client.srem(self.seats_key(self.id), entry)
        except (RedisError, OSError) as exc:
            # Settled at the next refresh (an entry left in the set would make the seat look
            # held, by this live process, for as long as it lives).
            self._unsettled.add((room, member_id))
            log.warning("seat presence not recorded (%s)", type(exc).__name__)

    def unsettled(self, room: str, member_id: str) -> None:
        """The seat's `connected` (and maybe its entry in this process's set) was not
        written when its socket opened or closed here."""
        self._unsettled.add((room, member_id))

    async def settle(self) -> None:
        """Write the seats left unsettled as this process holds them now: connected when a
        socket of it is open here, else disconnected unless a live process holds one (the
        set's entry written again or removed too). One that fails again stays unsettled."""
        if self.service is None:
            return
        for seat in list(self._unsettled):
            self._unsettled.discard(seat)
            room, member = seat
            await self.service.set_connected(room, member, seat in self._seats)

    async def held(self, room: str, member_id: str) -> bool:
        """Whether a live process (this one included) holds a socket of the seat; False when
        Redis cannot say (the seat is then shown disconnected, as without presence)."""
        try:
            live = await self._processes(self._clock(), "+inf")
            if not live:
                return False
            entry = f"{room}|{member_id}"
            async with self.client.pipeline(transaction=False) as pipe:
                for process_id in live:
                    pipe.sismember(self.seats_key(process_id), entry)
                found = await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("seat presence unknown (%s)", type(exc).__name__)
            return False
        return any(found)

    async def _processes(self, low: int | str, high: int | str) -> list[str]:
        """The process ids whose lease expiry lies in [low, high]."""
        found = await self.client.zrangebyscore(self.procs_key, low, high)
        return [_text(p) for p in found]

    # --- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="presence")

    async def stop(self) -> None:
        await stop_task(self._task)
        self._task = None
        if self._seats:
            return  # sockets still open here: the lease runs out and a survivor reaps them
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.zrem(self.procs_key, self.id)
                pipe.delete(self.seats_key(self.id))
                await pipe.execute()
        except (RedisError, OSError):
            pass  # the lease expires by itself; the set is empty

    async def _run(self) -> None:
        while True:
            try:
                await self.renew()
                await self.reap()
                await self.settle()
            except (RedisError, OSError) as exc:
                log.warning("presence not renewed (%s)", type(exc).__name__)
            except Exception:
                log.exception("presence failed")
            await asyncio.sleep(self.lease_ms / 4000)

    async def renew(self) -> None:
        now = self._clock()
        seats = self.seats_key(self.id)
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.zadd(self.procs_key, {self.id: now + self.lease_ms})
            pipe.pexpire(seats, SEATS_TTL_MS)
            added, _ = await pipe.execute()
        first = self._renewed_at is None
        self._renewed_at = now
        if not added or first or not self._seats:
            return
        # Our lease was gone: a survivor reaped us (we were cut off from Redis for longer
        # than the lease) or Redis lost its keys (flushed). Our sockets are still open.
        log.warning("presence lease was gone; recording this process's seats again")
        await self.client.sadd(seats, *(f"{room}|{member}" for room, member in self._seats))
        if self.service is not None:
            for room, member in list(self._seats):
                await self.service.set_connected(room, member, True)

    async def reap(self) -> int:
        """Mark disconnected the seats of processes whose lease ran out; how many were."""
        if self.service is None:
            return 0
        now = self._clock()
        dead = [p for p in await self._processes("-inf", f"({now}") if p != self.id]
        marked = 0
        for process_id in dead:
            claimed = await self.client.set(
                self._claim_key(process_id), self.id, nx=True, px=self.lease_ms * 2
            )
            if not claimed:
                continue  # another survivor is at it
            entries = await self.client.smembers(self.seats_key(process_id))
            for raw in sorted(entries):
                room, _, member = _text(raw).partition("|")
                if await self.service.disconnect_unless_held(room, member, self.held):
                    marked += 1
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.zrem(self.procs_key, process_id)
                pipe.delete(self.seats_key(process_id))
                await pipe.execute()
            log.info("process lease expired: %d seats marked disconnected", marked)
        self.reaped += marked
        return marked


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
