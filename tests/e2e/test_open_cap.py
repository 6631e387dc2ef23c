"""The per-address cap on open connections (`max_open_per_address`, app/api/open_cap.py) on a
real server: an address holding the cap in room sockets has its next handshake refused (HTTP
403) while another address still connects, a closed socket frees its slot; tournament event
streams count too (the next request is a 429); refusals show in /metrics; and nothing is kept
for an address once its connections have closed. Two client addresses are played through
X-Forwarded-For from a trusted proxy (127.0.0.1); the harness's own requests come from
127.0.0.1 itself, a third address."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from tests.e2e.harness import Harness, running_server, server_settings

CAP = 3
HOSTILE = {"X-Forwarded-For": "203.0.113.7"}
OTHER = {"X-Forwarded-For": "198.51.100.2"}


@pytest.fixture
async def capped() -> Any:
    settings = server_settings(
        max_open_per_address=CAP, trusted_proxies=["127.0.0.1"], metrics_token="t"
    )
    async with running_server(settings) as harness:
        yield harness


def _held(harness: Harness) -> dict[str, int]:
    by_key: dict[str, int] = harness.app.state.open_connections.by_key
    return by_key


async def _until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    assert condition()


async def _seated_socket(harness: Harness, room: str, headers: dict[str, str]) -> ClientConnection:
    """A spectator's socket, welcomed (so the server keeps it open)."""
    token = await harness.spectate(room)
    ws = await websockets.connect(f"{harness.ws_base}/ws/rooms/{room}", additional_headers=headers)
    await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
    while json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] != "welcome":
        pass
    return ws


async def _refused_handshake(harness: Harness, room: str, headers: dict[str, str]) -> None:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(f"{harness.ws_base}/ws/rooms/{room}", additional_headers=headers)
    assert refused.value.response.status_code == 403


def _metric(text: str, name: str) -> int:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return int(line.split()[1])
    return 0


async def test_sockets_past_the_cap_are_refused_per_address(capped: Harness) -> None:
    room = (await capped.create_room("Host"))["room"]
    sockets = [await _seated_socket(capped, room, HOSTILE) for _ in range(CAP)]
    assert _held(capped).get("203.0.113.7") == CAP

    await _refused_handshake(capped, room, HOSTILE)
    # Any request from that address, not only sockets: it holds its cap already.
    answer = await capped.http.get(f"/api/rooms/{room}", headers=HOSTILE)
    assert answer.status_code == 429
    assert answer.json()["error"]["code"] == "rate_limited"
    assert answer.headers["retry-after"] == "1"

    elsewhere = await _seated_socket(capped, room, OTHER)  # another address is not affected

    await sockets.pop().close()
    await _until(lambda: _held(capped).get("203.0.113.7") == CAP - 1)
    sockets.append(await _seated_socket(capped, room, HOSTILE))  # the slot is free again
    await _refused_handshake(capped, room, HOSTILE)

    scrape = await capped.http.get("/metrics", headers={"Authorization": "Bearer t"})
    assert _metric(scrape.text, 'uno_refused_over_open_cap_total{kind="websocket"}') == 2
    assert _metric(scrape.text, 'uno_refused_over_open_cap_total{kind="http"}') == 1

    for ws in [*sockets, elsewhere]:
        await ws.close()
    await _until(lambda: not _held(capped))  # nothing kept for addresses with nothing open


async def test_event_streams_count_against_the_cap(capped: Harness) -> None:
    created = await capped.http.post(
        "/api/tournaments",
        json={"name": "Cup", "host_name": "Ana", "table_size": 2, "format": "elimination"},
    )
    assert created.status_code == 201, created.text
    url = f"/api/tournaments/{created.json()['tournament']}/events"
    async with AsyncExitStack() as streams:
        opened = []
        for _ in range(CAP):
            stream = await streams.enter_async_context(
                capped.http.stream("GET", url, headers=HOSTILE)
            )
            assert stream.status_code == 200
            opened.append(stream)
        await _until(lambda: _held(capped).get("203.0.113.7") == CAP)

        refused = await capped.http.get(url, headers=HOSTILE)
        assert refused.status_code == 429
        assert refused.json()["error"] == {
            "code": "rate_limited",
            "message": "too many open connections from this address",
        }
        room = (await capped.create_room("Host"))["room"]
        await _refused_handshake(capped, room, HOSTILE)  # streams and sockets share the cap
        assert (await capped.http.get(url.removesuffix("/events"), headers=OTHER)).is_success

        await opened.pop().aclose()
        await _until(lambda: _held(capped).get("203.0.113.7") == CAP - 1)
        after = await capped.http.get(url.removesuffix("/events"), headers=HOSTILE)
        assert after.status_code == 200
    await _until(lambda: not _held(capped))
