"""This process's sockets, per room: one bus subscription per room with sockets here, and
at most one current socket per player (a second one replaces the first)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

import orjson

from app.bus.base import Bus
from app.transport.connection import Connection
from app.transport.ratelimit import TokenBucket

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Channel:
    connections: set[Connection] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    chat: TokenBucket | None = None


class Hub:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self._channels: dict[str, _Channel] = {}
        self._current: dict[tuple[str, str], Connection] = {}

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
                    try:
                        version = int(orjson.loads(message)["version"])
                    except (ValueError, KeyError, TypeError):
                        log.warning("ignored a malformed bus message")
                        continue
                    for conn in list(channel.connections):
                        conn.notify(version)
        finally:
            channel.ready.set()
