"""Rule 26: a Flip as the last card ends the round unflipped; score the side in play."""

from __future__ import annotations

from .helpers import CHAIN, CHAIN_FIRST, Table, dark_table, face, run_chain

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
    # Each hand's worth is counted on the side in play too (here the light side).
    assert ended.public["hand_points"] == [0, 165 + 9]
    assert t.st["side"] == "light"


DARK_POINTS = {
    "draw5": 20,
    "reverse": 20,
    "flip": 20,
    "skip_everyone": 30,
    "wild": 40,
    "wild_draw_color": 60,
}


def test_round_ending_on_the_dark_side_scores_dark_faces() -> None:
    chain = ["pink skip_everyone", "pink skip_everyone", "pink reverse", "pink reverse"]
    chain += ["teal reverse", "teal skip_everyone"]
    t = dark_table(2, [f"dark:{c}" for c in chain] + ["dark:teal 5"])
    loser = t.hand_ids_now(0)
    for spec in chain[:-1]:
        t.play(1, spec)
        assert t.turn == 1  # two players: Reverse and Skip Everyone replay
    t.play(1, chain[-1], uno=True)
    events = t.play(1, "teal 5")
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 1
    expected = 0
    for cid in loser:
        f = face(t.listing, cid, "dark")
        expected += f["value"] if f["kind"] == "number" else DARK_POINTS[f["kind"]]
    assert ended.public["points"] == [0, expected]
    # Each hand's worth on the dark side, the side in play, as its points are.
    assert ended.public["hand_points"] == [expected, 0]
