"""A socket's sender against a room that moves faster than the client reads (PROTOCOL 3:
"each recipient sees every version in order, with no gaps"). The room's history drops the
state of old commits while a sender is still working through a list of them: the commits it
held must still reach the client, merged if need be, never replaced by a fresh `welcome`
that skips versions the history still holds."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from app.engine import actions as act
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomService
from app.store.rooms import STATES_KEPT
from app.store.shared import StoreUnavailable
from app.transport.connection import Connection

from .welcomed import settled, welcomed_connection


class SlowSocket:
    """Sends wait at a gate, as to a client whose buffers are full (no direct send path in
    its scope: every frame takes the ASGI send)."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {"type": "websocket", "extensions": {}}
        self.sent: list[dict[str, Any]] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.sending = asyncio.Event()

    async def send_text(self, text: str) -> None:
        self.sending.set()
        await self.gate.wait()
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        return None


async def _welcomed_socket() -> tuple[RoomService, str, Identity, SlowSocket, Connection]:
    """A room in memory, its host's socket started and welcomed."""
    ws = SlowSocket()
    service, room, who, conn = await welcomed_connection(ws)
    return service, room, who, ws, conn


async def test_a_slow_sender_still_sends_every_commit_it_held() -> None:
    service, room, who, ws, conn = await _welcomed_socket()
    assert [f["type"] for f in ws.sent] == ["welcome"]
    start = conn.version

    async def chat(k: int) -> int:
        outcome = await service.submit(room, who, Command("chat", f"c{k}", None, act.Chat("hi")))
        assert outcome.version is not None
        return outcome.version

    # Two commits before the sender runs: it reads both, then its first send blocks...
    await chat(1)
    latest = await chat(2)
    ws.gate.clear()
    ws.sending.clear()
    conn.notify(latest)
    await asyncio.wait_for(ws.sending.wait(), 5)
    # ...while the room moves on far enough for the second one to lose its kept state.
    for k in range(3, STATES_KEPT + 4):
        latest = await chat(k)
    conn.notify(latest)
    ws.gate.set()
    await settled(conn, latest)
    await asyncio.sleep(0.05)
    await conn.stop()

    kinds = [f["type"] for f in ws.sent]
    assert kinds.count("welcome") == 1, kinds  # no fresh welcome mid-stream
    versions = [e["version"] for f in ws.sent if f["type"] == "events" for e in f["events"]]
    assert versions == list(range(start + 1, latest + 1)), versions
    texts = [e["text"] for f in ws.sent if f["type"] == "events" for e in f["events"]]
    assert len(texts) == latest - start


async def test_a_store_that_does_not_answer_for_a_while_does_not_close_the_socket(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shared store timing out (Redis overloaded) makes the sender wait and read again: the
    client keeps its socket and gets every commit once, in order (before: closed with 1011)."""
    service, room, who, ws, conn = await _welcomed_socket()
    start = conn.version

    failures = [3]
    read = service.commits_since

    async def flaky(room: str, version: int) -> Any:
        if failures[0] > 0:
            failures[0] -= 1
            raise StoreUnavailable("TimeoutError: the store did not answer")
        return await read(room, version)

    monkeypatch.setattr(service, "commits_since", flaky)
    latest = start
    for k in range(3):
        outcome = await service.submit(room, who, Command("chat", f"c{k}", None, act.Chat("hi")))
        assert outcome.version is not None
        latest = outcome.version
        conn.notify(latest)
    await settled(conn, latest)
    await asyncio.sleep(0.05)
    assert not conn.closed and failures == [0]
    await conn.stop()
    versions = [e["version"] for f in ws.sent if f["type"] == "events" for e in f["events"]]
    assert versions == list(range(start + 1, latest + 1)), versions
