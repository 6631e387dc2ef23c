"""Rule 19: All Wild scoring: Wild 20, every other card 50."""

from __future__ import annotations

from .helpers import Table

AW = "all_wild"
CHAIN = ["wild_skip", "wild_skip", "wild_skip", "wild_reverse", "wild_reverse"]
OTHER = [
    "wild",
    "wild",
    "wild_skip2",
    "wild_draw4",
    "wild_targeted_draw2",
    "wild_forced_swap",
    "wild_draw2",
]


def test_wild_twenty_others_fifty() -> None:
    t = Table(2, hands={0: [*CHAIN, "wild_skip", "wild_skip"], 1: OTHER}, first="wild", variant=AW)
    if t.phase == "choose":
        t.choose(0, t.moves(0)["choose"][0])
    for spec in CHAIN:
        t.play(0, spec)
    t.play(0, "wild_skip", uno=True)
    assert t.turn == 0  # two players: a Wild Skip plays again
    t.play(0, "wild_skip")
    ended = t.find("round_ended")
    assert ended.public["points"] == [20 + 20 + 50 * 5, 0]
    assert ended.public["hand_points"] == [0, 20 + 20 + 50 * 5]
    assert t.settings.target_score == 500
