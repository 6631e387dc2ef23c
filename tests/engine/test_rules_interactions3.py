"""Interactions between rules (third audit): each test sets up one exact situation where two or
more rules of RULES.md meet and holds the engine to the wording of RULES.md (rule numbers in
each docstring). Where RULES.md leaves the outcome open, the test pins what the engine does and
says so (docs/rules.md records those decisions)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import apply
from app.engine.actions import Catch, Challenge, DeclareUno, Play
from app.engine.errors import EngineError

from .helpers import (
    CHAIN,
    CHAIN_FIRST,
    FLIP_SEED,
    LIGHT,
    Table,
    flip_listing,
    quick_win_table,
    run_chain,
    spec_matches,
    win_quickly,
)

ENDED = ("round_over", "match_over")


def _points(cards: list[dict[str, Any]]) -> int:
    """Classic points (RULES 16) of a round_ended hand."""
    return sum(c["value"] if c["kind"] == "number" else 20 if c["color"] else 50 for c in cards)


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
    t = Table(3, hands=hands, first="red 3", stack_draw4=True, bluffing=False, avoid=["color=red"])
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


# --- RULES 10 + 13: a Wild Shuffle Hands that leaves its player at one card ---------------


def test_wild_shuffle_hands_leaving_the_player_at_one_card_exposes_it() -> None:
    """RULES 10 + 13: two cards in all (seat 0's blue 1 and seat 1's last card) are dealt from
    seat 1: one each. Seat 0 reached one card by the shuffle and must declare.

    Seat 1 was already at one card, declared, and holds one card again: the engine keeps its
    declaration (RULES 13 speaks of a player *reaching* one card; see the report)."""
    hand0 = [
        "yellow skip",
        "yellow reverse",
        "green reverse",
        "green skip",
        "wild_shuffle",
        "blue 1",
    ]
    t = one_card_opponent("green 9", hand0)
    for spec in ("yellow skip", "yellow reverse", "green reverse", "green skip"):
        t.play(0, spec)
    assert t.turn == 0 and t.count(0) == 2
    events = t.play(0, "wild_shuffle", color="red")
    assert "hands_shuffled" in t.kinds(events)
    assert t.counts() == [1, 1]
    assert t.turn == 1
    assert t.moves(1)["catch"] == [0]
    assert t.moves(0)["catch"] == []  # the engine's reading: seat 1's declaration stands


def test_wild_shuffle_hands_declared_with_the_play_covers_the_one_card_it_leaves() -> None:
    """RULES 13 + 10: `uno` with the Wild Shuffle Hands counts for the hand it deals."""
    hand0 = [
        "yellow skip",
        "yellow reverse",
        "green reverse",
        "green skip",
        "wild_shuffle",
        "blue 1",
    ]
    t = one_card_opponent("green 9", hand0)
    for spec in ("yellow skip", "yellow reverse", "green reverse", "green skip"):
        t.play(0, spec)
    events = t.play(0, "wild_shuffle", color="red", uno=True)
    assert "uno_declared" in t.kinds(events)
    assert t.moves(1)["catch"] == []


# --- RULES 11 + 14 / 15 ----------------------------------------------------------------------


def _custom_last(entry: dict[str, Any], **settings: Any) -> Table:
    hands = {0: [*CHAIN, "green 7", "wild_custom"]}
    t = Table(
        2,
        hands=hands,
        first=CHAIN_FIRST,
        pile=["blue 9"],
        custom_wilds=[entry],
        avoid=["color=green", "kind=number value=7", "kind=wild"],
        **settings,
    )
    run_chain(t)
    t.play(0, "green 7", uno=True)
    t.draw(1)
    assert t.turn == 0 and t.count(0) == 1
    return t


def test_customizable_rotate_as_the_last_card_does_not_rotate() -> None:
    """RULES 14 + 11: rotate_hands as the last card: no rotation, the round ends."""
    t = _custom_last({"effect": "rotate_hands"})
    held = t.hand_ids_now(1)
    events = t.play(0, "wild_custom", color="red")
    assert "hands_rotated" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 0
    assert {c["id"] for c in ended.public["hands"][1]} == held


def test_customizable_skip_next_as_the_last_card_skips_nobody() -> None:
    """RULES 14 + 11: skip_next as the last card has no effect but ends the round."""
    t = _custom_last({"effect": "skip_next", "n": 2})
    events = t.play(0, "wild_custom", color="red")
    assert "turn_skipped" not in t.kinds(events)
    assert t.find("round_ended", events).public["winner"] == 0


@pytest.mark.parametrize(("n", "players", "after"), [(1, 2, 0), (2, 2, 1), (2, 3, 0), (1, 3, 2)])
def test_customizable_skip_next_counts_seats_around_the_table(
    n: int, players: int, after: int
) -> None:
    """RULES 11 + 15: skip_next N: the next N players lose their turns (two players, N=1:
    the player plays again, like a Skip; N=2: the opponent plays next, as Wild Skip Two does
    in RULES 18; three players, N=2: the player plays again)."""
    t = Table(
        players,
        hands={0: ["wild_custom"]},
        first="red 3",
        custom_wilds=[{"effect": "skip_next", "n": n}],
    )
    t.play(0, "wild_custom", color="blue")
    assert t.turn == after and t.phase == "play"


# --- RULES 2 / 24 + 15: first cards with two players -------------------------------------


def test_two_players_first_card_skip_the_dealer_plays() -> None:
    """RULES 2 + 15: Skip first: the first player (seat 0, left of dealer seat 1) is skipped."""
    t = Table(2, first="red skip")
    assert t.turn == 1 and t.phase == "play" and t.st["direction"] == 1
    assert t.counts() == [7, 7]


def test_two_players_first_card_reverse_the_dealer_plays() -> None:
    """RULES 2 + 15: Reverse first: the dealer plays first (counter-clockwise)."""
    t = Table(2, first="red reverse")
    assert t.turn == 1 and t.phase == "play" and t.st["direction"] == -1
    assert t.counts() == [7, 7]


def test_two_players_first_card_draw_two_the_dealer_plays() -> None:
    """RULES 2 + 15: Draw Two first: seat 0 draws 2 and is skipped; the dealer plays."""
    t = Table(2, first="red draw2", stack_draw2=True)
    assert t.counts() == [9, 7]
    assert t.turn == 1 and t.phase == "play"


def test_flip_two_players_first_card_draw_one_the_dealer_plays() -> None:
    """RULES 24 + 25: Draw One first: seat 0 draws 1 and is skipped; the dealer plays."""
    t = Table(2, variant="flip", first="red draw1")
    assert t.counts() == [8, 7]
    assert t.turn == 1 and t.phase == "play"


# --- RULES 4 + 9 + 29: draws that are not a voluntary draw -------------------------------


def test_no_voluntary_draw_does_not_stop_taking_a_stacked_penalty() -> None:
    """RULES 4 + 9: while a penalty is pending the choices are stacking or taking it, whatever
    `no_voluntary_draw` says about the playable cards in hand."""
    hands = {0: ["red draw2"], 1: ["red 7", "red 8", "blue draw2"]}
    t = Table(2, hands=hands, first="red 3", stack_draw2=True, no_voluntary_draw=True)
    t.play(0, "red draw2")
    assert t.phase == "penalty" and t.turn == 1
    assert t.moves(1)["draw"] is True
    assert t.playable(1) == {t.card(1, "blue draw2")}  # the red numbers cannot answer
    t.draw(1)
    assert t.count(1) == 9 and t.turn == 0


def test_turn_expiry_draws_even_with_no_voluntary_draw_and_a_playable_card() -> None:
    """RULES 29 + 4: on expiry the server draws for the player (then keeps and passes), even
    where `no_voluntary_draw` would refuse the player's own draw."""
    t = Table(2, hands={0: ["red 7"]}, first="red 3", no_voluntary_draw=True, turn_seconds=5)
    assert t.moves(0)["draw"] is False
    t.timeout("turn")
    assert t.count(0) == 8 and t.turn == 1


