"""The per-address cap on open connections (app/api/open_cap.py), against a fake inner app
that holds each request or socket open until the test lets it go: the count per client key,
the refusals (429 for HTTP, a close before accepting for a WebSocket), X-Forwarded-For from a
trusted proxy, lifespan untouched, and the table emptied once everything has closed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from app.api.open_cap import OpenConnectionCap, OpenConnections
from app.transport.ws import CLOSE_TRY_AGAIN


class HoldingApp:
    """Answers nothing until `release` is set; counts the scopes it was called with."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.calls: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls.append(scope["type"])
        if scope["type"] == "lifespan":
            return
        await self.release.wait()
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})


def _scope(kind: str, peer: str, forwarded: str | None = None) -> Scope:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    return {"type": kind, "client": (peer, 40000), "headers": headers, "path": "/x"}


async def _receive() -> Message:
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


class Sent:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def __call__(self, message: Message) -> None:
        self.messages.append(message)


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_past_the_cap_an_address_is_refused_until_one_closes() -> None:
    inner = HoldingApp()
    connections = OpenConnections(3)
    cap = OpenConnectionCap(inner, connections)
    held = [
        asyncio.create_task(cap(_scope(kind, "203.0.113.5"), _receive, Sent()))
        for kind in ("http", "websocket", "http")
    ]
    await _settle()
    assert connections.by_key == {"203.0.113.5": 3}

    refused_http = Sent()
    await cap(_scope("http", "203.0.113.5"), _receive, refused_http)
    start, body = refused_http.messages
    assert start["status"] == 429
    assert dict(start["headers"])[b"retry-after"] == b"1"
    assert json.loads(body["body"])["error"]["code"] == "rate_limited"

    refused_ws = Sent()
    await cap(_scope("websocket", "203.0.113.5"), _receive, refused_ws)
    assert refused_ws.messages == [
        {"type": "websocket.close", "code": CLOSE_TRY_AGAIN, "reason": ""}
    ]
    assert connections.refused == {"http": 1, "websocket": 1}
    assert inner.calls == ["http", "websocket", "http"]  # the refused never reached it

    other = asyncio.create_task(cap(_scope("http", "198.51.100.9"), _receive, Sent()))
    await _settle()
    assert connections.by_key == {"203.0.113.5": 3, "198.51.100.9": 1}

    inner.release.set()
    await asyncio.gather(*held, other)
    assert connections.by_key == {}  # nothing kept for an address with nothing open


async def test_a_failing_app_still_gives_its_slot_back() -> None:
    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("boom")

    connections = OpenConnections(1)
    cap = OpenConnectionCap(broken, connections)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            await cap(_scope("http", "203.0.113.5"), _receive, Sent())
        assert connections.by_key == {}


async def test_the_client_behind_a_trusted_proxy_is_the_key() -> None:
    inner = HoldingApp()
    connections = OpenConnections(1)
    cap = OpenConnectionCap(inner, connections, trusted_proxies=["10.0.0.0/8"])
    first = asyncio.create_task(cap(_scope("http", "10.0.0.1", "1.2.3.4"), _receive, Sent()))
    second = asyncio.create_task(cap(_scope("http", "10.0.0.1", "5.6.7.8"), _receive, Sent()))
    # An untrusted peer's header is its own writing: counted against the peer.
    third = asyncio.create_task(cap(_scope("http", "203.0.113.5", "1.2.3.4"), _receive, Sent()))
    await _settle()
    assert connections.by_key == {"1.2.3.4": 1, "5.6.7.8": 1, "203.0.113.5": 1}
    refused = Sent()
    await cap(_scope("http", "10.0.0.1", "1.2.3.4"), _receive, refused)
    assert refused.messages[0]["status"] == 429
    inner.release.set()
    await asyncio.gather(first, second, third)
    assert connections.by_key == {}


async def test_no_cap_and_lifespan_pass_through_uncounted() -> None:
    inner = HoldingApp()
    inner.release.set()
    connections = OpenConnections(0)
    cap = OpenConnectionCap(inner, connections)
    for _ in range(5):
        await cap(_scope("http", "203.0.113.5"), _receive, Sent())
    lifespan: Any = {"type": "lifespan"}
    await OpenConnectionCap(inner, OpenConnections(1))(lifespan, _receive, Sent())
    assert inner.calls == ["http"] * 5 + ["lifespan"]
    assert connections.by_key == {} and not connections.refused
