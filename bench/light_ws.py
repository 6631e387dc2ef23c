"""A minimal WebSocket client for the load generator's sockets (bench/load_paced.py).

The load generator shares the machine's CPUs with the servers it measures: with the
`websockets` library its Python cost about 1 ms of CPU per move at the design load (four
seats' frames parsed through a sans-I/O protocol, an assembler and a queue each), more than
the server's own 0.7 ms, and its contention made every server figure worse, the Redis path's
(more processes waiting for a CPU) most. This client does only what the bench's sockets need
(RFC 6455, client side): the opening handshake, text frames in, text frames out unfragmented,
pongs for the server's pings, the closing handshake; no extensions. Each message is handed to
a callback from `data_received`, with no task, queue or future per frame. A client's frames
must be masked; the key is four zero bytes (RFC 6455 5.3 asks for an unpredictable key to
protect intermediaries' caches from a hostile script, which a load generator on loopback is
not), so masking leaves the payload as it is.

`--client websockets` (bench/load.py) keeps the library client for comparison.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from collections.abc import Callable

_MASK = b"\x00\x00\x00\x00"


def _frame(opcode: int, payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + struct.pack("!H", n)
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + struct.pack("!Q", n)
    return head + _MASK + payload


class LightSocket(asyncio.Protocol):
    """One client socket; `on_message(text)` for each text message, `on_close(exc)` once."""

    def __init__(
        self,
        on_message: Callable[[str], None],
        on_close: Callable[[BaseException], None],
        max_size: int,
    ) -> None:
        self.on_message = on_message
        self.on_close = on_close
        self._max_size = max_size
        self._buffer = bytearray()
        self._parts: list[bytes] = []  # a fragmented message's frames so far
        self._transport: asyncio.Transport | None = None
        self._opened: asyncio.Future[None] | None = None
        self._key = ""
        self._closed = False

    # --- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        if self._opened is not None and not self._opened.done():
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end]).decode("latin-1")
            del buffer[: end + 4]
            if not head.startswith("HTTP/1.1 101"):
                self._opened.set_exception(ConnectionError(head.split("\r\n", 1)[0]))
                return
            self._opened.set_result(None)
        while len(buffer) >= 2:
            b0, b1 = buffer[0], buffer[1]
            n, start = b1 & 0x7F, 2
            if n == 126:
                if len(buffer) < 4:
                    return
                n, start = struct.unpack_from("!H", buffer, 2)[0], 4
            elif n == 127:
                if len(buffer) < 10:
                    return
                n, start = struct.unpack_from("!Q", buffer, 2)[0], 10
            if b1 & 0x80 or n > self._max_size:
                self._fail(ConnectionError("a masked or oversized frame from the server"))
                return
            if len(buffer) < start + n:
                return
            payload = bytes(buffer[start : start + n])
            del buffer[: start + n]
            self._frame_in(b0 & 0x80, b0 & 0x0F, payload)
            if self._closed:
                return

    def connection_lost(self, exc: Exception | None) -> None:
        if self._opened is not None and not self._opened.done():
            self._opened.set_exception(ConnectionError("closed during the handshake"))
        self._fail(exc or ConnectionError("the server closed the socket"))

    # --- frames ---------------------------------------------------------------------------

    def _frame_in(self, fin: int, opcode: int, payload: bytes) -> None:
        if opcode == 0x9:  # ping
            self._write(_frame(0xA, payload))
        elif opcode == 0x8:  # close: answer it, then the server closes the connection
            self._write(_frame(0x8, payload[:2]))
            self._fail(ConnectionError("the server closed the socket"))
        elif opcode in (0x1, 0x2, 0x0):
            if not fin:
                self._parts.append(payload)
                return
            if self._parts:
                payload = b"".join([*self._parts, payload])
                self._parts.clear()
            self.on_message(payload.decode())

    def _write(self, data: bytes) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def _fail(self, exc: BaseException) -> None:
        if self._closed:
            return
        self._closed = True
        if self._transport is not None:
            self._transport.close()
        self.on_close(exc)

    # --- the caller's side ------------------------------------------------------------------

    async def open(self, host: str, port: int, path: str) -> None:
        self._opened = asyncio.get_running_loop().create_future()
        self._key = base64.b64encode(os.urandom(16)).decode()
        self._write(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {self._key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        await self._opened

    def send(self, text: str) -> None:
        self._write(_frame(0x1, text.encode()))

    def close(self) -> None:
        if not self._closed:
            self._write(_frame(0x8, struct.pack("!H", 1000)))
            self._fail(ConnectionError("closed by the client"))


async def connect(
    host: str,
    port: int,
    path: str,
    on_message: Callable[[str], None],
    on_close: Callable[[BaseException], None],
    *,
    max_size: int = 1 << 22,
    timeout: float = 30.0,
) -> LightSocket:
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout):
        _, protocol = await loop.create_connection(
            lambda: LightSocket(on_message, on_close, max_size), host, port
        )
        await protocol.open(host, port, path)
    return protocol