def test_forced_play_until_playable_the_card_found_must_be_played() -> None:
    """RULES 4: until_playable + forced_play: the playable card found must be played."""
    t = Table(
        2,
        hands={0: ["blue 1", "blue 2"]},
        first="red 3",
        pile=["green 5", "red 9"],
        draw="until_playable",
        forced_play=True,
        avoid=["color=red", "kind=wild", "kind=number value=3"],
    )
    assert t.playable(0) == set()
    t.draw(0)
    assert t.phase == "after_draw" and t.count(0) == 9
    assert t.moves(0)["pass"] is False
    found = t.card(0, "red 9")
    assert t.playable(0) == {found}
    t.play(0, found)
    assert t.turn == 1


# --- RULES 22 + 13 + 29: a Flip turning up a wild, with a player exposed ---------------------


def _flip_to_a_wild(**settings: Any) -> Table:
    """Two players, Flip: seat 0 sheds with Skips and Reverses (RULES 25) to [Flip, X] on a
    first card whose dark face is a wild, then plays the Flip without declaring: the whole
    pile turns over, the dark wild is on top, seat 1 must name the color (RULES 22)."""
    listing = flip_listing(2)
    cards = listing["cards"]
    color = next(c for c in LIGHT if any(spec_matches(x, f"{c} kind=number|wild") for x in cards))
    a, b, c = (x for x in LIGHT if x != color)
    hand0 = [
        f"{color} skip",
        f"{color} reverse",
        f"{a} reverse",
        f"{a} skip",
        f"{b} skip",
        f"{b} flip",
        f"{c} 5",
    ]
    t = Table(
        2,
        variant="flip",
        hands={0: hand0},
        first=f"{color} kind=number|wild",
        seed=FLIP_SEED,
        **settings,
    )
    run_chain(t, 0, hand0[:5])
    t.play(0, f"{b} flip")
    assert t.st["side"] == "dark" and t.top["id"] == t.first_id
    assert t.turn == 1 and t.phase == "choose" and t.count(0) == 1
    return t


