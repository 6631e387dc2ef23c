"""Audit 3: a request the HTTP parser cannot read (no Host in HTTP/1.1, a byte that is not
allowed in the request line, a bad Content-Length) was answered by uvicorn's plain-text
"Invalid HTTP request received." instead of the API's error body (PROTOCOL 2: errors are
`{"error": {"code", "message"}}` with a 4xx). It is now `400 bad_request` in that shape, the
connection still closed after it."""

from __future__ import annotations

import asyncio
import json

import pytest

from server.test_server_limits import serving


async def _ask(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        async with asyncio.timeout(5):
            return await reader.read()  # until the server closes
    finally:
        writer.close()


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /api/rooms/x HTTP/1.1\r\nConnection: close\r\n\r\n",  # no Host
        b"GET /api/rooms/\xff HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS hello on the plain port
    ],
)
async def test_an_unreadable_request_gets_the_api_error_body(request_bytes: bytes) -> None:
    async with serving() as port:
        answer = await _ask(port, request_bytes)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), answer
    assert b"content-type: application/json" in head.lower(), head
    error = json.loads(body)["error"]
    assert error["code"] == "bad_request" and error["message"]
