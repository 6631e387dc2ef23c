"""A room survives a server restart: a new server on the same database restores it from its
latest round end and its recorded members, the players get back in with their old tokens, and
the match goes on from the stored scores. Real servers (uvicorn, sockets), SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import websockets
from e2e.harness import (
    Client,
    Harness,
    Seen,
    play_scripted,
    running_server,
    server_settings,
)

from app.settings import AppSettings
from app.store.sql.models import RoomMember, Round

from .conftest import Database
from .helpers import count_rows, wait_until_delivered

# A target no single round reaches, no timers: the round break waits for the host's `start`.
SETTINGS = {
    "target_score": 10000,
    "bot_delay_ms": 0,
    "turn_seconds": 0,
    "next_round_seconds": 0,
    "dealer": 0,
}


def scores(view: dict[str, Any]) -> list[int]:
    return [seat["score"] for seat in view["seats"]]


async def play_round(*players: Client) -> list[Seen]:
    """Every human plays until the round ends; the `round_ended` event each of them saw."""
    await asyncio.gather(*(play_scripted(p) for p in players))
    return [p.seen("round_ended")[-1] for p in players]


def _server(database: Database, monkeypatch: pytest.MonkeyPatch) -> AppSettings:
    # The server builds its recorder from DATABASE_URL; give it this test's database.
    monkeypatch.setattr("app.store.matches.create_recorder", lambda url: database.recorder(url))
    return server_settings(database_url=database.url)


def _know(server: Harness, seats: dict[str, int]) -> None:
    """Tell a new server's harness (auditor) the tokens handed out by the previous one."""
    server.seats.update(seats)
    server.auditor.tokens.update(seats)


async def _refused(server: Harness, room: str, token: str) -> dict[str, Any]:
    client = await server.open(room)
    await client.send({"type": "hello", "token": token, "since": None})
    frame = await client.recv()
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await client.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    return frame


async def test_a_match_goes_on_after_a_restart(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _server(database, monkeypatch)
    async with running_server(config) as server:
        ann = await server.create_room("Ann", SETTINGS)
        room = ann["room"]
        bob = await server.join(room, "Bob")
        eve = await server.spectate(room)
        ann_c = await server.connect(room, ann["token"])
        bob_c = await server.connect(room, bob["token"])
        assert (await ann_c.act("add_bot"))["type"] == "ack"
        assert (await ann_c.act("start"))["type"] == "ack"
        first = (await play_round(ann_c, bob_c))[0]
        before = ann_c.view
        assert before is not None and before["status"] == "round_over"
        match_id = before["match_id"]
        assert first["round"] == 1 and scores(before) == first["scores"]
        stale_version = ann_c.version
    tokens = {ann["token"]: ann["seat"], bob["token"]: bob["seat"]}

    async with running_server(config) as server:
        _know(server, tokens)
        summary = await server.summary(room)  # restores the room (first request for it)
        assert (summary["status"], summary["round"], summary["scores"]) == (
            "round_over",
            1,
            first["scores"],
        )
        assert all(not seat["connected"] for seat in summary["seats"] if not seat["bot"])
        ann_c = await server.connect(room, ann["token"], since=stale_version)
        bob_c = await server.connect(room, bob["token"])
        watcher = await server.connect(room, eve)
        for client, seat in ((ann_c, ann["seat"]), (bob_c, bob["seat"])):
            view = client.view
            assert view is not None and client.seat == seat
            assert (view["status"], view["round"], view["match_id"]) == ("round_over", 1, match_id)
            assert scores(view) == scores(before)
            assert view["host"] == before["host"]
        assert watcher.role == "spectator"
        # A stranger's token and a room that never was are still refused.
        assert (await _refused(server, room, "not-a-token"))["code"] == "unauthorized"
        assert (await server.http.get("/api/rooms/no-such-room")).status_code == 404

        assert (await ann_c.act("start"))["type"] == "ack"
        second = (await play_round(ann_c, bob_c))[0]
        assert second["round"] == 2 and second["match_id"] == match_id
        assert second["scores"] == [
            a + b for a, b in zip(first["scores"], second["points"], strict=True)
        ]
        await watcher.event("round_ended")
        stored = (await server.http.get(f"/api/matches/{match_id}")).json()

    assert [r["number"] for r in stored["rounds"]] == [1, 2]
    assert [r["points"] for r in stored["rounds"]] == [first["points"], second["points"]]
    assert stored["scores"] == second["scores"]
    assert stored["status"] == "running"
    # On the same outbox: a round whose delivery the stop's grace did not finish (a slow
    # machine) waits there and is delivered now, never lost and never stored twice.
    counter = database.recorder(migrate=False)
    await counter.start()
    await wait_until_delivered(counter)
    assert await count_rows(counter, Round, match_id) == 2


async def test_a_round_in_progress_comes_back_after_a_restart(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop on purpose (a deploy) checkpoints every room it holds: a room in its first round,
    which has no round end to come back from, is back mid-round with the same hand."""
    config = _server(database, monkeypatch)
    async with running_server(config) as server:
        ann = await server.create_room("Ann", SETTINGS)
        room = ann["room"]
        ann_c = await server.connect(room, ann["token"])
        assert (await ann_c.act("add_bot"))["type"] == "ack"
        assert (await ann_c.act("start"))["type"] == "ack"
        await ann_c.quiet(0.5)  # the bot's move, if the deal gave it the first turn
        assert ann_c.view is not None
        hand = sorted(card["id"] for card in ann_c.view["you"]["hand"])
        version = ann_c.view["version"]

    async with running_server(config) as server:
        _know(server, {ann["token"]: ann["seat"]})
        back = await server.connect(room, ann["token"])
        view = back.view
        assert view is not None
        assert (view["status"], view["round"]) == ("playing", 1)
        assert sorted(card["id"] for card in view["you"]["hand"]) == hand
        assert view["version"] > version  # versions never go back


async def test_without_checkpoints_a_room_that_never_finished_a_round_is_gone(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _server(database, monkeypatch).model_copy(update={"embedded_checkpoint_seconds": 0.0})
    async with running_server(config) as server:
        ann = await server.create_room("Ann", SETTINGS)
        room = ann["room"]
        ann_c = await server.connect(room, ann["token"])
        assert (await ann_c.act("add_bot"))["type"] == "ack"
        assert (await ann_c.act("start"))["type"] == "ack"  # mid-round: memory only

    async with running_server(config) as server:
        _know(server, {ann["token"]: ann["seat"]})
        assert (await server.http.get(f"/api/rooms/{room}")).status_code == 404
        assert (
            await server.http.post(f"/api/rooms/{room}/players", json={"name": "B"})
        ).status_code == 404
        assert (await _refused(server, room, ann["token"]))["code"] == "unauthorized"


async def test_members_are_recorded_once_with_hashed_tokens(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _server(database, monkeypatch)
    async with running_server(config) as server:
        ann = await server.create_room("Ann", SETTINGS)
        room = ann["room"]
        bob = await server.join(room, "Bob")
        eve = await server.spectate(room)
    recorder = database.recorder(migrate=False)
    await recorder.start()
    members = {m.member_id: m for m in await recorder.room_members(room)}
    assert {m.role for m in members.values()} == {"player", "spectator"}
    assert members[ann["player_id"]].name == "Ann" and members[bob["player_id"]].role == "player"
    hashes = {m.token_hash for m in members.values()}
    assert len(hashes) == 3 and not hashes & {ann["token"], bob["token"], eve}
    assert await count_rows(recorder, RoomMember, room, column="room") == 3
