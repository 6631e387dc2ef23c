"""Redis pub/sub bus: one pub/sub connection per process, one channel per room held here.

Messages are the commit function's notices `{"room": R, "version": V}`. Pub/sub delivers at
most once, and a pub/sub connection can die without redis-py noticing for a long while
(redis/redis-py #2417, #3979), so a watchdog repairs both: every `check_seconds` it pings
the connection (no answer → a new connection, every room subscribed again) and reads the
versions of this process's rooms in one pipeline, injecting a notice for each room that
moved past what was seen. A lost notice therefore costs at most one check interval.

Subscriber queues are bounded: notices only say "room R is at V", so when one is full the
oldest is dropped; the newest still brings the reader up to date.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import orjson
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

QUEUE_LIMIT = 256

Versions = Callable[[Sequence[str]], Awaitable[list[int]]]


class RedisBus:
    def __init__(
        self,
        client: Redis,
        channel: Callable[[str], str],
        versions: Versions,
        *,
        check_seconds: float = 2.0,
        heard: Callable[[str, int], None] | None = None,
    ) -> None:
        self.client = client
        self._channel = channel
        self._versions = versions
        self._check_seconds = check_seconds
        self._heard_version = heard  # told of every notice (the store's read coalescing)
        self._rooms: dict[str, set[asyncio.Queue[bytes]]] = {}
        self._by_channel: dict[bytes, str] = {}
        self._seen: dict[str, int] = {}
        self._pubsub: PubSub | None = None
        self._lock = asyncio.Lock()  # subscribe/unsubscribe/reconnect one at a time
        self._reader: asyncio.Task[None] | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._heard = time.monotonic()
        self.reconnects = 0  # how often the watchdog replaced the connection (tests, health)
        self.repairs = 0  # notices the version check injected

    # --- the Bus interface ------------------------------------------------------------------

    async def publish(self, room: str, message: bytes) -> None:
        await self.client.publish(self._channel(room), message)

    @asynccontextmanager
    async def subscribe(self, room: str) -> AsyncIterator[AsyncIterator[bytes]]:
        queue: asyncio.Queue[bytes] = asyncio.Queue(QUEUE_LIMIT)
        subscribers = self._rooms.setdefault(room, set())
        first = not subscribers
        subscribers.add(queue)
        try:
            if first:
                await self._subscribe(room)
            # A commit between SUBSCRIBE and its confirmation is not lost: look once now.
            await self._check([room])
            yield _drain(queue)
        finally:
            held = self._rooms.get(room)
            if held is not None:
                held.discard(queue)
                if not held:
                    del self._rooms[room]
                    self._seen.pop(room, None)
                    with contextlib.suppress(RedisError, OSError):
                        await self._unsubscribe(room)

    async def healthy(self) -> bool:
        try:
            return bool(await self.client.ping())
        except (RedisError, OSError):
            return False

    async def close(self) -> None:
        for task in (self._reader, self._watchdog):
            # redis-py may swallow one cancellation inside a command: cancel until done.
            while task is not None and not task.done():
                task.cancel()
                await asyncio.wait([task], timeout=0.5)
        self._reader = self._watchdog = None
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            self._pubsub = None
        self._rooms.clear()

    # --- the connection -------------------------------------------------------------------

    async def _subscribe(self, room: str) -> None:
        channel = self._channel(room).encode()
        self._by_channel[channel] = room
        async with self._lock:
            await self._ensure_connection()
            assert self._pubsub is not None
            try:
                await self._pubsub.subscribe(channel)
            except (RedisError, OSError):
                log.warning("pub/sub subscribe failed; the watchdog reconnects")

    async def _unsubscribe(self, room: str) -> None:
        channel = self._channel(room).encode()
        self._by_channel.pop(channel, None)
        async with self._lock:
            if self._pubsub is not None:
                await self._pubsub.unsubscribe(channel)

    async def _ensure_connection(self) -> None:
        if self._pubsub is None:
            self._pubsub = self.client.pubsub()
            self._heard = time.monotonic()
            channels = list(self._by_channel)
            if channels:
                await self._pubsub.subscribe(*channels)
        if self._reader is None:
            self._reader = asyncio.create_task(self._read_forever(), name="redis-bus-reader")
        if self._watchdog is None:
            self._watchdog = asyncio.create_task(self._watch_forever(), name="redis-bus-watch")

    async def _reconnect(self) -> None:
        async with self._lock:
            old, self._pubsub = self._pubsub, None
            if old is not None:
                with contextlib.suppress(Exception):
                    await old.aclose()  # type: ignore[no-untyped-call]
            self.reconnects += 1
            try:
                await self._ensure_connection()
            except (RedisError, OSError) as exc:
                self._pubsub = None
                log.warning("pub/sub reconnect failed: %s", type(exc).__name__)

    async def _read_forever(self) -> None:
        while True:
            pubsub = self._pubsub
            if pubsub is None or not pubsub.subscribed:
                await asyncio.sleep(0.05)
                continue
            try:
                message = await pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a dead connection: the watchdog replaces it
                log.warning("pub/sub read failed: %s", type(exc).__name__)
                if self._pubsub is pubsub:
                    await self._reconnect()
                await self._check(list(self._rooms))
                continue
            if message is None:
                continue
            self._heard = time.monotonic()
            if message.get("type") == "message":
                self._deliver(message)

    def _deliver(self, message: dict[str, Any]) -> None:
        room = self._by_channel.get(message["channel"])
        if room is None:
            return
        data: bytes = message["data"]
        try:
            version = int(orjson.loads(data)["version"])
        except (ValueError, KeyError, TypeError):
            return
        self._push(room, version, data)

    def _push(self, room: str, version: int, data: bytes) -> None:
        if version > self._seen.get(room, -1):
            self._seen[room] = version
        if self._heard_version is not None:
            self._heard_version(room, version)
        for queue in self._rooms.get(room, ()):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(data)

    async def _watch_forever(self) -> None:
        while True:
            await asyncio.sleep(self._check_seconds)
            try:
                await self._watch_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("pub/sub watchdog failed")

    async def _watch_once(self) -> None:
        pubsub = self._pubsub
        silent = time.monotonic() - self._heard
        if pubsub is None or silent > 3 * self._check_seconds:
            log.warning("pub/sub connection silent for %.1f s; reconnecting", silent)
            await self._reconnect()
        elif self._by_channel:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.ping()  # its pong counts as hearing from the connection
        else:
            self._heard = time.monotonic()
        await self._check(list(self._rooms))

    async def _check(self, rooms: list[str]) -> None:
        """Inject a notice for each room that moved past what its subscribers were told."""
        if not rooms:
            return
        try:
            versions = await self._versions(rooms)
        except Exception as exc:
            log.warning("version check failed: %s", type(exc).__name__)
            return
        for room, version in zip(rooms, versions, strict=True):
            if version > self._seen.get(room, -1) and room in self._rooms:
                if room in self._seen:
                    self.repairs += 1
                self._push(room, version, orjson.dumps({"room": room, "version": version}))


async def _drain(queue: asyncio.Queue[bytes]) -> AsyncIterator[bytes]:
    while True:
        yield await queue.get()
