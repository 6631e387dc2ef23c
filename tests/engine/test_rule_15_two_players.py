"""Rule 15: two players: Reverse is a Skip; Skip/Reverse/Draw Two/Wild Draw Four replay."""

from __future__ import annotations

import pytest

from .helpers import Table

HAND0 = ["red skip", "red reverse", "red draw2", "wild_draw4", "blue 1", "green 2", "yellow 3"]


def table(**settings: object) -> Table:
    return Table(2, hands={0: HAND0}, first="red 5", avoid=["color=red"], **settings)


@pytest.mark.parametrize("card", ["red skip", "red reverse"])
def test_skip_and_reverse_let_the_player_play_again(card: str) -> None:
    t = table()
    t.play(0, card)
    assert t.turn == 0
    assert t.counts() == [6, 7]


def test_draw_two_opponent_draws_and_turn_returns() -> None:
    t = table()
    t.play(0, "red draw2")
    assert t.counts() == [6, 9]
    assert t.turn == 0


def test_wild_draw_four_opponent_draws_and_turn_returns() -> None:
    hand0 = ["wild_draw4", "blue 1", "green 2", "yellow 3", "blue 4", "green 5", "yellow 6"]
    t = Table(2, hands={0: hand0}, first="red 5", bluffing=False)
    t.play(0, "wild_draw4", color="green")
    assert t.counts() == [6, 11]
    assert t.turn == 0


def test_wild_draw_four_after_accept_turn_returns() -> None:
    hand0 = ["wild_draw4", "blue 1", "green 2", "yellow 3", "blue 4", "green 5", "yellow 6"]
    t = Table(2, hands={0: hand0}, first="red 5")
    t.play(0, "wild_draw4", color="green")
    assert t.turn == 1 and t.phase == "challenge"
    t.accept(1)
    assert t.counts() == [6, 11]
    assert t.turn == 0
