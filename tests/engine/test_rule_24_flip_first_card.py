"""Rule 24: Flip first card (light side): as classic, Draw One like Draw Two, Flip redrawn."""

from __future__ import annotations

from .helpers import Table

N, DEALER = 3, 0


def table(first: str, pile: tuple[str, ...] = (), **settings: object) -> Table:
    return Table(N, dealer=DEALER, variant="flip", first=first, pile=pile, **settings)


def test_draw_one_first_player_draws_one_and_is_skipped() -> None:
    t = table("red draw1")
    assert t.counts() == [7, 8, 7]
    assert t.turn == 2


def test_skip_and_reverse() -> None:
    assert table("red skip").turn == 2
    t = table("red reverse")
    assert t.turn == DEALER and t.st["direction"] == -1


def test_wild_first_player_names_the_color() -> None:
    t = table("wild")
    assert t.phase == "choose" and t.turn == 1


def test_wild_draw_two_goes_back_like_a_wild_draw_four() -> None:
    t = table("wild_draw2", pile=("green 6",))
    assert t.top["id"] == t.draw_ids[0]
    assert t.counts() == [7, 7, 7]
    assert t.turn == 1


def test_flip_first_card_is_turned_back_and_another_drawn() -> None:
    t = table("blue flip", pile=("yellow 4",))
    assert t.top["id"] == t.draw_ids[0]
    assert t.st["side"] == "light"
    assert t.turn == 1


def test_redraw_until_number_in_flip() -> None:
    t = table("red draw1", pile=("blue flip", "green 2"), first_card="redraw_until_number")
    assert t.top["id"] == t.draw_ids[1]
    assert t.counts() == [7, 7, 7]
