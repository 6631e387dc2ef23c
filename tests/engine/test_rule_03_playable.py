"""Rule 3: a card is playable on a match of color, number or symbol, or when it is a wild."""

from __future__ import annotations

from app.engine.actions import Play

from .helpers import Table

HAND0 = ["red 7", "blue 3", "green skip", "yellow 9", "wild", "blue 8", "yellow 1"]


def test_playable_by_color_number_or_wild_only() -> None:
    t = Table(2, hands={0: HAND0}, first="red 3")
    ids = dict(zip(HAND0, t.hand_ids[0], strict=True))
    assert t.playable(0) == {ids["red 7"], ids["blue 3"], ids["wild"]}
    t.refuse(0, Play(card=ids["yellow 9"]), "illegal_card")
    t.refuse(0, Play(card=ids["green skip"]), "illegal_card")
    t.play(0, "blue 3")
    assert t.top["id"] == ids["blue 3"]
    assert t.st["color"] == "blue"


def test_symbol_matches_symbol() -> None:
    hand = ["red skip", "blue skip", "green 2", "yellow 5", "blue 1", "green 1", "yellow 1"]
    t = Table(2, hands={0: hand}, first="red 5")
    ids = dict(zip(hand, t.hand_ids[0], strict=True))
    t.play(0, "red skip")  # two players: Skip gives the turn back (rule 15)
    assert t.playable(0) == {ids["blue skip"]}
    t.refuse(0, Play(card=ids["yellow 5"]), "illegal_card")
    t.play(0, "blue skip")
    assert t.st["color"] == "blue"


def test_wild_color_is_the_one_named() -> None:
    t = Table(
        2,
        hands={0: ["wild", "red 4"], 1: ["green 9", "red 8", "blue 3"]},
        first="red 3",
        avoid=["color=red", "color=green", "kind=wild", "kind=number value=3"],
    )
    t.play(0, "wild", color="green")
    assert t.st["color"] == "green"
    ids1 = dict(zip(["green 9", "red 8", "blue 3"], t.hand_ids[1][:3], strict=True))
    assert ids1["green 9"] in t.playable(1)
    assert ids1["red 8"] not in t.playable(1)
    assert ids1["blue 3"] not in t.playable(1)  # a wild has no number to match
    t.refuse(1, Play(card=ids1["red 8"]), "illegal_card")


def test_out_of_turn_play_is_refused() -> None:
    t = Table(2, hands={1: ["red 9"]}, first="red 3")
    t.refuse(1, Play(card=t.hand_ids[1][0]), "not_your_turn")


def test_card_not_in_hand_is_refused() -> None:
    t = Table(2, first="red 3")
    other = t.hand_ids[1][0]
    t.refuse(0, Play(card=other))
