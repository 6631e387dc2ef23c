"""Rule 21: Flip light cards: Draw One, Skip, Reverse, Wild, Wild Draw Two (and its challenge)."""

from __future__ import annotations

from app.engine.actions import Play

from .helpers import Table

LEGAL = ["wild_draw2", "blue 3", "wild", "green 1", "green 2", "yellow 5", "yellow 6"]
BLUFF = ["wild_draw2", "red 7", "green 1", "green 2", "yellow 5", "yellow 6", "blue 1"]
ACTIONS = ["red draw1", "red skip", "red reverse", "blue 1", "green 2", "yellow 5", "blue 6"]


def table(hand: list[str], **settings: object) -> Table:
    return Table(4, variant="flip", hands={0: hand}, first="red 3", **settings)


def test_draw_one() -> None:
    t = table(ACTIONS)
    t.play(0, "red draw1")
    assert t.counts() == [6, 8, 7, 7]
    assert t.turn == 2


def test_skip_and_reverse_as_classic() -> None:
    t = table(ACTIONS)
    t.play(0, "red skip")
    assert t.turn == 2
    t = table(ACTIONS)
    t.play(0, "red reverse")
    assert t.turn == 3 and t.st["direction"] == -1


def test_wild_names_a_light_color() -> None:
    t = table(LEGAL)
    wild = t.hand_ids[0][2]
    entry = next(p for p in t.moves(0)["play"] if p["card"] == wild)
    assert set(entry["colors"]) == {"red", "yellow", "green", "blue"}
    t.refuse(0, Play(card=wild, color="pink"))
    t.play(0, wild, color="yellow")
    assert t.st["color"] == "yellow"


def test_wild_draw_two_accepted() -> None:
    t = table(LEGAL)
    t.play(0, "wild_draw2", color="green")
    assert t.phase == "challenge" and t.turn == 1
    t.accept(1)
    assert t.counts() == [6, 9, 7, 7]
    assert t.turn == 2


def test_wild_draw_two_guilty_offender_draws_two() -> None:
    t = table(BLUFF)
    t.play(0, "wild_draw2", color="green")
    t.challenge(1)
    assert t.counts() == [8, 7, 7, 7]
    assert t.turn == 1 and t.phase == "play"


def test_wild_draw_two_innocent_challenger_draws_four() -> None:
    t = table(LEGAL)
    t.play(0, "wild_draw2", color="green")
    t.challenge(1)
    assert t.counts() == [6, 11, 7, 7]
    assert t.turn == 2


def test_wild_draw_two_bluff_refused_without_bluffing() -> None:
    t = table(BLUFF, bluffing=False)
    t.refuse(0, Play(card=t.hand_ids[0][0], color="green"), "illegal_card")
