"""Findings of a black-box audit of the wire contract (PROTOCOL.md), each as the frames a
client sends and what it must get back."""

from __future__ import annotations

import asyncio

import pytest
import websockets
from e2e.harness import Harness

pytestmark = pytest.mark.timeout(60)


async def test_a_host_alone_in_the_lobby_can_leave(server: Harness) -> None:
    """`leave` by the only seat (the host) was refused `internal` (the engine looked up the
    removed host's seat). It frees the seat like any lobby `leave`: the events, the ack,
    close 1000; and whoever joins the empty room next becomes its host."""
    created = await server.create_room("Solo")
    room = created["room"]
    host = await server.connect(room, created["token"])
    before = host.version
    reply = await host.act("leave")
    assert reply["type"] == "ack", reply
    assert host.kinds_after(before) == ["player_left", "host_changed"]
    assert host.seen("host_changed")[-1]["host"] is None
    assert reply["version"] == host.version
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await host.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000

    summary = await server.summary(room)
    assert summary["seats"] == [] and summary["host"] is None
    joined = await server.join(room, "Next")
    newcomer = await server.connect(room, joined["token"])
    assert newcomer.view is not None and newcomer.view["host"] == joined["seat"] == 0


async def test_a_table_everyone_left_deals_no_new_match_under_scoring_none(
    server: Harness,
) -> None:
    """Under `scoring: none` a new match comes by itself after `next_round_seconds`; a table
    whose people all left (their seats are bots') dealt one after another for nobody, for
    ever (about 170 events a second with ten seats, a match record each, and never idle)."""
    created = await server.create_room(
        "Host", {"scoring": "none", "next_round_seconds": 1, "bot_delay_ms": 0}
    )
    room = created["room"]
    host = await server.connect(room, created["token"])
    assert (await host.act("add_bot"))["type"] == "ack"
    assert (await host.act("start"))["type"] == "ack"
    assert (await host.act("leave"))["type"] == "ack"
    deadline = asyncio.get_running_loop().time() + 30
    while (summary := await server.summary(room))["status"] != "match_over":
        assert asyncio.get_running_loop().time() < deadline, summary["status"]
        await asyncio.sleep(0.1)
    await asyncio.sleep(2.5)  # well past next_round_seconds
    later = await server.summary(room)
    assert (later["status"], later["version"]) == ("match_over", summary["version"])


async def test_a_watched_table_of_bots_still_deals_the_next_match_by_itself(
    server: Harness,
) -> None:
    """PROTOCOL: under `scoring: none` the new match comes after `next_round_seconds`; a
    spectator watching a table its people left still sees it come."""
    created = await server.create_room(
        "Host", {"scoring": "none", "next_round_seconds": 1, "bot_delay_ms": 0}
    )
    room = created["room"]
    host = await server.connect(room, created["token"])
    assert (await host.act("add_bot"))["type"] == "ack"
    spectator = await server.connect(room, await server.spectate(room))
    assert (await host.act("start"))["type"] == "ack"
    assert (await host.act("leave"))["type"] == "ack"
    first = await spectator.event("match_ended", timeout=30)
    expired = await spectator.event("timer_expired", timeout=10)
    assert expired["timer"] == "next_round"
    dealt = await spectator.event("round_started", timeout=5)
    assert dealt["match_id"] != first["match_id"]
