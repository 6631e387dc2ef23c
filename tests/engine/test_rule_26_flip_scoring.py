"""Rule 26: a Flip as the last card ends the round unflipped; score the side in play."""

from __future__ import annotations

from .helpers import CHAIN, CHAIN_FIRST, Table, run_chain

# 10 + 40 + 50 + 20 + 20 + 20 + 5 = 165, plus the blue 9 seat 1 draws on the way
OTHER = ["red draw1", "wild", "wild_draw2", "blue skip", "green reverse", "yellow flip", "red 5"]


def test_flip_as_last_card_ends_without_flipping_and_scores_light_faces() -> None:
    t = Table(
        2,
        variant="flip",
        hands={0: [*CHAIN, "green 4", "green flip"], 1: OTHER},
        first=CHAIN_FIRST,
        pile=["blue 9"],
    )
    run_chain(t)
    t.play(0, "green 4", uno=True)
    t.draw(1)
    assert t.turn == 0
    events = t.play(0, "green flip")
    assert "side_flipped" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 0
    assert ended.public["points"] == [165 + 9, 0]
    assert t.st["side"] == "light"
