"""Redis pub/sub bus: one pub/sub connection per process (app/bus/listener.py), one channel
per room held here.

Messages are the commit function's notices (app/bus/notices.py: "room R is at version V",
and the commit itself, handed to the store with `heard`). The function publishes a notice
only when a process other than the committing one subscribes to the room; the committing
process tells its own subscribers with `local`. Pub/sub delivers at most once, and
a pub/sub connection can die without its client noticing for a long while (redis/redis-py
#2417, #3979), so a watchdog repairs both: every `check_seconds` it pings
the connection (no answer → a new connection, every room subscribed again) and reads the
versions of this process's rooms (the store's `versions`: one function call per 1,000
rooms), injecting a notice for each room that
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

from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.bus import notices
from app.bus.listener import Listener

log = logging.getLogger(__name__)

QUEUE_LIMIT = 256

Versions = Callable[[Sequence[str]], Awaitable[list[int]]]
# Told of every notice: the room, its version and the commit it carries (b"" when none).
Heard = Callable[[str, int, bytes], None]


class RedisBus:
    def __init__(
        self,
        client: Redis,
        channel: Callable[[str], str],
        versions: Versions,
        *,
        check_seconds: float = 2.0,
        heard: Heard | None = None,
    ) -> None:
        self.client = client
        self._channel = channel
        self._versions = versions
        self._check_seconds = check_seconds
        self._heard_version = heard  # told of every notice (the store's read coalescing)
        self._rooms: dict[str, set[asyncio.Queue[bytes]]] = {}
        self._by_channel: dict[bytes, str] = {}
        self._seen: dict[str, int] = {}
        self._kwargs = dict(client.connection_pool.connection_kwargs)
        self._confirm_timeout = float(self._kwargs.get("socket_timeout") or 2.0)
        self._listener: Listener | None = None
        self._lock = asyncio.Lock()  # subscribe/unsubscribe/reconnect one at a time
        self._watchdog: asyncio.Task[None] | None = None
        self._repairing: set[asyncio.Task[None]] = set()
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

    def local(self, room: str, version: int, data: bytes = b"") -> None:
        """A commit this process made (`data`: its notice, when the caller made it already):
        its subscribers here are told directly (the commit function publishes the notice
        only when another process subscribes to the room). The store knows of the commit:
        it is not told again."""
        seen = self._seen.get(room)
        if seen is not None and version > seen:
            self._push(room, version, data or notices.notice(room, version), tell_store=False)

    def listening(self, room: str) -> bool:
        """Subscribed to the room, and told its version since (the check at subscription):
        every later commit of it reaches this process's `heard` (or the watchdog repairs)."""
        return room in self._seen

    def listening_test(self) -> Callable[[str], bool]:
        """`listening` as the bound membership test of the dict behind it (it is never
        replaced): the store asks it three times a move, and this costs no Python frame."""
        return self._seen.__contains__

    async def healthy(self) -> bool:
        try:
            return bool(await self.client.ping())
        except (RedisError, OSError):
            return False

    async def close(self) -> None:
        for task in (self._watchdog, *self._repairing):
            while task is not None and not task.done():
                task.cancel()
                await asyncio.wait([task], timeout=0.5)
        self._watchdog = None
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        self._rooms.clear()

    # --- the connection -------------------------------------------------------------------

    async def _subscribe(self, room: str) -> None:
        channel = self._channel(room).encode()
        self._by_channel[channel] = room
        async with self._lock:
            try:
                listener = await self._ensure_connection()
                await asyncio.wait_for(listener.subscribe(channel), self._confirm_timeout)
            except (RedisError, OSError, TimeoutError):
                log.warning("pub/sub subscribe failed; the watchdog reconnects")

    async def _unsubscribe(self, room: str) -> None:
        channel = self._channel(room).encode()
        self._by_channel.pop(channel, None)
        async with self._lock:
            listener = self._listener
            if listener is not None and not listener.lost and channel not in self._by_channel:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(listener.unsubscribe(channel), self._confirm_timeout)

    async def _ensure_connection(self) -> Listener:
        listener = self._listener
        if listener is None or listener.lost:
            self._listener = None
            listener = await Listener.open(self._kwargs, self._on_message, self._on_lost)
            self._heard = time.monotonic()
            channels = list(self._by_channel)
            if channels:
                await asyncio.wait_for(listener.subscribe(*channels), self._confirm_timeout)
            self._listener = listener
        if self._watchdog is None:
            self._watchdog = asyncio.create_task(self._watch_forever(), name="redis-bus-watch")
        return listener

    async def _reconnect(self) -> None:
        async with self._lock:
            old, self._listener = self._listener, None
            if old is not None:
                old.close()
            self.reconnects += 1
            try:
                await self._ensure_connection()
            except (RedisError, OSError, TimeoutError) as exc:
                log.warning("pub/sub reconnect failed: %s", type(exc).__name__)

    def _on_message(self, channel: bytes, data: bytes) -> None:
        self._heard = time.monotonic()
        if channel:
            self._deliver(channel, data)

    def _on_lost(self, listener: Listener) -> None:
        """The connection broke (killed, Redis restarted): a new one, then the rooms' versions
        (what was published meanwhile is lost to pub/sub)."""
        if listener is not self._listener:
            return
        log.warning("pub/sub connection lost; reconnecting")
        task = asyncio.get_running_loop().create_task(self._repair())
        self._repairing.add(task)
        task.add_done_callback(self._repairing.discard)

    async def _repair(self) -> None:
        await self._reconnect()
        await self._check(list(self._rooms))

    def _deliver(self, channel: bytes, data: bytes) -> None:
        room = self._by_channel.get(channel)
        if room is None:
            return
        parsed = notices.parse(data)
        if parsed is None:
            return
        version, body = parsed
        if version <= self._seen.get(room, -1):
            # Told already (this process's own commit, told by `local`, or a repair): the
            # store may still take the commit it carries; the subscribers need nothing new.
            if self._heard_version is not None and room in self._rooms:
                self._heard_version(room, version, body)
            return
        self._push(room, version, data, body)

    def _push(
        self, room: str, version: int, data: bytes, body: bytes = b"", *, tell_store: bool = True
    ) -> None:
        subscribers = self._rooms.get(room)
        if subscribers is None:  # unsubscribed meanwhile: not heard (see `listening`)
            return
        if version > self._seen.get(room, -1):
            self._seen[room] = version
        if tell_store and self._heard_version is not None:
            self._heard_version(room, version, body)
        for queue in subscribers:
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
        listener = self._listener
        silent = time.monotonic() - self._heard
        if listener is None or listener.lost or silent > 3 * self._check_seconds:
            log.warning("pub/sub connection silent for %.1f s; reconnecting", silent)
            await self._reconnect()
        elif self._by_channel:
            with contextlib.suppress(RedisError, OSError):
                listener.ping()  # its pong counts as hearing from the connection
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
                self._push(room, version, notices.notice(room, version))


async def _drain(queue: asyncio.Queue[bytes]) -> AsyncIterator[bytes]:
    while True:
        yield await queue.get()
