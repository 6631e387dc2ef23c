"""Rule 5: Skip, Reverse, Draw Two with four players; an unanswerable penalty is applied at once."""

from __future__ import annotations

from .helpers import Table

HAND0 = ["red skip", "red reverse", "red draw2", "blue 1", "blue 2", "green 1", "green 2"]


def table(**settings: object) -> Table:
    return Table(4, hands={0: HAND0}, first="red 3", **settings)


def test_skip_next_player_loses_the_turn() -> None:
    t = table()
    t.play(0, "red skip")
    assert t.turn == 2
    assert t.st["direction"] == 1
    assert t.counts() == [6, 7, 7, 7]


def test_reverse_flips_the_direction() -> None:
    t = table()
    events = t.play(0, "red reverse")
    assert t.st["direction"] == -1
    assert t.turn == 3
    assert "direction_changed" in t.kinds(events)
    t.draw(3)
    if t.phase == "after_draw":
        t.pass_(3)
    assert t.turn == 2


def test_draw_two_is_applied_at_once_and_skips_the_victim() -> None:
    t = table()
    t.play(0, "red draw2")
    assert t.counts() == [6, 9, 7, 7]
    assert t.turn == 2
    assert t.phase == "play"
    assert t.st["pending_draw"] == 0
