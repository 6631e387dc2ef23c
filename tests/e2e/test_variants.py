"""Every variant and the hand-moving house rules, played over sockets by two scripted
humans, two bots and a spectator, with every frame audited for leaks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from e2e.harness import Harness, consecutive, play_scripted

BASE = {"turn_seconds": 0, "bot_delay_ms": 0, "next_round_seconds": 0}


@pytest.mark.parametrize(
    "settings",
    [
        {"variant": "classic", "seven_zero": True, "jump_in": True, "stack_draw2": True},
        {
            "variant": "classic",
            "custom_wilds": [{"effect": "swap_hands"}, {"effect": "rotate_hands"}],
        },
        {"variant": "all_wild"},
        {"variant": "flip"},
    ],
    ids=["seven_zero-jump_in-stacking", "custom-wilds", "all_wild", "flip"],
)
async def test_a_round_with_humans_bots_and_a_spectator(
    server: Harness, settings: dict[str, Any]
) -> None:
    host = await server.create_room("Ayşe", {**BASE, **settings})
    room = host["room"]
    guest = await server.join(room, "Mikko")
    a = await server.connect(room, host["token"])
    b = await server.connect(room, guest["token"])
    for _ in range(2):
        assert (await a.act("add_bot"))["type"] == "ack"
    spectator = await server.connect(room, await server.spectate(room))
    assert (await a.act("start"))["type"] == "ack"
    await asyncio.wait_for(
        asyncio.gather(play_scripted(a), play_scripted(b), spectator.event("round_ended", 30)),
        timeout=40,
    )
    for client in (a, b, spectator):
        assert consecutive(client.versions)
    reveal = spectator.seen("round_ended")[-1]
    assert spectator.frames[-1] is reveal.frame
    assert len(reveal["hands"]) == 4
    if settings["variant"] == "flip":
        playing = [
            f["view"] for f in spectator.frames if f.get("view", {}).get("status") == "playing"
        ]
        assert playing and all(any(s["backs"] for s in v["seats"]) for v in playing)


async def test_a_full_table_of_ten(server: Harness) -> None:
    host = await server.create_room("Ayşe", {**BASE, "jump_in": True})
    room = host["room"]
    a = await server.connect(room, host["token"])
    for _ in range(9):
        assert (await a.act("add_bot"))["type"] == "ack"
    full = await server.http.post(f"/api/rooms/{room}/players", json={"name": "Late"})
    assert full.status_code == 409 and full.json()["error"]["code"] == "room_full"
    spectator = await server.connect(room, await server.spectate(room))
    assert (await a.act("start"))["type"] == "ack"
    await asyncio.wait_for(
        asyncio.gather(play_scripted(a), spectator.event("round_ended", 30)), timeout=40
    )
    reveal = spectator.seen("round_ended")[-1]
    assert spectator.frames[-1] is reveal.frame
    assert len(reveal["hands"]) == 10 and len(reveal["points"]) == 10
    assert consecutive(spectator.versions) and consecutive(a.versions)
