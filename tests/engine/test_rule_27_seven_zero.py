"""Rule 27: `seven_zero`: a 7 swaps hands with a chosen player; a 0 passes every hand on."""

from __future__ import annotations

from app.engine.actions import Play

from .helpers import CHAIN, CHAIN_FIRST, Table, run_chain

HAND0 = ["red 7", "red 0", "blue 1", "blue 2", "green 1", "green 2", "yellow 1"]


def test_seven_swaps_with_the_chosen_player() -> None:
    t = Table(3, hands={0: HAND0}, first="red 3", seven_zero=True)
    seven = t.hand_ids[0][0]
    entry = next(p for p in t.moves(0)["play"] if p["card"] == seven)
    assert set(entry["targets"]) == {1, 2}
    t.refuse(0, Play(card=seven), "bad_target")
    t.refuse(0, Play(card=seven, target=0), "bad_target")
    mine, theirs = t.hand_ids_now(0) - {seven}, t.hand_ids_now(2)
    events = t.play(0, seven, target=2)
    assert "hands_swapped" in t.kinds(events)
    assert t.hand_ids_now(0) == theirs
    assert t.hand_ids_now(2) == mine
    assert t.turn == 1


def test_zero_passes_every_hand_in_the_direction_of_play() -> None:
    t = Table(3, hands={0: HAND0}, first="red 3", seven_zero=True)
    zero = t.hand_ids[0][1]
    before = [t.hand_ids_now(s) - {zero} for s in range(3)]
    events = t.play(0, zero)
    assert "hands_rotated" in t.kinds(events)
    for s in range(3):
        assert t.hand_ids_now((s + 1) % 3) == before[s]
    assert t.turn == 1


def test_without_the_rule_seven_and_zero_are_plain_numbers() -> None:
    t = Table(3, hands={0: HAND0}, first="red 3")
    before = t.hand_ids_now(2)
    t.play(0, "red 7")
    assert t.hand_ids_now(2) == before
    assert t.turn == 1


def test_player_left_with_one_card_by_a_swap_must_declare() -> None:
    t = Table(2, hands={0: [*CHAIN, "green 7", "yellow 4"]}, first=CHAIN_FIRST, seven_zero=True)
    run_chain(t)
    t.play(0, "green 7", target=1)
    assert t.count(1) == 1
    assert t.moves(0)["catch"] == [1]
    t.catch(0, 1)
    assert t.count(1) == 3


def test_zero_counter_clockwise_passes_hands_the_other_way() -> None:
    hand2 = ["red 0", "blue 1", "blue 2", "green 1", "green 2", "yellow 1", "yellow 2"]
    t = Table(3, dealer=2, hands={2: hand2}, first="red reverse", seven_zero=True)
    assert t.turn == 2 and t.st["direction"] == -1
    zero = t.card(2, "red 0")
    before = [t.hand_ids_now(s) - {zero} for s in range(3)]
    t.play(2, zero)
    for s in range(3):
        assert t.hand_ids_now((s - 1) % 3) == before[s]
    assert t.turn == 1
