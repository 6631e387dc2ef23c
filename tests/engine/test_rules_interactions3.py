"""Interactions between rules (third audit): each test sets up one exact situation where two or
more rules of RULES.md meet and holds the engine to the wording of RULES.md (rule numbers in
each docstring). Where RULES.md leaves the outcome open, the test pins what the engine does and
says so (docs/rules.md records those decisions)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import apply
from app.engine.actions import Catch, Challenge, Choose, Play
from app.engine.errors import EngineError

from .helpers import CHAIN, CHAIN_FIRST, Table, run_chain

ENDED = ("round_over", "match_over")


def _points(cards: list[dict[str, Any]]) -> int:
    """Classic points (RULES 16) of a round_ended hand."""
    return sum(
        c["value"] if c["kind"] == "number" else 20 if c["color"] else 50 for c in cards
    )


# --- two players: seat 1 at one card, seat 0 in turn with a chosen pair --------------------

# Seat 1 plays its own chain of Skips and Reverses (two players: each gives it the turn back,
# RULES 15), then a yellow 4 with UNO: one card left. Seat 0 plays the red 5 first.
CHAIN1 = ["red skip", "red reverse", "blue reverse", "blue skip", "yellow skip"]


def one_card_opponent(
    last1: str, hand0: list[str], *, declare: bool = True, **settings: Any
) -> Table:
    """Seat 0: red 5 then `hand0` (6 cards); seat 1 ends at one card, `last1`, on a yellow 4.

    The turn is then seat 0's, with six cards."""
    assert len(hand0) == 6
    t = Table(
        2,
        hands={0: ["red 5", *hand0], 1: [*CHAIN1, "yellow 4", last1]},
        first="red 3",
        avoid=["kind=number value=4", "color=yellow", "kind=wild", "kind=wild_draw4"],
        **settings,
    )
    t.play(0, "red 5")
    run_chain(t, 1, CHAIN1)
    t.play(1, "yellow 4", uno=declare)
    assert t.turn == 0 and t.count(1) == 1 and t.count(0) == 6
    return t


# --- RULES 13 + 27: a 7 that leaves its own player at one card through the swap -------------

HAND0_SEVEN = ["yellow skip", "yellow reverse", "green reverse", "green 7", "blue 1", "blue 2"]


def _seven_onto_one_card(**settings: Any) -> Table:
    """Seat 0 sheds to [green 7, blue 1, blue 2] and is in turn; seat 1 holds the green 9."""
    t = one_card_opponent("green 9", HAND0_SEVEN, seven_zero=True, **settings)
    for spec in ("yellow skip", "yellow reverse", "green reverse"):
        t.play(0, spec)
    assert t.turn == 0 and t.count(0) == 3
    return t


def test_seven_swap_leaving_the_player_at_one_card_exposes_the_player() -> None:
    """RULES 27 + 13: the 7's player receives the one-card hand: it must declare too."""
    t = _seven_onto_one_card()
    events = t.play(0, "green 7", target=1)
    assert "hands_swapped" in t.kinds(events)
    assert t.count(0) == 1 and t.count(1) == 2
    assert t.turn == 1
    assert t.moves(1)["catch"] == [0]
    t.catch(1, 0)
    assert t.count(0) == 3


def test_seven_swap_declared_with_the_play_covers_the_hand_it_brings() -> None:
    """RULES 13 + 27: `uno` with the 7 counts when the swap leaves the player at one card."""
    t = _seven_onto_one_card()
    seven = t.card(0, "green 7")
    assert Play(card=seven, target=1, uno=True) in t.legal(0)
    events = t.play(0, seven, target=1, uno=True)
    assert "uno_declared" in t.kinds(events)
    assert t.count(0) == 1
    assert t.moves(1)["catch"] == []
    t.refuse(1, Catch(seat=0), "not_catchable")


# --- RULES 13 + 27: a 0 hands seat 1 a one-card hand -----------------------------------------


@pytest.mark.parametrize("declare", [False, True])
def test_zero_rotation_passing_a_single_card_exposes_its_new_holder(declare: bool) -> None:
    """RULES 27 + 13: a 0 passes every hand on (two players: the hands change places); the
    seat left with one card must declare, whatever the player of the 0 declared."""
    t = Table(2, hands={0: [*CHAIN, "green 0", "yellow 1"]}, first=CHAIN_FIRST, seven_zero=True)
    run_chain(t)
    theirs = t.hand_ids_now(1)
    events = t.play(0, "green 0", uno=declare)
    assert "hands_rotated" in t.kinds(events)
    assert t.hand_ids_now(0) == theirs and t.count(1) == 1
    assert t.turn == 1
    assert t.moves(0)["catch"] == [1]
    assert t.moves(1)["uno"] is True
    t.catch(0, 1)
    assert t.count(1) == 3


