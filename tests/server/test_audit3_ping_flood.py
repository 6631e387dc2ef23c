"""Audit 3: WebSocket pings from a client that does not read.

Control frames never reach the app, so none of its frame limits counts them: each ping was
answered with a pong written to the socket whatever was already waiting there, and a client
that sent pings without reading made the server buffer every pong (about 130 MB of memory
for 140 MB of pings in 5 s, from one socket). RFC 6455 5.5.3 lets a pong answer only the
latest ping; while the client's connection has more unread than its high-water mark, the
server now keeps only the latest ping's pong and sends it once the client reads again, so
what it holds for such a client stays bounded and a keepalive ping is never left unanswered
(a client like `websockets` closes the socket when its ping gets no pong)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from app.main import create_app
from app.server import uvicorn_options
from app.settings import AppSettings

PING = bytes([0x89, 0x80 | 125]) + b"\0\0\0\0" + b"p" * 125  # masked with a zero key


@contextlib.asynccontextmanager
async def serving() -> AsyncIterator[tuple[int, uvicorn.Server]]:
    config = AppSettings(database_url="memory://")
    options = uvicorn_options(config)
    for key in ("host", "port"):
        options.pop(key)
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="critical", **options))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            assert not task.done()
            await asyncio.sleep(0.01)
        yield sock.getsockname()[1], server
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


def _buffered(server: uvicorn.Server) -> int:
    """The largest write buffer of the server's connections now (bytes)."""
    sizes = [0]
    for protocol in server.server_state.connections:
        transport: Any = getattr(protocol, "transport", None)
        if transport is not None and not transport.is_closing():
            sizes.append(transport.get_write_buffer_size())
    return max(sizes)


async def _socket(port: int, room: str, token: str) -> tuple[asyncio.StreamReader, Any]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that reads nothing
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock)
    key = base64.b64encode(os.urandom(16)).decode()
    head = (
        f"GET /ws/rooms/{room} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    writer.write(head.encode())
    answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    hello = json.dumps({"type": "hello", "token": token, "since": None}).encode()
    writer.write(bytes([0x81, 0x80 | 126]) + len(hello).to_bytes(2, "big") + b"\0\0\0\0" + hello)
    await writer.drain()
    return reader, writer


async def test_pings_from_a_client_that_does_not_read_do_not_pile_up() -> None:
    async with serving() as (port, server):
        async with httpx.AsyncClient() as http:
            created = (
                await http.post(f"http://127.0.0.1:{port}/api/rooms", json={"name": "A"})
            ).json()
        _reader, writer = await _socket(port, created["room"], created["token"])
        burst = PING * 2000  # 262 KB of pings
        peak = 0
        try:
            with contextlib.suppress(TimeoutError, ConnectionError):
                async with asyncio.timeout(8):
                    for _ in range(120):  # about 31 MB in all
                        writer.write(burst)
                        await writer.drain()
                        peak = max(peak, _buffered(server))
            await asyncio.sleep(0.2)
            peak = max(peak, _buffered(server))
        finally:
            writer.transport.abort()
        assert peak < 2 * 1024 * 1024, peak  # was tens of MB, growing with every ping


async def test_a_reading_client_still_gets_its_pongs() -> None:
    async with serving() as (port, _server):
        async with httpx.AsyncClient() as http:
            created = (
                await http.post(f"http://127.0.0.1:{port}/api/rooms", json={"name": "A"})
            ).json()
        url = f"ws://127.0.0.1:{port}/ws/rooms/{created['room']}"
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": created["token"], "since": None}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            for _ in range(3):
                waiter = await ws.ping()
                await asyncio.wait_for(waiter, 3)


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    """(opcode, payload) of each whole server frame (unmasked, no extension) in `data`."""
    out = []
    i = 0
    while i + 2 <= len(data):
        opcode, size = data[i] & 0x0F, data[i + 1] & 0x7F
        i += 2
        if size == 126:
            size, i = int.from_bytes(data[i : i + 2], "big"), i + 2
        elif size == 127:
            size, i = int.from_bytes(data[i : i + 8], "big"), i + 8
        if i + size > len(data):
            break
        out.append((opcode, data[i : i + size]))
        i += size
    return out


@pytest.mark.timeout(150)
async def test_the_latest_ping_is_answered_once_the_client_reads() -> None:
    async with serving() as (port, server):
        async with httpx.AsyncClient() as http:
            created = (
                await http.post(f"http://127.0.0.1:{port}/api/rooms", json={"name": "A"})
            ).json()
        reader, writer = await _socket(port, created["room"], created["token"])
        last = bytes([0x89, 0x80 | 4]) + b"\0\0\0\0" + b"last"
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    while _buffered(server) == 0:  # until the client's buffer backs up
                        # Small writes, looked at often: every ping sent past that point is
                        # one the server must work through before "last" (slow under load).
                        writer.write(PING * 200)
                        await writer.drain()
            assert _buffered(server) > 0
            writer.write(last)
            await writer.drain()
            received = b""
            # The server first works through every ping already queued ahead of "last" (a
            # few MB): generous for a busy CI machine, where 10 s and then 40 s ran out at a
            # load average of 10 on 2 cores.
            async with asyncio.timeout(100):
                while (0x0A, b"last") not in _frames(received):
                    chunk = await reader.read(1 << 20)
                    assert chunk, "closed before the last ping's pong"
                    received += chunk
        finally:
            writer.transport.abort()
