"""The HTTP API under abuse (issue 11, findings 5, 6 and 13): per-address creation limits,
the cross-site guard, and the page's security headers. In process, over ASGI, so that each
request can come from a chosen client address."""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.limits import AddressBuckets, client_key, parse_networks
from app.main import create_app
from app.settings import AppSettings

BASE = "http://uno.example"


def _client(app: Any, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url=BASE)


@pytest.fixture
async def app() -> AsyncIterator[Any]:
    yield create_app(AppSettings(database_url="memory://"))  # the default limits


async def test_a_burst_of_300_room_creations_from_one_address_is_partly_refused(
    app: Any,
) -> None:
    statuses: list[int] = []
    started = time.monotonic()
    async with _client(app, "203.0.113.5") as http:
        for i in range(300):
            answer = await http.post("/api/rooms", json={"name": f"P{i}"})
            statuses.append(answer.status_code)
            if answer.status_code == 429:
                assert answer.json()["error"]["code"] == "rate_limited"
                assert int(answer.headers["retry-after"]) >= 1
        joins = await http.post("/api/rooms/whatever/players", json={"name": "J"})
        assert joins.status_code == 429  # seats count against the same bucket
    elapsed = time.monotonic() - started
    created = statuses.count(201)
    assert statuses.count(429) == 300 - created
    assert 60 <= created <= 60 + math.ceil(elapsed) + 1  # the burst, and 1/s refilled since
    async with _client(app, "198.51.100.9") as other:  # another address is not affected
        assert (await other.post("/api/rooms", json={"name": "Q"})).status_code == 201


async def test_rooms_past_max_rooms_are_refused_503_with_retry_after() -> None:
    """Many addresses, each within its creation rate, together stop at `MAX_ROOMS` held by
    the process: 503 `unavailable` with Retry-After, and the rooms made still work."""
    app = create_app(AppSettings(database_url="memory://", max_rooms=5))
    statuses = []
    for i in range(8):
        async with _client(app, f"203.0.113.{i + 1}") as http:
            answer = await http.post("/api/rooms", json={"name": f"P{i}"})
            statuses.append(answer.status_code)
            if answer.status_code == 503:
                assert answer.json()["error"]["code"] == "unavailable"
                assert int(answer.headers["retry-after"]) >= 1
            else:
                room = answer.json()["room"]
                assert (await http.get(f"/api/rooms/{room}")).status_code == 200
    assert statuses == [201] * 5 + [503] * 3


async def test_x_forwarded_for_counts_only_from_a_trusted_proxy() -> None:
    config = AppSettings(
        database_url="memory://",
        create_rate_burst=3,
        create_rate_per_second=0.001,
        trusted_proxies="10.0.0.0/8",
    )
    app = create_app(config)

    async def create(http: httpx.AsyncClient, forwarded: str | None) -> int:
        headers = {"x-forwarded-for": forwarded} if forwarded else {}
        answer = await http.post("/api/rooms", json={"name": "A"}, headers=headers)
        return answer.status_code

    async with _client(app, "203.0.113.5") as direct:
        # An untrusted peer's header is ignored: a new header per request buys nothing.
        codes = [await create(direct, f"192.0.2.{i}") for i in range(5)]
        assert codes == [201, 201, 201, 429, 429]
    async with _client(app, "10.1.2.3") as proxy:
        # Behind the proxy each client has its own bucket; a forged left part is ignored.
        codes = [await create(proxy, f"forged{i}, 198.51.100.7") for i in range(4)]
        assert codes == [201, 201, 201, 429]
        assert await create(proxy, "198.51.100.8") == 201
        assert await create(proxy, "192.0.2.1, 198.51.100.8, 10.9.9.9") == 201


def test_client_keys() -> None:
    trusted = parse_networks(["10.0.0.0/8", "::1"])
    assert client_key("203.0.113.5", "1.2.3.4", trusted) == "203.0.113.5"
    assert client_key("10.0.0.1", "1.2.3.4", trusted) == "1.2.3.4"
    assert client_key("10.0.0.1", "1.2.3.4, 10.0.0.7", trusted) == "1.2.3.4"
    assert client_key("10.0.0.1", "junk", trusted) == "10.0.0.1"
    # IPv6 per /64: one subscriber cannot walk its own block to get more rooms.
    assert client_key("2001:db8:1:2::5", None, trusted) == client_key(
        "2001:db8:1:2:ffff::9", None, trusted
    )
    assert client_key("::ffff:198.51.100.7", None, trusted) == "198.51.100.7"