def test_zero_as_the_last_card_does_not_pass_the_hands() -> None:
    """RULES 14 + 27: other effects of a last card (rotate) do not happen."""
    t = Table(
        2,
        hands={0: [*CHAIN, "green 4", "green 0"]},
        first=CHAIN_FIRST,
        pile=["blue 9"],
        avoid=["color=green", "kind=number value=4", "kind=number value=0", "kind=wild"],
        seven_zero=True,
    )
    run_chain(t)
    t.play(0, "green 4", uno=True)
    t.draw(1)  # blue 9 on green 4: not playable
    held = t.hand_ids_now(1)
    events = t.play(0, "green 0")
    assert "hands_rotated" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 0
    assert {c["id"] for c in ended.public["hands"][1]} == held
    assert ended.public["hands"][0] == []


# --- RULES 14 + 9 (+ 8): a last card answering a stack -------------------------------------


def test_last_card_draw_two_answering_a_stack_makes_the_next_draw_the_total() -> None:
    """RULES 14 + 9: the last card still makes its victim draw; with a stack, the total."""
    hand0 = ["yellow draw2", "blue 1", "blue 2", "blue 3", "blue 5", "blue 6"]
    t = one_card_opponent("green draw2", hand0, stack_draw2=True)
    t.play(0, "yellow draw2")
    assert t.phase == "penalty" and t.turn == 1
    events = t.play(1, "green draw2")
    assert t.status in ENDED
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 1
    assert len(ended.public["hands"][0]) == 5 + 4
    assert ended.public["points"][1] == _points(ended.public["hands"][0])


def test_last_card_wild_draw_four_stacked_in_the_challenge_phase_has_no_challenge() -> None:
    """RULES 14 + 9 + 8: a stacked Wild Draw Four as the last card: no challenge, the total."""
    hand0 = ["wild_draw4", "blue 1", "blue 2", "blue 3", "blue 5", "blue 6"]
    t = one_card_opponent("wild_draw4", hand0, stack_draw4=True)
    t.play(0, "wild_draw4", color="red")
    assert t.phase == "challenge" and t.turn == 1
    events = t.play(1, "wild_draw4", color="blue")
    assert "challenge_opened" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 1
    assert len(ended.public["hands"][0]) == 5 + 8


def test_two_players_stack_comes_back_and_the_taker_loses_the_turn() -> None:
    """RULES 9 + 15: two players: the one who will not stack draws the total, the other plays."""
    hand0 = ["red draw2", "blue 1", "blue 2", "blue 3", "blue 5", "blue 6"]
    t = Table(
        2, hands={0: ["red draw2", *hand0], 1: ["blue draw2"]}, first="red 3", stack_draw2=True
    )
    t.play(0, "red draw2")
    assert t.phase == "penalty" and t.turn == 1
    t.play(1, "blue draw2")
    assert t.phase == "penalty" and t.turn == 0 and t.st["pending_draw"] == 4
    t.play(0, "red draw2")  # back again: 6
    assert t.turn == 1 and t.st["pending_draw"] == 6
    t.draw(1)
    assert t.count(1) == 6 + 6
    assert t.turn == 0 and t.phase == "play" and t.st["pending_draw"] == 0


def test_stacked_wild_draw_four_on_a_draw_two_guilty_offender_takes_the_total() -> None:
    """RULES 9 + 8: only the latest Wild Draw Four is challenged, by the one who would take the
    total; guilty (it held the color in play, red): the offender draws the whole pending total
    (docs/rules.md R8 decision), the challenger plays a normal turn on the named color."""
    hands = {
        0: ["red draw2", "blue 1", "blue 2", "blue 3", "blue 5", "blue 6", "blue 7"],
        1: ["wild_draw4", "red 8", "green 1", "green 2", "green 3", "green 5", "green 6"],
    }
    t = Table(3, hands=hands, first="red 3", stack_draw4_on_draw2=True)
    t.play(0, "red draw2")
    assert t.phase == "penalty" and t.turn == 1
    t.play(1, "wild_draw4", color="yellow")
    assert t.phase == "challenge" and t.turn == 2 and t.st["pending_draw"] == 6
    assert t.moves(2)["challenge"] and not t.moves(0)["challenge"]
    t.refuse(0, Challenge(), "not_your_turn")
    t.challenge(2)
    assert t.counts() == [6, 6 + 6, 7]
    assert t.turn == 2 and t.phase == "play" and t.st["color"] == "yellow"


