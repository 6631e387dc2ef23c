"""Rules through the real server, as a client sees them (QA play-through): each test is a
case where the wire once differed from RULES.md."""

from __future__ import annotations

from e2e.harness import Harness
from e2e.qa_rig import rig


async def test_a_refused_command_of_an_away_player_still_hands_the_seat_back(
    server: Harness,
) -> None:
    """RULES 29: a bot plays the seat "until the player sends any command": a command the
    rules refuse (here a draw out of turn) is still the player's, back at the table."""
    (a, b), _, _ = await rig(
        server,
        [["blue 1"], ["blue 2", "green 2"]],
        "red 5",
        {"turn_seconds": 5, "afk_timeouts": 1},
    )
    dealt = a.version  # seat 0's turn then: a draw decided on it is legal there
    took = await b.event("bot_took_over", timeout=7)
    assert took["seat"] == 0
    assert b.view is not None and b.view["state"]["turn"] == 1
    await a.catch_up(b.version)
    # seat 1's turn now: refused, and as `at` is older and was legal then, `stale`
    refused = await a.act("draw", id="away-draw", at=dealt)
    assert refused["type"] == "error" and refused["code"] == "stale"
    returned = await b.event("player_returned", timeout=2)
    assert returned["seat"] == 0 and returned.view["seats"][0]["afk"] is False
    # The refused command changed nothing else: still seat 1's turn, hands as they were.
    assert returned.view["state"]["turn"] == 1
    # Resent with the same id: the same refusal (not a false catch's), nothing new.
    again = await a.act("draw", id="away-draw", at=dealt)
    assert again["type"] == "error" and again["code"] == "stale"
    # Decided on the current version: the plain refusal.
    await a.catch_up(returned["version"])
    plain = await a.act("draw", at=a.version)
    assert plain["type"] == "error" and plain["code"] == "not_your_turn"
    assert await b.quiet(0.3) == []
