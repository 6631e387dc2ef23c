"""This process's sockets, per room: one bus subscription per room with sockets here, and
at most one current socket per player (a second one replaces the first)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from app.bus import notices
from app.bus.base import Bus
from app.store.rooms import Commit
from app.transport.connection import Connection
from app.transport.ratelimit import TokenBucket
from app.transport.tally import Tally

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Channel:
    connections: set[Connection] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    chat: TokenBucket | None = None


# The newest commits of a room after a version (RoomService.commits_since).
History = Callable[[str, int], Awaitable[list[Commit] | None]]


class Hub:
    def __init__(
        self,
        bus: Bus,
        history: History | None = None,
        clock: Callable[[], int] | None = None,
    ) -> None:
        """With `history` and `clock`, a commit's frames go out from the hub's task to every
        socket that is idle and right before it (one history read per commit, no task
        switch per socket); the others, and without them every socket, are notified."""
        self.bus = bus
        self._history = history
        self._clock = clock
        self._channels: dict[str, _Channel] = {}
        self._current: dict[tuple[str, str], Connection] = {}
        self.tally = Tally()  # this process's counts, for /metrics

    async def attach(self, conn: Connection) -> Connection | None:
        """Register `conn`; return the connection of the same member it replaces, if any."""
        channel = self._channels.get(conn.room)
        if channel is None:
            channel = self._channels[conn.room] = _Channel()
            channel.task = asyncio.create_task(self._listen(conn.room, channel))
        channel.connections.add(conn)
        await channel.ready.wait()  # subscribed before the first welcome is built
        key = (conn.room, conn.identity.member_id)
        previous = self._current.get(key)
        self._current[key] = conn
        return previous if previous is not conn else None

    async def detach(self, conn: Connection) -> bool:
        """Forget `conn`; True when it was its member's current connection."""
        key = (conn.room, conn.identity.member_id)
        was_current = self._current.get(key) is conn
        if was_current:
            del self._current[key]
        channel = self._channels.get(conn.room)
        if channel is not None:
            channel.connections.discard(conn)
            if not channel.connections:
                del self._channels[conn.room]
                if channel.task is not None:
                    channel.task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await channel.task
        return was_current

    async def _newest(self, room: str, version: int, after: int) -> Commit | None:
        """The commit ending at `version`, if it is still the newest and holds its state,
        read from `after` (a socket's version: a commit may hold several events, and a read
        from inside it finds nothing)."""
        if self._history is None:
            return None
        try:
            commits = await self._history(room, after)
        except Exception:  # the sockets' own tasks read (and report) the history then
            return None
        if not commits or commits[-1].last != version:
            return None
        return commits[-1]

    def prepare(self, room: str, commit: Commit) -> None:
        """The frames this process's sockets of `room` will get of `commit`, built while its
        commit is on its way to the shared store (RedisRoomStore.prepare): the state was just
        made, so the views are built warm, and the store works meanwhile, so its reply is
        usually in when the frames are done (no idle wait and wake-up between). After the
        reply, `deliver` sends what is built; a commit that lost is dropped with them."""
        channel = self._channels.get(room)
        if channel is None or self._clock is None or self._history is None:
            return
        now = self._clock()
        for conn in channel.connections:
            conn.prepare(commit, now)

    def take_chat(self, room: str, rate: float, burst: int) -> bool:
        """A token of the room's chat bucket (in this process), while it has sockets here."""
        channel = self._channels.get(room)
        if channel is None:
            return True
        if channel.chat is None:
            channel.chat = TokenBucket(rate, burst)
        return channel.chat.take()

    def connections(self, room: str) -> list[Connection]:
        channel = self._channels.get(room)
        return list(channel.connections) if channel else []

    def rooms(self) -> int:
        """Rooms with a socket here (for /metrics)."""
        return len(self._channels)

    def sockets_by_role(self) -> dict[str, int]:
        """Open sockets by role (for /metrics): one pass over them, at a scrape."""
        counts = {"player": 0, "spectator": 0}
        for channel in self._channels.values():
            for conn in channel.connections:
                counts[conn.identity.role] = counts.get(conn.identity.role, 0) + 1
        return counts

    def is_current(self, conn: Connection) -> bool:
        return self._current.get((conn.room, conn.identity.member_id)) is conn

    async def close(self) -> None:
        for channel in list(self._channels.values()):
            if channel.task is not None:
                channel.task.cancel()
        self._channels.clear()
        self._current.clear()

    async def _listen(self, room: str, channel: _Channel) -> None:
        try:
            async with self.bus.subscribe(room) as messages:
                channel.ready.set()
                async for message in messages:
                    parsed = notices.parse(message)
                    if parsed is None:
                        log.warning("ignored a malformed bus message")
                        continue
                    version = parsed[0]
                    conns = list(channel.connections)
                    behind = [c.version for c in conns if c.version < version]
                    commit = await self._newest(room, version, max(behind)) if behind else None
                    now = self._clock() if commit is not None and self._clock else 0
                    for conn in conns:
                        if commit is None or not conn.deliver(commit, now):
                            conn.notify(version)
        finally:
            channel.ready.set()
