"""Rule 9: stacking draw penalties: `stack_draw2`, `stack_draw4`, `stack_draw4_on_draw2`."""

from __future__ import annotations

from app.engine.actions import Play

from .helpers import Table

HAND0 = ["red draw2", "wild_draw4", "green 1", "green 2", "yellow 5", "yellow 6", "blue 1"]
HAND1 = ["blue draw2", "wild_draw4", "green 4", "green 5", "yellow 7", "yellow 8", "blue 7"]
PLAIN = ["green 3", "green 6", "yellow 1", "yellow 2", "blue 4", "blue 5", "blue 6"]


def table(hand1: list[str] = HAND1, **settings: object) -> Table:
    return Table(3, hands={0: HAND0, 1: hand1, 2: PLAIN}, first="red 3", **settings)


def test_without_stacking_a_draw_two_cannot_be_answered() -> None:
    t = table()
    t.play(0, "red draw2")
    assert t.counts() == [6, 9, 7]
    assert t.turn == 2


def test_stack_draw2_victim_may_answer_and_totals_add_up() -> None:
    t = table(stack_draw2=True)
    t.play(0, "red draw2")
    assert t.phase == "penalty"
    assert t.turn == 1
    assert t.st["pending_draw"] == 2
    moves = t.moves(1)
    blue_d2 = t.hand_ids[1][0]
    assert {p["card"] for p in moves["play"]} == {blue_d2}
    assert moves["draw"] is True
    t.refuse(1, Play(card=t.hand_ids[1][2]), "illegal_card")  # a green 4: not a stack
    t.play(1, "blue draw2")
    assert t.phase == "penalty"
    assert t.turn == 2
    assert t.st["pending_draw"] == 4
    t.draw(2)  # takes the total and loses the turn
    assert t.counts() == [6, 6, 11]
    assert t.turn == 0
    assert t.phase == "play"
    assert t.st["pending_draw"] == 0


def test_stack_draw2_victim_is_asked_even_holding_nothing_to_stack() -> None:
    t = table(hand1=PLAIN, stack_draw2=True)
    t.play(0, "red draw2")
    assert t.phase == "penalty"
    assert t.turn == 1
    assert t.moves(1)["play"] == []
    t.draw(1)
    assert t.count(1) == 9
    assert t.turn == 2


def test_stack_draw2_does_not_let_a_wild_draw_four_answer() -> None:
    t = table(stack_draw2=True, bluffing=False)
    t.play(0, "red draw2")
    wd4 = t.hand_ids[1][1]
    assert wd4 not in {p["card"] for p in t.moves(1)["play"]}
    t.refuse(1, Play(card=wd4, color="green"), "illegal_card")


def test_stack_draw4_wild_draw_four_on_wild_draw_four() -> None:
    t = Table(
        3,
        hands={0: ["wild_draw4", *PLAIN[:6]], 1: ["wild_draw4", "red 5"]},
        first="red 3",
        stack_draw4=True,
        bluffing=False,
    )
    t.play(0, "wild_draw4", color="green")  # seat 0 holds no red: legal
    assert t.phase == "penalty"
    assert t.turn == 1
    assert t.st["pending_draw"] == 4
    t.play(1, "wild_draw4", color="yellow")  # seat 1 holds no green: legal
    assert t.turn == 2
    assert t.st["pending_draw"] == 8
    t.draw(2)
    assert t.count(2) == 15
    assert t.turn == 0
    assert t.st["color"] == "yellow"


def test_stack_draw4_on_draw2_wild_draw_four_answers_a_draw_two() -> None:
    hand1 = ["wild_draw4", "green 4", "green 5", "yellow 7", "yellow 8", "blue 7", "blue 8"]
    t = table(hand1=hand1, stack_draw4_on_draw2=True, bluffing=False)
    t.play(0, "red draw2")
    assert t.phase == "penalty"
    t.play(1, "wild_draw4", color="blue")
    # Without stack_draw4 nothing answers a Wild Draw Four: the total is applied at once
    assert t.counts() == [6, 6, 13]
    assert t.turn == 0
    assert t.phase == "play"


def test_stack_draw4_on_draw2_with_stack_draw4_asks_the_next_victim() -> None:
    hand1 = ["wild_draw4", "green 4", "green 5", "yellow 7", "yellow 8", "blue 7", "blue 8"]
    t = table(hand1=hand1, stack_draw4_on_draw2=True, stack_draw4=True, bluffing=False)
    t.play(0, "red draw2")
    t.play(1, "wild_draw4", color="blue")
    assert t.phase == "penalty"
    assert t.turn == 2
    assert t.st["pending_draw"] == 6
    t.draw(2)
    assert t.count(2) == 13
    assert t.turn == 0


def test_a_draw_two_never_answers_a_wild_draw_four() -> None:
    hand0 = ["wild_draw4", "green 1", "green 2", "yellow 5", "yellow 6", "blue 1", "blue 2"]
    t = Table(
        3,
        hands={0: hand0, 1: ["red draw2", "blue draw2", *PLAIN[:5]]},
        first="red 3",
        stack_draw2=True,
        stack_draw4=True,
        stack_draw4_on_draw2=True,
        bluffing=False,
    )
    t.play(0, "wild_draw4", color="blue")
    assert t.phase == "penalty"
    assert t.moves(1)["play"] == []
    t.refuse(1, Play(card=t.hand_ids[1][1]), "illegal_card")


def test_first_card_draw_two_is_applied_at_once_even_with_stacking() -> None:
    t = Table(3, dealer=0, hands={1: HAND1}, first="red draw2", stack_draw2=True)
    assert t.counts() == [7, 9, 7]
    assert t.turn == 2
    assert t.phase == "play"


def _stacked_wild_draw_fours(hand1_extra: str) -> Table:
    """Seat 0 and seat 1 stack two Wild Draw Fours; seat 2 faces 8 and may challenge."""
    t = Table(
        3,
        hands={0: ["wild_draw4", *PLAIN[:6]], 1: ["wild_draw4", hand1_extra]},
        first="red 3",
        stack_draw4=True,
    )
    t.play(0, "wild_draw4", color="green")
    assert t.phase == "challenge" and t.moves(1)["challenge"] is True
    t.play(1, "wild_draw4", color="yellow")  # stacking answers instead of challenging
    assert t.turn == 2 and t.st["pending_draw"] == 8
    assert t.moves(2)["challenge"] is True  # only the latest can be challenged, by seat 2
    return t


def test_challenge_of_the_latest_stacked_wild_draw_four_innocent() -> None:
    t = _stacked_wild_draw_fours("red 5")  # seat 1 held no green: innocent
    t.challenge(2)
    assert t.counts() == [6, 6, 7 + 8 + 2]  # the total plus two (rule 8 generalized)
    assert t.turn == 0


def test_challenge_of_the_latest_stacked_wild_draw_four_guilty() -> None:
    t = _stacked_wild_draw_fours("green 5")  # seat 1 held green: guilty
    t.challenge(2)
    assert t.counts() == [6, 6 + 8, 7]  # the offender takes the stack
    assert t.turn == 2 and t.phase == "play"
