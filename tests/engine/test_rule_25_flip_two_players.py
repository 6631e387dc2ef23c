"""Rule 25: Flip with two players: Reverse and Skip Everyone are Skips; draws replay."""

from __future__ import annotations

from .helpers import Table, dark_table

LIGHT_HAND = ["red reverse", "red skip", "red draw1", "blue 1", "green 2", "yellow 5", "blue 6"]
DARK_HAND = ["dark:pink reverse", "dark:pink skip_everyone", "dark:pink draw5"]


def light() -> Table:
    return Table(2, variant="flip", hands={0: LIGHT_HAND}, first="red 3")


def test_light_reverse_and_skip_play_again() -> None:
    for card in ("red reverse", "red skip"):
        t = light()
        t.play(0, card)
        assert t.turn == 0


def test_light_draw_one_turn_returns() -> None:
    t = light()
    t.play(0, "red draw1")
    assert t.counts() == [6, 8]
    assert t.turn == 0


def test_dark_reverse_and_skip_everyone_play_again() -> None:
    for card in ("pink reverse", "pink skip_everyone"):
        t = dark_table(2, DARK_HAND)
        assert t.turn == 1
        t.play(1, card)
        assert t.turn == 1


def test_dark_draw_five_turn_returns() -> None:
    t = dark_table(2, DARK_HAND)
    t.play(1, "pink draw5")
    assert t.count(0) == 6 + 5
    assert t.turn == 1


def test_light_wild_draw_two_accepted_turn_returns() -> None:
    hand0 = ["wild_draw2", "blue 3", "wild", "green 1", "green 2", "yellow 5", "yellow 6"]
    t = Table(2, variant="flip", hands={0: hand0}, first="red 3")
    t.play(0, "wild_draw2", color="green")
    t.accept(1)
    assert t.counts() == [6, 9]
    assert t.turn == 0


def test_dark_wild_draw_color_accepted_turn_returns() -> None:
    under = ["dark:orange 1", "dark:teal 2"]
    t = dark_table(2, ["dark:wild_draw_color", "dark:teal 3"], under=under)
    t.play(1, "wild_draw_color", color="teal")
    t.accept(0)
    assert t.count(0) == 6 + 2
    assert t.turn == 1
