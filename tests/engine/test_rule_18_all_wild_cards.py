"""Rule 18: the All Wild cards, with three or four players and with two."""

from __future__ import annotations

from app.engine.actions import Play

from .helpers import Table

AW = "all_wild"
HAND0 = [
    "wild_skip",
    "wild_skip2",
    "wild_reverse",
    "wild_draw2",
    "wild_draw4",
    "wild_targeted_draw2",
    "wild_forced_swap",
]


def table(n: int) -> Table:
    t = Table(n, hands={0: HAND0}, first="wild", variant=AW)
    if t.phase == "choose":  # in case the first player names a (meaningless) color
        t.choose(0, t.moves(0)["choose"][0])
    assert t.turn == 0
    return t


def test_plain_wild_has_no_effect() -> None:
    t = Table(3, hands={0: ["wild"]}, first="wild", variant=AW)
    if t.phase == "choose":
        t.choose(0, t.moves(0)["choose"][0])
    t.play(0, "wild")
    assert t.turn == 1 and t.counts() == [6, 7, 7] and t.st["direction"] == 1


def test_wild_skip() -> None:
    t = table(4)
    t.play(0, "wild_skip")
    assert t.turn == 2
    t2 = table(2)
    t2.play(0, "wild_skip")
    assert t2.turn == 0


def test_wild_skip_two() -> None:
    t = table(4)
    skipped = t.find("turn_skipped", t.play(0, "wild_skip2"))
    assert t.seen(skipped, None)["seats"] == [1, 2]
    assert t.turn == 3
    t2 = table(2)
    events = t2.play(0, "wild_skip2")
    assert t2.turn == 1  # no effect: the opponent plays next
    assert "turn_skipped" not in t2.kinds(events)  # ... so nobody is reported skipped
    t3 = table(3)
    skipped = t3.find("turn_skipped", t3.play(0, "wild_skip2"))
    assert t3.seen(skipped, None)["seats"] == [1, 2]
    assert t3.turn == 0  # both others lose their turns: the player plays again


def test_wild_reverse() -> None:
    t = table(4)
    t.play(0, "wild_reverse")
    assert t.st["direction"] == -1
    assert t.turn == 3
    t2 = table(2)
    t2.play(0, "wild_reverse")
    assert t2.turn == 0  # acts as a Skip


def test_wild_draw_two_and_draw_four() -> None:
    t = table(3)
    t.play(0, "wild_draw2")
    assert t.counts() == [6, 9, 7]
    assert t.turn == 2
    t2 = table(3)
    t2.play(0, "wild_draw4")
    assert t2.counts() == [6, 11, 7]
    assert t2.turn == 2
    t3 = table(2)
    t3.play(0, "wild_draw2")
    assert t3.counts() == [6, 9] and t3.turn == 0


def test_wild_targeted_draw_two_target_keeps_its_turn() -> None:
    t = table(4)
    card = t.card(0, "wild_targeted_draw2")
    entry = next(p for p in t.moves(0)["play"] if p["card"] == card)
    assert set(entry["targets"]) == {1, 2, 3}
    t.refuse(0, Play(card=card), "bad_target")
    t.refuse(0, Play(card=card, target=0), "bad_target")
    t.refuse(0, Play(card=card, target=7), "bad_target")
    t.play(0, card, target=1)
    assert t.counts() == [6, 9, 7, 7]
    assert t.turn == 1  # the target keeps the turn it has


def test_wild_forced_swap() -> None:
    t = table(3)
    card = t.card(0, "wild_forced_swap")
    t.refuse(0, Play(card=card), "bad_target")
    mine, theirs = t.hand_ids_now(0) - {card}, t.hand_ids_now(2)
    t.play(0, card, target=2)
    assert t.hand_ids_now(0) == theirs
    assert t.hand_ids_now(2) == mine
    assert t.turn == 1


def test_wild_forced_swap_as_last_card_ends_the_round_without_a_swap() -> None:
    chain = ["wild_skip", "wild_skip", "wild_skip", "wild_reverse", "wild_reverse"]
    t = Table(2, hands={0: [*chain, "wild", "wild_forced_swap"]}, first="wild", variant=AW)
    if t.phase == "choose":
        t.choose(0, t.moves(0)["choose"][0])
    for spec in chain:
        t.play(0, spec)
        assert t.turn == 0
    t.play(0, "wild", uno=True)
    t.draw(1)
    if t.phase == "after_draw":
        t.pass_(1)
    assert t.turn == 0
    other = t.hand_ids_now(1)
    events = t.play(0, "wild_forced_swap", target=1)
    assert "hands_swapped" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 0
    assert {c["id"] for c in ended.public["hands"][1]} == other


def test_wild_skip_two_with_three_players_comes_back_to_the_player() -> None:
    t = table(3)
    t.play(0, "wild_skip2")
    assert t.turn == 0


def test_wild_targeted_draw_two_on_a_later_seat() -> None:
    t = table(4)
    t.play(0, "wild_targeted_draw2", target=2)
    assert t.counts() == [6, 7, 9, 7]
    assert t.turn == 1


def test_forced_swap_leaving_the_target_one_card_opens_a_catch_window() -> None:
    chain = ["wild_skip", "wild_skip", "wild_skip", "wild_reverse", "wild_reverse"]
    t = Table(2, hands={0: [*chain, "wild_forced_swap", "wild"]}, first="wild", variant=AW)
    if t.phase == "choose":
        t.choose(0, t.moves(0)["choose"][0])
    for spec in chain:
        t.play(0, spec)
    t.play(0, "wild_forced_swap", target=1)
    assert t.counts() == [7, 1]
    assert t.moves(0)["catch"] == [1]
    t.catch(0, 1)
    assert t.count(1) == 3