def test_flip_to_a_wild_the_next_player_may_catch_before_naming_the_color() -> None:
    """RULES 22 + 13: the window is open until seat 1 names the color (its own act)."""
    t = _flip_to_a_wild()
    assert t.moves(1)["catch"] == [0]
    t.choose(1, "teal")
    assert t.moves(1)["catch"] == []
    t.refuse(1, Catch(seat=0), "not_catchable")
    assert t.turn == 1 and t.phase == "play" and t.st["color"] == "teal"


def test_flip_to_a_wild_expiry_names_a_dark_color_and_leaves_the_window_open() -> None:
    """RULES 29 + 22 + 13: the turn timer names a random color of the side in play (dark),
    then draws and passes for seat 1; none of it is seat 1's own act, so the window stays."""
    t = _flip_to_a_wild(turn_seconds=5, uno_window_ms=30000)
    events = t.timeout("turn")
    chosen = t.find("color_chosen", events).public
    assert chosen["seat"] == 1 and chosen.get("auto") is True
    assert chosen["color"] in ("pink", "teal", "orange", "purple")
    assert t.turn == 0
    assert t.moves(1)["catch"] == [0]
    t.catch(1, 0)
    assert t.count(0) == 3


# --- RULES 16: the target reached exactly --------------------------------------------------

# 9 + 8 + 8 + 7 + 5 + 2 + 2 = 41, plus the blue 9 seat 1 draws on the way: 50
FIFTY = ["red 9", "red 8", "blue 8", "blue 7", "red 5", "red 2", "blue 2"]


@pytest.mark.parametrize("scoring", ["winner_collects", "lowest_wins"])
def test_reaching_the_target_exactly_ends_the_match(scoring: str) -> None:
    """RULES 16: 'first to target_score' and 'when anyone reaches the target': 50 of 50."""
    t = quick_win_table(FIFTY, scoring=scoring, target_score=50)
    win_quickly(t)
    ended = t.find("round_ended")
    assert sorted(ended.public["scores"]) == [0, 50]
    assert t.status == "match_over"
    assert t.find("match_ended").public["winner"] == 0


def test_one_short_of_the_target_plays_on() -> None:
    """RULES 16: 49 of 50 is not the target."""
    t = quick_win_table([*FIFTY[:-1], "blue 1"], target_score=50)
    win_quickly(t)
    assert t.find("round_ended").public["scores"] == [49, 0]
    assert t.status == "round_over"


# --- RULES 4 + 12: until_playable, max_draw and the end of the draw pile --------------------


def _nothing_playable_in_the_pile(max_draw: int) -> Table:
    """Ten players hold every card playable on a red 5 (red, the other 5s, wilds) but the
    first card; seats 0-3 play red cards, so seat 4 faces a draw pile with nothing playable
    and four discards under the top."""
    specs = ["red 0"] + [f"red {v}" for v in range(1, 10) for _ in (0, 1)]
    specs.remove("red 3")
    specs += [f"red {k}" for k in ("skip", "reverse", "draw2") for _ in (0, 1)]
    specs += ["wild"] * 4 + ["wild_draw4"] * 4 + ["wild_shuffle"]
    specs += [f"{c} 5" for c in ("blue", "green", "yellow") for _ in (0, 1)]
    for opening in ("red 1", "red 2", "red 4", "red 5"):
        specs.remove(opening)
    hands: dict[int, list[str]] = {0: ["red 1"], 1: ["red 2"], 2: ["red 4"], 3: ["red 5"]}
    for i, spec in enumerate(specs):
        hands.setdefault(i % 10, []).append(spec)
    t = Table(10, hands=hands, first="red 3", draw="until_playable", max_draw=max_draw)
    for seat, card in enumerate(("red 1", "red 2", "red 4", "red 5")):
        t.play(seat, card)
    assert t.turn == 4 and t.st["draw_count"] == 38 and t.st["discard_count"] == 5
    return t


def test_until_playable_cap_reached_at_the_last_card_of_the_pile_needs_no_reshuffle() -> None:
    """RULES 4 + 12: the cap (38) is reached with nothing playable: the turn ends there."""
    t = _nothing_playable_in_the_pile(38)
    events = t.draw(4)
    assert "deck_reshuffled" not in t.kinds(events)
    assert t.count(4) == 7 + 38
    assert t.turn == 5 and t.st["draw_count"] == 0 and t.st["discard_count"] == 5


