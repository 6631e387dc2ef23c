"""In-process bus: one unbounded queue per subscriber (a process has one subscriber per room)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class MemoryBus:
    def __init__(self) -> None:
        self._subscribers: dict[str, set[asyncio.Queue[bytes]]] = {}

    async def publish(self, room: str, message: bytes) -> None:
        for queue in self._subscribers.get(room, ()):
            queue.put_nowait(message)

    @asynccontextmanager
    async def subscribe(self, room: str) -> AsyncIterator[AsyncIterator[bytes]]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._subscribers.setdefault(room, set()).add(queue)
        try:
            yield _drain(queue)
        finally:
            subscribers = self._subscribers.get(room)
            if subscribers is not None:
                subscribers.discard(queue)
                if not subscribers:
                    del self._subscribers[room]

    def subscriber_count(self, room: str) -> int:
        return len(self._subscribers.get(room, ()))

    async def healthy(self) -> bool:
        return True

    async def close(self) -> None:
        self._subscribers.clear()


async def _drain(queue: asyncio.Queue[bytes]) -> AsyncIterator[bytes]:
    while True:
        yield await queue.get()
