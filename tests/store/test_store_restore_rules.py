"""Restoring rooms, the fine print (real servers, one in-memory recorder standing in for the
database both servers share): restores are single-flight, a round break whose timer ran out
while the server was down deals at once, and a database that cannot answer is a 503 (HTTP) or
a "try again" close (WebSocket), never a 404."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import websockets
from e2e.harness import play_scripted, running_server, server_settings

from app.store.recorder import MemberRecord, MemoryRecorder, RecorderUnavailable

SETTINGS = {
    "target_score": 10000,
    "bot_delay_ms": 0,
    "turn_seconds": 0,
    "dealer": 0,
}


class CountingRecorder(MemoryRecorder):
    """Counts snapshot reads and makes each one slow, so that racing requests overlap."""

    def __init__(self) -> None:
        super().__init__()
        self.snapshot_reads = 0
        self.down = False

    async def latest_snapshot(self, room: str) -> dict[str, Any] | None:
        self.snapshot_reads += 1
        await asyncio.sleep(0.05)
        if self.down:
            raise RecorderUnavailable("down")
        return await super().latest_snapshot(room)

    async def room_members(self, room: str) -> list[MemberRecord]:
        if self.down:
            raise RecorderUnavailable("down")
        return await super().room_members(room)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> CountingRecorder:
    shared = CountingRecorder()
    monkeypatch.setattr("app.store.matches.create_recorder", lambda url: shared)
    return shared


async def _first_round(recorder: CountingRecorder, next_round_seconds: int) -> dict[str, Any]:
    """A room (Ann and a bot) that played its first round; its creation answer."""
    config = server_settings(database_url="memory://")
    async with running_server(config) as server:
        ann = await server.create_room(
            "Ann", {**SETTINGS, "next_round_seconds": next_round_seconds}
        )
        ann_c = await server.connect(ann["room"], ann["token"])
        assert (await ann_c.act("add_bot"))["type"] == "ack"
        assert (await ann_c.act("start"))["type"] == "ack"
        await play_scripted(ann_c)
    assert await recorder.latest_snapshot(ann["room"]) is not None
    return ann


async def test_racing_requests_restore_a_room_once(recorder: CountingRecorder) -> None:
    ann = await _first_round(recorder, next_round_seconds=0)
    room = ann["room"]
    recorder.snapshot_reads = 0
    config = server_settings(database_url="memory://")
    async with running_server(config) as server:
        server.seats[ann["token"]] = ann["seat"]
        server.auditor.tokens.add(ann["token"])
        created = 0
        create = server.service.store.create

        async def counted(*args: Any) -> bool:
            nonlocal created
            created += 1
            return await create(*args)

        server.service.store.create = counted  # type: ignore[method-assign]
        who = server.service.identify
        answers = await asyncio.gather(
            *(who(room, ann["token"]) for _ in range(4)),
            *(server.http.get(f"/api/rooms/{room}") for _ in range(4)),
            server.connect(room, ann["token"]),
        )
        assert created == 1 and recorder.snapshot_reads == 1
        identities = answers[:4]
        assert all(i is not None and i.seat == ann["seat"] for i in identities)
        assert all(r.status_code == 200 for r in answers[4:8])  # type: ignore[union-attr]
        # held now: later requests do not read the database again
        await server.summary(room)
        assert recorder.snapshot_reads == 1


async def test_a_round_break_that_ran_out_during_the_restart_deals_at_once(
    recorder: CountingRecorder,
) -> None:
    ann = await _first_round(recorder, next_round_seconds=1)
    await asyncio.sleep(1.2)  # the next_round deadline passes while no server runs
    config = server_settings(database_url="memory://")
    async with running_server(config) as server:
        server.seats[ann["token"]] = ann["seat"]
        server.auditor.tokens.add(ann["token"])
        loop = asyncio.get_running_loop()
        began = loop.time()
        ann_c = await server.connect(ann["room"], ann["token"])
        if ann_c.view is not None and ann_c.view["status"] != "playing":
            await ann_c.event("round_started")
        # at once, not a fresh next_round_seconds after the restore
        assert loop.time() - began < 0.8
        assert ann_c.view is not None
        assert (ann_c.view["status"], ann_c.view["round"]) == ("playing", 2)


async def test_a_code_too_long_to_be_a_room_is_not_looked_up(recorder: CountingRecorder) -> None:
    async with running_server(server_settings(database_url="memory://")) as server:
        client = await server.open("x" * 1000)
        await client.send({"type": "hello", "token": "whatever", "since": None})
        assert (await client.recv())["code"] == "unauthorized"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await client.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    assert recorder.snapshot_reads == 0


async def test_a_database_that_cannot_answer_is_not_a_404(recorder: CountingRecorder) -> None:
    recorder.down = True
    config = server_settings(database_url="memory://")
    async with running_server(config) as server:
        response = await server.http.get("/api/rooms/somewhere")
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "unavailable"
        client = await server.open("somewhere")
        await client.send({"type": "hello", "token": "whatever", "since": None})
        assert (await client.recv())["code"] == "unavailable"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await client.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