def test_buckets_refill_and_stay_bounded() -> None:
    now = [0.0]
    buckets = AddressBuckets(rate=2.0, burst=2, clock=lambda: now[0])
    assert buckets.take("a") == 0 and buckets.take("a") == 0
    assert buckets.take("a") == pytest.approx(0.5)
    now[0] += 0.5
    assert buckets.take("a") == 0


async def test_a_cross_site_post_is_refused_and_same_site_ones_work(app: Any) -> None:
    async with _client(app, "192.0.2.10") as http:
        body = b'{"name": "Raw"}'
        # What a page on another site can send without a preflight: refused.
        for headers in (
            {"origin": "https://evil.example", "content-type": "text/plain"},
            {"origin": "https://evil.example"},
            {"origin": "https://evil.example", "content-type": "application/json"},
            {"origin": "null", "content-type": "application/json"},
        ):
            answer = await http.post("/api/rooms", content=body, headers=headers)
            assert answer.status_code == 403, headers
            assert answer.json()["error"]["code"] == "forbidden_origin"
        room = (await http.post("/api/rooms", json={"name": "H"})).json()["room"]
        evil = {"origin": "https://evil.example", "content-type": "application/json"}
        taken = await http.post(f"/api/rooms/{room}/players", content=body, headers=evil)
        assert taken.status_code == 403
        watched = await http.post(f"/api/rooms/{room}/spectators", headers=evil)
        assert watched.status_code == 403
        # A body that does not say it is JSON is refused, whoever sends it.
        for headers in ({}, {"content-type": "text/plain"}, {"content-type": "x/json"}):
            answer = await http.post("/api/rooms", content=body, headers=headers)
            assert answer.status_code == 415, headers
            assert answer.json()["error"]["code"] == "unsupported_media_type"
        # The page itself (same origin) and non-browser clients (no Origin) still work.
        same = {"origin": BASE, "content-type": "application/json; charset=utf-8"}
        assert (await http.post("/api/rooms", content=body, headers=same)).status_code == 201
        plain = {"content-type": "application/json"}
        assert (await http.post("/api/rooms", content=body, headers=plain)).status_code == 201
        seat = await http.post(f"/api/rooms/{room}/players", content=body, headers=same)
        assert seat.status_code == 201
        # No body needs no type (a spectator with the default name).
        assert (await http.post(f"/api/rooms/{room}/spectators")).status_code == 201


async def test_listed_origins_may_post() -> None:
    app = create_app(
        AppSettings(database_url="memory://", allowed_origins="https://friend.example")
    )
    async with _client(app, "192.0.2.11") as http:
        headers = {"origin": "https://friend.example"}
        answer = await http.post("/api/rooms", json={"name": "F"}, headers=headers)
        assert answer.status_code == 201


def test_the_page_sends_its_bodies_as_json() -> None:
    source = (Path(__file__).resolve().parents[2] / "web" / "core.js").read_text()
    assert "headers['Content-Type'] = 'application/json'" in source


@pytest.mark.parametrize("path", ["/", "/r/some-room", "/assets/app.js", "/api/rooms/nope", "/x"])
async def test_every_response_forbids_framing_and_inline_script(app: Any, path: str) -> None:
    async with _client(app, "192.0.2.12") as http:
        answer = await http.get(path)
    policy = answer.headers["content-security-policy"]
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["script-src"] == ["'self'"]
    assert "'unsafe-eval'" not in policy
    # Inline scripts and style elements never; style attributes only (the client patches
    # nodes in place, and an attribute runs no code).
    for name, sources in directives.items():
        if name != "style-src-attr":
            assert "'unsafe-inline'" not in sources, name
    assert directives["style-src"] == ["'self'"]
    assert answer.headers["x-frame-options"] == "DENY"