def test_until_playable_cap_counts_the_cards_drawn_before_the_reshuffle() -> None:
    """RULES 4 + 12: the draw goes on after the reshuffle, and the cap counts every card."""
    t = _nothing_playable_in_the_pile(39)
    events = t.draw(4)
    kinds = t.kinds(events)
    assert kinds.index("card_drawn") < kinds.index("deck_reshuffled")
    assert t.count(4) == 7 + 39
    assert t.phase == "after_draw" and t.turn == 4  # the rebuilt pile holds only red cards
    assert t.st["draw_count"] == 3


# --- RULES 30 + 9: the challenge timer with a stack --------------------------------------


def test_challenge_expiry_on_a_stack_accepts_the_whole_total() -> None:
    """RULES 30 + 9: the victim of the latest Wild Draw Four accepts by expiry: the total."""
    hands = {0: ["wild_draw4"], 1: ["wild_draw4"]}
    t = Table(3, hands=hands, first="red 3", stack_draw4=True, challenge_seconds=5)
    t.play(0, "wild_draw4", color="green")
    t.play(1, "wild_draw4", color="blue")
    assert t.phase == "challenge" and t.turn == 2
    t.timeout("challenge")
    assert t.count(2) == 7 + 8
    assert t.turn == 0 and t.phase == "play" and t.st["pending_draw"] == 0


# --- RULES 13: a catch against a declaration, in three players ------------------------------


def _three_with_seat0_exposed(**settings: Any) -> Table:
    """Three players: seat 0 sheds with a Skip chain (each Skip hands the turn back round the
    table) to one undeclared card; seat 1 is in turn."""
    hands = {
        0: ["red 5", "blue 2", "green 3", "yellow 4", "yellow 6", "green 8", "blue 9"],
        1: ["red 1", "blue 1", "green 1", "yellow 1", "yellow 7"],
        2: ["red 2", "blue 3", "green 4", "yellow 5", "yellow 8"],
    }
    t = Table(3, hands=hands, first="red 3", **settings)
    rounds = [hands[0][:6], hands[1], hands[2]]
    plays = [(seat, rounds[seat][k]) for k in range(5) for seat in range(3)]
    plays.append((0, "green 8"))
    for seat, spec in plays:
        t.play(seat, spec)
    assert t.count(0) == 1 and t.turn == 1
    return t


def test_a_declaration_before_any_catch_counts_and_a_late_catch_costs_the_catcher() -> None:
    """RULES 13: the declaration arrives first; the catch after it is refused (not_catchable)
    and costs the catcher `false_catch_penalty`; the window stays for nobody."""
    t = _three_with_seat0_exposed(false_catch_penalty=1)
    assert t.moves(2)["catch"] == [0] and t.moves(1)["catch"] == [0]
    t.uno(0)
    assert t.moves(2)["catch"] == []
    with pytest.raises(EngineError) as info:
        apply(t.state, 2, Catch(seat=0), t.rng, t.now + 10)
    assert info.value.code == "not_catchable"
    assert info.value.state is not None
    t.state = info.value.state
    assert t.counts() == [1, 2, 2 + 1]
    assert t.turn == 1  # a catch is nobody's turn action


def test_a_catch_before_the_declaration_wins_and_the_late_declaration_is_refused() -> None:
    """RULES 13: a catch by a player not in turn (seat 2) lands first: seat 0 draws
    `uno_penalty`; its declaration afterwards has nothing to declare."""
    t = _three_with_seat0_exposed(uno_penalty=3)
    t.catch(2, 0)
    assert t.counts() == [4, 2, 2]
    t.refuse(0, DeclareUno(), "wrong_phase")
    t.refuse(1, Catch(seat=0), "not_catchable")
    assert t.turn == 1


# --- RULES 8 + 15: a challenge with two players --------------------------------------------


@pytest.mark.parametrize("guilty", [True, False])
def test_two_players_challenge_outcomes(guilty: bool) -> None:
    """RULES 8 + 15: guilty: the offender draws 4 and the challenger plays a normal turn on
    the named color; innocent: the challenger draws 6, loses the turn, the player plays on."""
    hand0 = ["wild_draw4", "red 7" if guilty else "blue 7"]
    t = Table(2, hands={0: hand0}, first="red 3", avoid=["color=red"])
    t.play(0, "wild_draw4", color="green")
    assert t.phase == "challenge" and t.turn == 1
    events = t.challenge(1)
    assert t.find("challenge_resolved", events).public["guilty"] is guilty
    if guilty:
        assert t.counts() == [6 + 4, 7]
        assert t.turn == 1 and t.phase == "play" and t.st["color"] == "green"
    else:
        assert t.counts() == [6, 7 + 6]
        assert t.turn == 0 and t.phase == "play"