def test_stacked_wild_draw_four_on_a_draw_two_innocent_challenger_takes_total_plus_two() -> None:
    """RULES 9 + 8: innocent: the challenger draws the pending total plus 2, loses the turn."""
    hands = {
        0: ["red draw2", "blue 1", "blue 2", "blue 3", "blue 5", "blue 6", "blue 7"],
        1: ["wild_draw4", "blue 8", "green 1", "green 2", "green 3", "green 5", "green 6"],
    }
    t = Table(3, hands=hands, first="red 3", stack_draw4_on_draw2=True, avoid=["color=red"])
    t.play(0, "red draw2")
    t.play(1, "wild_draw4", color="yellow")
    t.challenge(2)
    assert t.counts() == [6, 6, 7 + 6 + 2]
    assert t.turn == 0


def test_without_bluffing_an_illegal_wild_draw_four_cannot_answer_a_stack() -> None:
    """RULES 7 + 9: without bluffing the victim is asked (phase `penalty`, no challenge) and a
    Wild Draw Four it holds the color in play for is refused onto the stack."""
    hands = {
        0: ["wild_draw4", "blue 1", "blue 2", "blue 3", "blue 5", "blue 6", "blue 7"],
        1: ["wild_draw4", "green 8", "yellow 1", "yellow 2", "yellow 3", "yellow 5", "yellow 6"],
    }
    t = Table(3, hands=hands, first="red 3", stack_draw4=True, bluffing=False,
              avoid=["color=red"])
    t.play(0, "wild_draw4", color="green")  # seat 0 holds no red: legal
    assert t.phase == "penalty" and t.turn == 1
    assert not t.moves(1)["challenge"]
    wd4 = t.card(1, "wild_draw4")
    assert wd4 not in t.playable(1)
    t.refuse(1, Play(card=wd4, color="blue"), "illegal_card")
    t.draw(1)
    assert t.count(1) == 7 + 4 and t.turn == 2


# --- RULES 14 + 9 + 28: a jump-in with the last card onto a stack ---------------------------


def test_jump_in_with_the_last_card_onto_a_stack_makes_the_seat_after_the_jumper_draw() -> None:
    """RULES 28 + 9 + 14: seat 3 (one card, after discarding its greens with a Customizable)
    jumps in with a red Draw Two onto the pending stack: the round ends and play would go on
    from the jumper, so the seat after it (seat 0) draws the whole total; seat 2 draws none."""
    hands = {
        0: ["green 5", "green draw2", "blue 1", "blue 2", "blue 3", "blue 5", "blue 6"],
        1: ["green 7", "red draw2", "blue 7", "blue 8", "yellow 1", "yellow 2", "yellow 3"],
        2: ["green 9", "yellow 5", "yellow 6", "yellow 7", "yellow 8", "yellow 9", "blue 9"],
        3: ["wild_custom", "green 1", "green 2", "green 4", "green 6", "green 8", "red draw2"],
    }
    t = Table(
        4,
        hands=hands,
        first="green 3",
        jump_in=True,
        stack_draw2=True,
        custom_wilds=[{"effect": "discard_color"}],
        avoid=["kind=draw2"],
    )
    t.play(0, "green 5")
    t.play(1, "green 7")
    t.play(2, "green 9")
    t.play(3, "wild_custom", color="green", uno=True)
    assert t.count(3) == 1 and t.turn == 0
    t.play(0, "green draw2")
    t.play(1, "red draw2")
    assert t.phase == "penalty" and t.turn == 2 and t.st["pending_draw"] == 4
    last = t.card(3, "red draw2")
    assert last in t.playable(3)
    events = t.play(3, last)
    assert t.find("card_played", events).public.get("jump_in") is True
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 3
    assert [len(h) for h in ended.public["hands"]] == [5 + 6, 5, 6, 0]


def test_jump_in_with_the_last_card_ends_the_round_without_its_skip() -> None:
    """RULES 28 + 14 + 15: two players; seat 1 jumps in with its last card, a Skip."""
    hand0 = ["yellow skip", "green skip", "blue 1", "blue 2", "blue 3", "blue 5"]
    t = one_card_opponent("green skip", hand0, jump_in=True)
    t.play(0, "yellow skip")
    t.play(0, "green skip")
    assert t.turn == 0
    events = t.play(1, "green skip")
    assert "turn_skipped" not in t.kinds(events)
    assert t.find("round_ended", events).public["winner"] == 1
