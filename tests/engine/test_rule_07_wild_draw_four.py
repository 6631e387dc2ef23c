"""Rule 7: Wild Draw Four: legality, `bluffing` on (asked to challenge) and off (refused)."""

from __future__ import annotations

from app.engine.actions import Play

from .helpers import Table

# Holds no red: a blue 3 (same number) and a Wild do not count
LEGAL = ["wild_draw4", "blue 3", "wild", "green 1", "green 2", "yellow 5", "yellow 6"]
# Holds a red 7: the Wild Draw Four is a bluff
BLUFF = ["wild_draw4", "red 7", "green 1", "green 2", "yellow 5", "yellow 6", "blue 1"]


def table(hand: list[str], **settings: object) -> Table:
    return Table(3, hands={0: hand}, first="red 3", **settings)


def test_legal_one_asks_the_victim_then_accept_draws_four() -> None:
    t = table(LEGAL)
    assert t.hand_ids[0][0] in t.playable(0)
    assert "challenge_opened" in t.kinds(t.play(0, "wild_draw4", color="blue"))
    assert t.phase == "challenge"
    assert t.turn == 1
    moves = t.moves(1)
    assert moves["challenge"] is True and moves["accept"] is True
    assert moves["play"] == [] and moves["draw"] is True  # draw takes it too, as accept
    assert t.has_deadline("challenge")
    t.accept(1)
    assert t.counts() == [6, 11, 7]
    assert t.turn == 2
    assert t.st["color"] == "blue"
    assert t.phase == "play"


def test_bluff_is_playable_with_bluffing_and_still_asks() -> None:
    t = table(BLUFF)
    assert t.hand_ids[0][0] in t.playable(0)
    t.play(0, "wild_draw4", color="green")
    assert t.phase == "challenge"
    assert t.turn == 1


def test_without_bluffing_an_illegal_one_is_refused() -> None:
    t = table(BLUFF, bluffing=False)
    wd4 = t.hand_ids[0][0]
    assert wd4 not in t.playable(0)
    t.refuse(0, Play(card=wd4, color="green"), "illegal_card")


def test_without_bluffing_a_legal_one_applies_at_once() -> None:
    t = table(LEGAL, bluffing=False)
    t.play(0, "wild_draw4", color="yellow")
    assert t.phase == "play"
    assert t.counts() == [6, 11, 7]
    assert t.turn == 2
    assert not t.moves(1)["challenge"]


STACKER = ["red draw2", "wild_draw4", "green 1", "green 2", "yellow 5", "yellow 6", "blue 1"]


def test_onto_a_stack_without_bluffing_an_illegal_one_is_refused() -> None:
    t = Table(
        3,
        hands={0: STACKER, 1: ["wild_draw4", "red 9"]},
        first="red 3",
        stack_draw4_on_draw2=True,
        bluffing=False,
    )
    t.play(0, "red draw2")
    assert t.phase == "penalty"
    assert t.moves(1)["play"] == []  # seat 1 holds a red card
    t.refuse(1, Play(card=t.hand_ids[1][0], color="blue"), "illegal_card")


def test_onto_a_stack_with_bluffing_it_may_be_challenged() -> None:
    t = Table(
        3,
        hands={0: STACKER, 1: ["wild_draw4", "red 9"]},
        first="red 3",
        stack_draw4_on_draw2=True,
    )
    t.play(0, "red draw2")
    t.play(1, "wild_draw4", color="blue")
    assert t.phase == "challenge" and t.turn == 2
    assert t.st["pending_draw"] == 6
    t.challenge(2)  # guilty: seat 1 held red
    assert t.counts() == [6, 6 + 6, 7]
    assert t.turn == 2
