"""Every refused command gets its error code, answers its id and changes nothing."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from e2e.harness import Client, Harness, deal_order, running_server, server_settings

SEAT0 = ["red 3", "blue 7", "wild", "green 2", "red skip"]
SEAT1 = ["green 4", "blue 1"]


async def _table(server: Harness) -> tuple[str, Client, Client, dict[str, Any]]:
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    room = host["room"]
    guest = await server.join(room, "Mikko")
    order, hands, top = deal_order(await server.deck(room), [SEAT0, SEAT1], "red 5", dealer=1)
    a = await server.connect(room, host["token"])
    b = await server.connect(room, guest["token"])
    ack = await a.act("settings", settings={"dealer": 1, "deck_order": order})
    assert ack["type"] == "ack"
    assert (await a.act("start"))["type"] == "ack"
    await b.event("round_started")
    names = {"hands": hands, "top": top}
    return room, a, b, names


async def _refused(
    server: Harness, room: str, client: Client, code: str, type_: str, **fields: Any
) -> None:
    before = await server.version(room)
    reply = await client.act(type_, **fields)
    assert reply["type"] == "error", reply
    assert reply["code"] == code, reply
    assert await server.version(room) == before


async def test_game_errors_change_nothing(server: Harness) -> None:
    room, a, b, deal = await _table(server)
    red3, blue7, wild, green2, _skip = deal["hands"][0][:5]
    assert a.view is not None and a.view["state"]["turn"] == 0
    await _refused(server, room, b, "not_your_turn", "play", card=deal["hands"][1][0])
    await _refused(server, room, b, "not_your_turn", "draw")
    await _refused(server, room, a, "illegal_card", "play", card=blue7)
    await _refused(server, room, a, "illegal_card", "play", card=deal["hands"][1][0])
    await _refused(server, room, a, "need_color", "play", card=wild)
    await _refused(server, room, a, "need_color", "play", card=wild, color="pink")
    await _refused(server, room, a, "wrong_phase", "pass")
    await _refused(server, room, a, "wrong_phase", "challenge")
    await _refused(server, room, b, "not_host", "start")
    # A play decided on an older view that the newer state makes illegal is stale.
    played = await a.act("play", card=red3, at=a.version)
    assert played["type"] == "ack"
    await _refused(server, room, a, "stale", "play", card=green2, at=played["version"] - 1)
    await _refused(server, room, a, "not_your_turn", "play", card=green2)


async def test_lobby_errors_change_nothing(server: Harness) -> None:
    host = await server.create_room("Ayşe")
    room = host["room"]
    guest = await server.join(room, "Mikko")
    a = await server.connect(room, host["token"])
    b = await server.connect(room, guest["token"])
    await _refused(server, room, b, "not_host", "settings", settings={"uno_penalty": 4})
    await _refused(server, room, b, "not_host", "add_bot")
    await _refused(server, room, b, "not_host", "start")
    await _refused(server, room, a, "bad_settings", "settings", settings={"uno_penalty": "2"})
    await _refused(server, room, a, "bad_settings", "settings", settings={"bluffing": 0})
    await _refused(server, room, a, "bad_settings", "settings", settings={"colour": "red"})
    await _refused(server, room, a, "wrong_phase", "play", card=1)
    await _refused(server, room, a, "wrong_phase", "draw")
    watcher = await server.connect(room, await server.spectate(room))
    await a.event("spectator_joined")  # (a spectator's socket is an event: counted in views)
    await _refused(server, room, watcher, "unauthorized", "add_bot")
    await _refused(server, room, watcher, "unauthorized", "start")
    pong = await watcher.until(lambda f: f["type"] == "pong") if await _ping(watcher) else None
    assert pong is not None and isinstance(pong["server_time"], int)


async def _ping(client: Client) -> bool:
    await client.send({"type": "ping"})
    return True


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("not json", "bad_frame"),
        ("[1, 2]", "bad_frame"),
        ('{"id": "x1"}', "bad_frame"),
        ('{"type": 7, "id": "x1"}', "bad_frame"),
        ('{"type": "play", "card": 3}', "bad_frame"),
        ('{"type": "play", "id": 5, "card": 3}', "bad_frame"),
        ('{"type": "play", "id": "x1"}', "bad_frame"),
        ('{"type": "play", "id": "x1", "card": "3"}', "bad_frame"),
        ('{"type": "play", "id": "x1", "card": true}', "bad_frame"),
        ('{"type": "play", "id": "x1", "card": 3, "uno": "yes"}', "bad_frame"),
        ('{"type": "catch", "id": "x1", "seat": null}', "bad_frame"),
        ('{"type": "draw", "id": "x1", "at": "5"}', "bad_frame"),
        ('{"type": "chat", "id": "x1", "text": "' + "a" * 301 + '"}', "bad_frame"),
        ('{"type": "settings", "id": "x1", "settings": [1]}', "bad_frame"),
        ('{"type": "dance", "id": "x1"}', "unknown_type"),
        (json.dumps({"type": "chat", "id": "x1", "text": "é" * 9000}), "too_large"),
        (json.dumps({"type": "ping", "pad": "x" * 17000}), "too_large"),
    ],
)
async def test_malformed_frames_change_nothing(server: Harness, raw: str, code: str) -> None:
    host = await server.create_room("Ayşe")
    room = host["room"]
    client = await server.connect(room, host["token"])
    before = await server.version(room)
    await client.send_raw(raw)
    reply = await client.until(lambda f: f["type"] == "error")
    assert reply["code"] == code
    if code in ("unknown_type",) or ('"x1"' in raw and code in ("bad_frame", "too_large")):
        assert reply.get("id") == "x1"
    assert await server.version(room) == before
    # The connection stays usable.
    assert (await client.act("chat", text="still here"))["type"] == "ack"


async def test_rate_limit_answers_rate_limited() -> None:
    # A server of its own with a small bucket, so that the flood stays far below the outbox
    # bound (a client that does not read is closed, docs/protocol.md "Limits").
    config = server_settings(rate_limit_per_second=2.0, rate_limit_burst=20)
    async with running_server(config) as server:
        host = await server.create_room("Ayşe")
        client = await server.connect(host["room"], host["token"])
        for _ in range(60):
            await client.send({"type": "ping"})
        frames = await client.quiet(0.5)
        limited = [f for f in frames if f["type"] == "error" and f["code"] == "rate_limited"]
        pongs = [f for f in frames if f["type"] == "pong"]
        assert len(limited) == 1  # one answer per streak over the rate, then silence
        assert 20 <= len(pongs) <= 25  # the burst, and what refilled meanwhile
        # Back under the rate, the socket is answered again.
        await asyncio.sleep(1.0)
        await client.send({"type": "ping"})
        assert (await client.until(lambda f: f["type"] == "pong"))["type"] == "pong"
        assert server.auditor.problems == []
