"""One Redis connection shared by every caller of the hot path (the rooms' function calls).

redis-py takes a pooled connection per command, arms a timeout, packs the command in Python
and writes it with a system call of its own; for the one or two function calls a move makes,
that was most of what a move cost on top of the in-memory store (docs/performance.md
"Scale-out"). Here the commands of all callers go on one connection, back to back: packed by
hiredis, written together once per turn of the event loop, their replies parsed by hiredis
and handed out in order (Redis answers a connection's commands in the order it sent them).

Failure is as with redis-py: a command not answered within `timeout` (or a connection that
breaks) fails every command waiting on the connection with `ConnectionError`, and the
connection is dropped; the next command opens a new one. A failed command's outcome is
unknown, as it is with any client: callers resend with the same command id, and the commit
function refuses what it already applied. A caller that gives up (cancelled) leaves its
reply to be read and dropped, so the replies of the others stay in order.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable
from typing import Any

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


class _Link(asyncio.Protocol):
    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        self._loop = loop
        self._timeout = timeout
        self._reader = hiredis.Reader()
        self._waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self._out: list[bytes] = []
        self._flush_planned = False
        self._watch: asyncio.TimerHandle | None = None
        self.transport: asyncio.Transport | None = None
        self.lost: Exception | None = None

    # --- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while True:
            try:
                reply = self._reader.gets()
            except hiredis.ProtocolError as exc:
                self._fail(RedisConnectionError(f"protocol error: {exc}"))
                return
            if reply is False:
                return
            if not self._waiting:
                self._fail(RedisConnectionError("a reply nobody asked for"))
                return
            future, _ = self._waiting.popleft()
            if not future.done():  # its caller may have given up
                if isinstance(reply, hiredis.ReplyError):
                    future.set_exception(ResponseError(str(reply)))
                else:
                    future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"connection lost: {exc or 'closed'}"))

    # --- requests -----------------------------------------------------------------------

    def request(self, payload: bytes) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = self._loop.create_future()
        if self.lost is not None:
            future.set_exception(self.lost)
            return future
        self._waiting.append((future, self._loop.time() + self._timeout))
        self._out.append(payload)
        if not self._flush_planned:
            self._flush_planned = True
            self._loop.call_soon(self._flush)
        if self._watch is None:
            self._watch = self._loop.call_later(self._timeout, self._check)
        return future

    def send_now(self) -> None:
        """Write what is queued now, not at the end of this turn of the loop."""
        if self._out:
            self._flush()

    def _flush(self) -> None:
        self._flush_planned = False
        out = self._out
        if out and self.transport is not None and self.lost is None:
            # Usually one command per turn of the loop: written as it is, not copied by a join.
            if len(out) == 1:
                self.transport.write(out[0])
            else:
                self.transport.writelines(out)
        out.clear()

    def _check(self) -> None:
        self._watch = None
        if not self._waiting or self.lost is not None:
            return
        oldest = self._waiting[0][1]
        now = self._loop.time()
        if oldest <= now:
            self._fail(RedisTimeoutError(f"no reply within {self._timeout:g} s"))
            return
        self._watch = self._loop.call_later(oldest - now, self._check)

    def _fail(self, exc: Exception) -> None:
        if self.lost is None:
            self.lost = exc
        waiting, self._waiting = self._waiting, deque()
        for future, _ in waiting:
            if not future.done():
                future.set_exception(exc)
        self._out.clear()
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self.transport is not None:
            self.transport.abort()


class RedisPipe:
    """`execute(*args)`: one command's reply, on the shared connection (opened on demand)."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 6379,
        path: str | None = None,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        name: str | None = None,
        timeout: float = 2.0,
        connect_timeout: float = 2.0,
    ) -> None:
        self._host, self._port, self._path = host, port, path
        self._setup: list[tuple[Any, ...]] = []
        if password is not None:
            auth = ("AUTH", username, password) if username else ("AUTH", password)
            self._setup.append(auth)
        if db:
            self._setup.append(("SELECT", db))
        if name:
            self._setup.append(("CLIENT", "SETNAME", name))
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._link: _Link | None = None
        self._opening: asyncio.Task[_Link] | None = None
        self._closed = False

    @classmethod
    def like(cls, connection_kwargs: dict[str, Any]) -> RedisPipe | None:
        """A pipe to where a redis-py pool connects (its `connection_kwargs`); None for what
        this does not speak (TLS)."""
        if connection_kwargs.get("ssl") or "ssl_context" in connection_kwargs:
            return None
        timeout = connection_kwargs.get("socket_timeout") or 2.0
        return cls(
            host=connection_kwargs.get("host", "127.0.0.1"),
            port=int(connection_kwargs.get("port", 6379)),
            path=connection_kwargs.get("path"),
            db=int(connection_kwargs.get("db") or 0),
            username=connection_kwargs.get("username"),
            password=connection_kwargs.get("password"),
            name=connection_kwargs.get("client_name"),
            timeout=float(timeout),
            connect_timeout=float(connection_kwargs.get("socket_connect_timeout") or timeout),
        )

    def execute(self, *args: Any) -> Awaitable[Any]:
        """The command's reply, to await. With the connection open this is the reply's
        future itself (no coroutine on the hot path); else a coroutine that opens it."""
        link = self._usable()
        if link is not None:
            return link.request(hiredis.pack_command(args))
        return self._execute_opening(args)

    def send_now(self) -> None:
        """Write the commands queued on the open connection now (their caller has work to do
        before it awaits the replies, and Redis can work meanwhile)."""
        link = self._usable()
        if link is not None:
            link.send_now()

    async def _execute_opening(self, args: tuple[Any, ...]) -> Any:
        link = await self._open()
        return await link.request(hiredis.pack_command(args))

    def _usable(self) -> _Link | None:
        """The open connection, if any (no coroutine on the hot path)."""
        link = self._link
        return link if link is not None and link.lost is None else None

    async def _open(self) -> _Link:
        if self._closed:
            raise RedisConnectionError("closed")
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._connect())
        opening = self._opening
        try:
            return await asyncio.shield(opening)
        finally:
            if opening.done() and self._opening is opening:
                self._opening = None

    async def _connect(self) -> _Link:
        loop = asyncio.get_running_loop()
        link = _Link(loop, self._timeout)
        try:
            async with asyncio.timeout(self._connect_timeout):
                if self._path is not None:
                    await loop.create_unix_connection(lambda: link, self._path)
                else:
                    await loop.create_connection(lambda: link, self._host, self._port)
                for command in self._setup:
                    await link.request(hiredis.pack_command(command))
        except TimeoutError as exc:
            link._fail(RedisTimeoutError("connect timed out"))
            raise RedisTimeoutError(f"connecting to Redis timed out: {exc}") from exc
        except OSError as exc:
            raise RedisConnectionError(f"cannot connect to Redis: {exc}") from exc
        except BaseException:
            link._fail(RedisConnectionError("set-up failed"))
            raise
        self._link = link
        return link

    async def aclose(self) -> None:
        self._closed = True
        if self._opening is not None:
            self._opening.cancel()
            with contextlib.suppress(BaseException):
                await self._opening
        if self._link is not None:
            self._link._fail(RedisConnectionError("closed"))
            self._link = None
