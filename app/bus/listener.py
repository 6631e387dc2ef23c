"""The bus's pub/sub connection: messages handed on as they are parsed.

redis-py's PubSub is read by a task that asks for one message at a time, each read armed
with its own timeout and wrapped in a few layers; at a commit per move and two processes
per room that was a noticeable part of a move's cost. This is a bare asyncio protocol
instead: replies parsed by hiredis in `data_received`, each message passed straight to the
bus's callback, (un)subscriptions confirmed through futures, and a callback when the
connection is lost (the bus reconnects; its watchdog covers a connection that dies
silently, redis/redis-py #2417).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable
from typing import Any

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

OnMessage = Callable[[bytes, bytes], None]  # channel, data


class Listener(asyncio.Protocol):
    def __init__(self, on_message: OnMessage, on_lost: Callable[[Listener], None]) -> None:
        self._on_message = on_message
        self._on_lost = on_lost
        self._reader = hiredis.Reader()
        self._replies: deque[asyncio.Future[Any]] = deque()  # commands before subscribing
        self._confirming: dict[tuple[bytes, bytes], list[asyncio.Future[None]]] = {}
        self.transport: asyncio.Transport | None = None
        self.lost = False
        self.subscribed = 0  # channels Redis confirmed

    # --- opening --------------------------------------------------------------------------

    @classmethod
    async def open(
        cls,
        connection_kwargs: dict[str, Any],
        on_message: OnMessage,
        on_lost: Callable[[Listener], None],
    ) -> Listener:
        """Connect where a redis-py pool connects (its `connection_kwargs`)."""
        loop = asyncio.get_running_loop()
        listener = cls(on_message, on_lost)
        timeout = float(
            connection_kwargs.get("socket_connect_timeout")
            or connection_kwargs.get("socket_timeout")
            or 2.0
        )
        try:
            async with asyncio.timeout(timeout):
                path = connection_kwargs.get("path")
                if path:
                    await loop.create_unix_connection(lambda: listener, path)
                else:
                    host = connection_kwargs.get("host", "127.0.0.1")
                    port = int(connection_kwargs.get("port", 6379))
                    await loop.create_connection(lambda: listener, host, port)
                password = connection_kwargs.get("password")
                username = connection_kwargs.get("username")
                if password is not None:
                    await listener._call("AUTH", *((username,) if username else ()), password)
                name = connection_kwargs.get("client_name")
                if name:
                    await listener._call("CLIENT", "SETNAME", name)
        except TimeoutError as exc:
            listener.close()
            raise RedisTimeoutError("connecting the pub/sub connection timed out") from exc
        except OSError as exc:
            listener.close()
            raise RedisConnectionError(f"cannot connect the pub/sub connection: {exc}") from exc
        except BaseException:
            listener.close()
            raise
        return listener

    def _call(self, *args: Any) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._replies.append(future)
        self._write(args)
        return future

    # --- what the bus asks ----------------------------------------------------------------

    async def subscribe(self, *channels: bytes) -> None:
        """Subscribed once Redis confirmed every channel (a commit after that is heard)."""
        await self._confirmed(b"subscribe", channels)

    async def unsubscribe(self, *channels: bytes) -> None:
        await self._confirmed(b"unsubscribe", channels)

    def ping(self) -> None:
        """Its answer counts as hearing from the connection (the bus's watchdog)."""
        self._write((b"PING",))

    def close(self) -> None:
        self._lose(RedisConnectionError("closed"), report=False)

    async def _confirmed(self, kind: bytes, channels: tuple[bytes, ...]) -> None:
        if not channels:
            return
        loop = asyncio.get_running_loop()
        waits: list[asyncio.Future[None]] = []
        for channel in channels:
            future: asyncio.Future[None] = loop.create_future()
            self._confirming.setdefault((kind, channel), []).append(future)
            waits.append(future)
        self._write((kind.upper(), *channels))
        await asyncio.gather(*waits)

    def _write(self, args: tuple[Any, ...]) -> None:
        if self.lost or self.transport is None:
            raise RedisConnectionError("the pub/sub connection is closed")
        self.transport.write(hiredis.pack_command(args))

    # --- asyncio.Protocol -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while not self.lost:
            try:
                reply = self._reader.gets()
            except hiredis.ProtocolError as exc:
                self._lose(RedisConnectionError(f"protocol error: {exc}"))
                return
            if reply is False:
                return
            if isinstance(reply, list) and reply and isinstance(reply[0], bytes):
                kind = reply[0]
                if kind == b"message" and len(reply) == 3:
                    self._on_message(reply[1], reply[2])
                    continue
                if kind in (b"subscribe", b"unsubscribe") and len(reply) == 3:
                    self.subscribed = int(reply[2])
                    waiting = self._confirming.get((kind, reply[1]))
                    if waiting:
                        future = waiting.pop(0)
                        if not waiting:
                            del self._confirming[(kind, reply[1])]
                        if not future.done():
                            future.set_result(None)
                    continue
                if kind == b"pong":
                    self._on_message(b"", b"")  # heard; no channel
                    continue
            if self._replies:
                future_reply = self._replies.popleft()
                if future_reply.done():
                    continue
                if isinstance(reply, hiredis.ReplyError):
                    future_reply.set_exception(ResponseError(str(reply)))
                else:
                    future_reply.set_result(reply)
            elif reply == b"PONG":
                self._on_message(b"", b"")

    def connection_lost(self, exc: Exception | None) -> None:
        self._lose(RedisConnectionError(f"pub/sub connection lost: {exc or 'closed'}"))

    def _lose(self, exc: Exception, *, report: bool = True) -> None:
        if self.lost:
            return
        self.lost = True
        for future in self._replies:
            if not future.done():
                future.set_exception(exc)
        self._replies.clear()
        for waiting in self._confirming.values():
            for confirmation in waiting:
                if not confirmation.done():
                    confirmation.set_exception(exc)
        self._confirming.clear()
        if self.transport is not None:
            with contextlib.suppress(Exception):
                self.transport.abort()
        if report:
            self._on_lost(self)
