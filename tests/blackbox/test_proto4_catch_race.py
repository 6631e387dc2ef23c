"""PROTOCOL section 3: "A command whose `at` is older than the room's version, and which the
newer state makes illegal, is refused with `stale`." A catch is such a command: decided on a
view where the target held one undeclared card (its `you.moves.catch` listed the target), it
loses the race to another catch or to the target's own declaration. It was answered
`not_catchable` and charged the catcher `false_catch_penalty`, as if the catcher had called
out a player who had visibly declared; it is `stale` and, being refused, changes nothing. A
catch that was already false on the view it was decided on keeps its refusal and its cost
(RULES 13)."""

from __future__ import annotations

import pytest
from e2e.harness import Client, Harness

from blackbox.test_contract import hooked_table

pytestmark = pytest.mark.timeout(60)

RED = [f"red {n}" for n in range(1, 8)]
BLUE = [f"blue {n}" for n in range(1, 8)]
GREEN = [f"green {n}" for n in range(1, 8)]


async def _down_to_one_card(players: list[Client], ids: list[int]) -> None:
    """Seat 0 plays six of its cards, the others draw (and keep) in between; seat 0 is left
    with one card it has not declared."""
    p0, *others = players
    for k in range(6):
        assert (await p0.act("play", card=ids[k]))["type"] == "ack"
        if k == 5:
            break
        for other in others:
            await other.catch_up(p0.version)
            assert (await other.act("draw"))["type"] == "ack"
            if other.view and other.view["you"]["moves"]["pass"]:
                assert (await other.act("pass"))["type"] == "ack"
            for player in players:
                await player.catch_up(other.version)
    for player in players:
        await player.catch_up(p0.version)
    assert p0.view is not None and len(p0.view["you"]["hand"]) == 1


async def test_a_catch_that_lost_the_race_to_another_catch_is_stale_and_free(
    server: Harness,
) -> None:
    _room, players, ids, _ = await hooked_table(
        server, [RED, BLUE, GREEN], "red 9", 2, uno_window_ms=30000, false_catch_penalty=2
    )
    await _down_to_one_card(players, ids[0])
    _p0, p1, p2 = players
    for catcher in (p1, p2):
        assert catcher.view is not None and catcher.view["you"]["moves"]["catch"] == [0]
    decided_at = p2.version
    hand = len(p2.view["you"]["hand"]) if p2.view else 0

    assert (await p1.act("catch", seat=0, at=p1.version))["type"] == "ack"
    await p2.catch_up(p1.version)
    before = await server.version(_room)
    reply = await p2.act("catch", seat=0, at=decided_at)
    assert reply["type"] == "error" and reply["code"] == "stale", reply
    assert await server.version(_room) == before  # refused: nothing committed
    assert p2.seen("false_catch") == []
    assert p2.view is not None and len(p2.view["you"]["hand"]) == hand


async def test_a_catch_that_lost_the_race_to_the_declaration_is_stale_and_free(
    server: Harness,
) -> None:
    _room, players, ids, _ = await hooked_table(
        server, [RED, BLUE], "red 9", 1, uno_window_ms=30000, false_catch_penalty=2
    )
    await _down_to_one_card(players, ids[0])
    p0, p1 = players
    assert p1.view is not None and p1.view["you"]["moves"]["catch"] == [0]
    decided_at = p1.version
    hand = len(p1.view["you"]["hand"])

    assert (await p0.act("uno"))["type"] == "ack"
    await p1.catch_up(p0.version)
    before = await server.version(_room)
    reply = await p1.act("catch", seat=0, at=decided_at)
    assert reply["type"] == "error" and reply["code"] == "stale", reply
    assert await server.version(_room) == before
    assert p1.seen("false_catch") == []
    assert p1.view is not None and len(p1.view["you"]["hand"]) == hand

    # Decided on the view that shows the declaration, the catch is a false one (RULES 13).
    reply = await p1.act("catch", seat=0, at=p1.version)
    assert reply["type"] == "error" and reply["code"] == "not_catchable", reply
    assert [e["penalty"] for e in p1.seen("false_catch")] == [2]
    assert p1.view is not None and len(p1.view["you"]["hand"]) == hand + 2
