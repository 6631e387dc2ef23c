"""Rule 2: the first card, under each `first_card` setting (three players, seat 0 deals)."""

from __future__ import annotations

import pytest

from app.engine.actions import Choose

from .helpers import LIGHT, Table, total_cards

N, DEALER = 3, 0
FIRST, SECOND = 1, 2  # left of the dealer plays first, then the next seat


def table(first: str, draw: tuple[str, ...] = (), **settings: object) -> Table:
    return Table(N, dealer=DEALER, first=first, pile=draw, **settings)


@pytest.mark.parametrize("mode", ["official", "apply_actions_reshuffle_wilds"])
def test_draw_two_first_player_draws_two_and_is_skipped(mode: str) -> None:
    t = table("red draw2", first_card=mode)
    assert t.counts() == [7, 9, 7]
    assert t.turn == SECOND
    assert t.phase == "play"
    assert total_cards(t) == t.listing["size"]


@pytest.mark.parametrize("mode", ["official", "apply_actions_reshuffle_wilds"])
def test_reverse_dealer_plays_first_counter_clockwise(mode: str) -> None:
    t = table("red reverse", first_card=mode)
    assert t.turn == DEALER
    assert t.st["direction"] == -1
    t.draw(DEALER)
    if t.phase == "after_draw":
        t.pass_(DEALER)
    assert t.turn == (DEALER - 1) % N


@pytest.mark.parametrize("mode", ["official", "apply_actions_reshuffle_wilds"])
def test_skip_first_player_is_skipped(mode: str) -> None:
    t = table("red skip", first_card=mode)
    assert t.turn == SECOND
    assert t.counts() == [7, 7, 7]


@pytest.mark.parametrize(
    ("first", "settings"),
    [
        ("wild", {}),
        ("wild_shuffle", {}),
        ("wild_custom", {"custom_wilds": [{"effect": "reverse", "label": "Turn"}]}),
        ("wild_custom", {"custom_wilds": [{"effect": "next_draws", "n": 3}]}),
    ],
)
def test_wild_first_player_names_color_without_effect(first: str, settings: dict) -> None:
    t = table(first, **settings)
    before = {s: t.hand_ids_now(s) for s in range(N)}
    assert t.phase == "choose"
    assert t.turn == FIRST
    assert set(t.moves(FIRST)["choose"]) == set(LIGHT)
    assert not t.moves(SECOND)["choose"]
    t.refuse(SECOND, Choose("red"), "not_your_turn")
    assert "color_chosen" in t.kinds(t.choose(FIRST, "green"))
    assert t.st["color"] == "green"
    assert t.phase == "play"
    assert t.turn == FIRST  # naming the color is not the turn: the first player now plays
    assert t.st["direction"] == 1
    assert {s: t.hand_ids_now(s) for s in range(N)} == before  # no shuffle, no draw


def test_official_wild_draw_four_goes_back_and_next_card_is_turned() -> None:
    t = table("wild_draw4", draw=("yellow 6",))
    assert t.top["id"] == t.draw_ids[0]
    assert t.phase == "play"
    assert t.turn == FIRST
    assert t.counts() == [7, 7, 7]
    assert t.st["discard_count"] == 1
    assert t.st["draw_count"] == t.listing["size"] - 7 * N - 1


@pytest.mark.parametrize("first", ["red skip", "blue draw2", "green reverse", "wild", "wild_draw4"])
def test_redraw_until_number_puts_back_every_non_number(first: str) -> None:
    t = table(first, draw=("yellow draw2", "wild", "blue 4"), first_card="redraw_until_number")
    assert t.top["id"] == t.draw_ids[2]
    assert t.top["kind"] == "number"
    assert t.turn == FIRST
    assert t.st["direction"] == 1
    assert t.counts() == [7, 7, 7]
    assert t.st["draw_count"] == t.listing["size"] - 7 * N - 1


@pytest.mark.parametrize("first", ["wild", "wild_draw4", "wild_shuffle"])
def test_apply_actions_reshuffle_wilds_puts_back_wilds(first: str) -> None:
    t = table(first, draw=("yellow 6",), first_card="apply_actions_reshuffle_wilds")
    assert t.top["id"] == t.draw_ids[0]
    assert t.phase == "play"
    assert t.turn == FIRST
    assert t.counts() == [7, 7, 7]


@pytest.mark.parametrize(
    "mode", ["official", "redraw_until_number", "apply_actions_reshuffle_wilds"]
)
def test_number_first_card_has_no_effect(mode: str) -> None:
    t = table("blue 7", first_card=mode)
    assert t.top["id"] == t.first_id
    assert t.turn == FIRST
    assert t.st["direction"] == 1
    assert t.st["color"] == "blue"


def test_official_wild_draw_four_again_is_sent_back_again() -> None:
    t = table("wild_draw4", draw=("wild_draw4", "blue 4"))
    assert t.top["id"] == t.draw_ids[1]
    assert t.st["draw_count"] == t.listing["size"] - 7 * N - 1


def test_official_wild_draw_four_then_draw_two_applies_the_draw_two() -> None:
    t = table("wild_draw4", draw=("red draw2",))
    assert t.top["id"] == t.draw_ids[0]
    assert t.counts() == [7, 9, 7]
    assert t.turn == SECOND


def test_with_test_hooks_a_first_card_sent_back_goes_to_the_bottom() -> None:
    t = Table(2, first="wild_draw4", pile=["blue 4"])
    wd4 = t.first_id
    assert t.top["id"] == t.draw_ids[0]
    drawn: list[int] = []
    while t.st["draw_count"] > 0:
        seat = t.turn
        before = t.hand_ids_now(seat)
        t.draw(seat)
        drawn += sorted(t.hand_ids_now(seat) - before)
        if t.phase == "after_draw":
            t.pass_(seat)
    assert drawn[-1] == wd4
