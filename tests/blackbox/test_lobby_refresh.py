"""A player whose socket closed in the lobby keeps the seat through the deal (PROTOCOL loses
a seat only by `leave`): the host may start meanwhile, and the player's `hello` with `since`
then gets the deal's events (its own hand in `round_started`) and the `welcome`, not 4401.
Before, `start` freed every departed lobby seat, and with two players one refreshing the
host could not start at all."""

from __future__ import annotations

import pytest
from e2e.harness import Harness

from blackbox.test_contract import QUIET

pytestmark = pytest.mark.timeout(60)


async def test_a_player_away_from_the_lobby_during_the_deal_resumes_with_a_hand(
    server: Harness,
) -> None:
    created = await server.create_room("Ann", QUIET)
    room = created["room"]
    joined = await server.join(room, "Bob")
    ann = await server.connect(room, created["token"])
    bob = await server.connect(room, joined["token"])
    seen = bob.version
    await bob.close()
    await ann.until(
        lambda f: f["type"] == "events" and any(e["kind"] == "disconnected" for e in f["events"])
    )
    assert ann.view["you"]["moves"]["start"] is True
    reply = await ann.act("start")
    assert reply["type"] == "ack", reply

    back = await server.connect(room, joined["token"], since=seen)
    replayed = [e for f in back.frames if f["type"] == "events" for e in f["events"]]
    kinds = [e["kind"] for e in replayed]
    assert "round_started" in kinds and "player_left" not in kinds
    dealt = next(e for e in replayed if e["kind"] == "round_started")
    assert len(dealt["hand"]) == 7
    welcome = back.frames[-1]
    assert welcome["type"] == "welcome" and welcome["view"]["status"] == "playing"
    assert welcome["you"]["seat"] == 1 and len(welcome["view"]["you"]["hand"]) >= 7
    assert welcome["view"]["seats"][1]["afk"] is False  # back within a refresh: no bot
    await ann.close()
    await back.close()
