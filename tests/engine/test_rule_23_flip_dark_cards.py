"""Rule 23: Flip dark cards: Draw Five, Reverse, Skip Everyone, Wild, Wild Draw Color."""

from __future__ import annotations

from app.engine.actions import Play

from .helpers import dark_table

ACTIONS = ["dark:pink draw5", "dark:pink reverse", "dark:pink skip_everyone", "dark:wild"]
# Wild Draw Color with no pink (the color in play): legal
LEGAL = ["dark:wild_draw_color", "dark:teal 3", "dark:orange 4"]
# ... and with a pink card: a bluff
BLUFF = ["dark:wild_draw_color", "dark:pink 3", "dark:orange 4"]


def test_draw_five() -> None:
    t = dark_table(4, ACTIONS)
    t.play(1, "pink draw5")
    assert t.counts() == [6, 6, 12, 7]
    assert t.turn == 3


def test_reverse() -> None:
    t = dark_table(4, ACTIONS)
    t.play(1, "pink reverse")
    assert t.st["direction"] == -1
    assert t.turn == 0


def test_skip_everyone_plays_again() -> None:
    t = dark_table(4, ACTIONS)
    t.play(1, "pink skip_everyone")
    assert t.turn == 1
    assert t.counts() == [6, 6, 7, 7]


def test_wild_names_a_dark_color() -> None:
    t = dark_table(3, ACTIONS)
    wild = t.card(1, "wild")
    entry = next(p for p in t.moves(1)["play"] if p["card"] == wild)
    assert set(entry["colors"]) == {"pink", "teal", "orange", "purple"}
    t.refuse(1, Play(card=wild, color="red"))
    t.play(1, wild, color="purple")
    assert t.st["color"] == "purple"


def test_wild_draw_color_accepted_draws_until_the_color_wilds_do_not_count() -> None:
    under = ["dark:pink 1", "dark:wild", "dark:orange 2", "dark:purple 5", "dark:teal 6"]
    t = dark_table(3, LEGAL, under=under)
    t.play(1, "wild_draw_color", color="purple")
    assert t.phase == "challenge" and t.turn == 2
    t.accept(2)
    assert t.count(2) == 7 + 4  # up to and including the purple 5
    assert t.turn == 0
    assert t.st["color"] == "purple"


def test_wild_draw_color_guilty_offender_draws_until_the_color() -> None:
    under = ["dark:orange 1", "dark:teal 2", "dark:purple 7"]
    t = dark_table(3, BLUFF, under=under)
    t.play(1, "wild_draw_color", color="teal")
    t.challenge(2)
    assert t.count(1) == 7 - 1 + 2
    assert t.count(2) == 7
    assert t.turn == 2


def test_wild_draw_color_innocent_challenger_draws_until_the_color_plus_two() -> None:
    under = ["dark:orange 1", "dark:teal 2", "dark:purple 7", "dark:pink 8", "dark:orange 9"]
    t = dark_table(3, LEGAL, under=under)
    t.play(1, "wild_draw_color", color="teal")
    t.challenge(2)
    assert t.count(2) == 7 + 2 + 2
    assert t.turn == 0


def test_wild_draw_color_bluff_refused_without_bluffing() -> None:
    t = dark_table(3, BLUFF, bluffing=False)
    t.refuse(1, Play(card=t.card(1, "wild_draw_color"), color="teal"), "illegal_card")
