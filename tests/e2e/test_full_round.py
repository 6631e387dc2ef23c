"""A 4-seat room plays a whole round over real sockets, watched by a spectator."""

from __future__ import annotations

import asyncio
import logging

import pytest

from e2e.harness import Harness, consecutive, play_scripted

UNTIMED = {"turn_seconds": 0, "dealer": 3, "bot_delay_ms": 0, "next_round_seconds": 0}


async def test_four_players_and_a_spectator_play_a_round(
    server: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    host = await server.create_room("Ayşe", UNTIMED)
    room = host["room"]
    joined = [await server.join(room, name) for name in ("Mikko", "Ana", "Kofi")]
    assert [j["seat"] for j in joined] == [1, 2, 3]
    watcher_token = await server.spectate(room)

    players = [await server.connect(room, host["token"])]
    players += [await server.connect(room, j["token"]) for j in joined]
    spectator = await server.connect(room, watcher_token)
    assert [p.seat for p in players] == [0, 1, 2, 3]
    assert spectator.seat is None and spectator.role == "spectator"
    assert spectator.view is not None and spectator.view["you"] is None

    started = await players[0].act("start")
    assert started["type"] == "ack"

    async def watch() -> None:
        await spectator.event("round_ended", timeout=30)

    await asyncio.wait_for(
        asyncio.gather(*(play_scripted(p) for p in players), watch()), timeout=40
    )

    clients = (*players, spectator)
    reveals = [c.seen("round_ended")[-1] for c in clients]
    for client, seen in zip(clients, reveals, strict=True):
        assert client.frames[-1] is seen.frame  # the last frame each member read
    reveal = reveals[0]
    assert len(reveal["hands"]) == 4 and len(reveal["points"]) == 4
    assert reveal["hands"][reveal["winner"]] == []
    assert all(seen.view["status"] != "playing" for seen in reveals)
    # Every member saw every version after its welcome, in order, with no gap.
    for client in clients:
        assert consecutive(client.versions), client.versions
        assert consecutive(e["version"] for e in client.events)
    assert {c.version for c in clients} == {reveal.frame["version"]}
    # The completed round is in the match record.
    match_id = reveal.view["match_id"]
    response = await server.http.get(f"/api/matches/{match_id}")
    assert response.status_code == 200
    match = response.json()
    assert [r["number"] for r in match["rounds"]] == [1]
    assert match["rounds"][0]["points"] == reveal["points"]
    assert server.auditor.frames > 100
    # Untimed and waiting for the host: the room has no wake-up planned at all.
    assert server.service.scheduler.due_at(room) is None
    # Nothing secret reached the logs either.
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for token in server.auditor.tokens:
        assert token not in logged
    assert '"hand"' not in logged and "draw_pile" not in logged
