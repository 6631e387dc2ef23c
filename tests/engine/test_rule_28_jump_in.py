"""Rule 28: `jump_in`: an identical card may be played out of turn."""

from __future__ import annotations

from app.engine.actions import Catch, Play

from .helpers import Table

HAND2 = ["red 3", "red 4", "wild", "blue 1", "blue 2", "green 1", "green 2"]


def test_identical_card_jumps_in_and_play_continues_from_the_jumper() -> None:
    t = Table(4, hands={2: HAND2}, first="red 3", jump_in=True)
    red3 = t.hand_ids[2][0]
    assert t.turn == 0
    assert red3 in t.playable(2)
    assert t.hand_ids[2][1] not in t.playable(2)  # red 4: same color only
    t.refuse(2, Play(card=t.hand_ids[2][1]), "not_your_turn")
    t.refuse(2, Play(card=t.hand_ids[2][2], color="red"))  # no wilds out of turn
    t.play(2, red3)
    assert t.top["id"] == red3
    assert t.turn == 3  # seats 0 and 1 lose their turns
    assert t.count(2) == 6


def test_without_the_rule_nobody_jumps_in() -> None:
    t = Table(4, hands={2: HAND2}, first="red 3")
    assert t.playable(2) == set()
    t.refuse(2, Play(card=t.hand_ids[2][0]), "not_your_turn")


def test_jump_in_onto_a_pending_penalty_only_when_stacking_allows() -> None:
    hand0 = ["red draw2", "blue 1", "blue 2", "green 1", "green 2", "yellow 1", "yellow 2"]
    hand3 = ["red draw2", "blue 3", "blue 4", "green 3", "green 4", "yellow 3", "yellow 4"]
    t = Table(4, hands={0: hand0, 3: hand3}, first="red 5", jump_in=True, stack_draw2=True)
    t.play(0, "red draw2")
    assert t.phase == "penalty" and t.turn == 1
    assert t.hand_ids[3][0] in t.playable(3)
    t.play(3, "red draw2")
    assert t.st["pending_draw"] == 4
    assert t.turn == 0  # play continues from the jumper: seat 0 faces the total


def test_jump_in_of_a_draw_two_without_stacking_hits_the_next_after_the_jumper() -> None:
    hand0 = ["red draw2", "blue 1", "blue 2", "green 1", "green 2", "yellow 1", "yellow 2"]
    hand3 = ["red draw2", "blue 3", "blue 4", "green 3", "green 4", "yellow 3", "yellow 4"]
    t = Table(4, hands={0: hand0, 3: hand3}, first="red 5", jump_in=True)
    t.play(0, "red draw2")  # applied at once: seat 1 draws 2, seat 2 is in turn
    assert t.counts() == [6, 9, 7, 7] and t.turn == 2
    t.play(3, "red draw2")
    assert t.counts() == [8, 9, 7, 6]
    assert t.turn == 1


def test_jump_in_closes_the_uno_window() -> None:
    hands = {
        0: ["red 1", "red 1", "red 2", "red 2", "red 4", "red 6", "blue 9"],
        1: ["red 5", "red 5", "red 7", "red 7", "red 8", "green 1", "green 2"],
        2: ["red 8", "red 9", "red 9", "red 0", "red 3", "red 6", "green 3"],
    }
    t = Table(3, hands=hands, first="red 3", jump_in=True)
    for k in range(5):
        for seat in range(3):
            t.play(seat, hands[seat][k])
    t.play(0, "red 6")  # one card left, not declared; seat 1 is in turn
    assert t.moves(1)["catch"] == [0]
    t.play(2, "red 6")  # seat 2 jumps in with the identical card
    assert t.turn == 0
    assert t.moves(1)["catch"] == [2]  # the jumper is at one card now; seat 0 is safe
    t.refuse(1, Catch(seat=0), "not_catchable")
