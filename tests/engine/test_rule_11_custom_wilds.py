"""Rule 11: Wild Customizable: a wild plus its configured effect (every menu entry)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.actions import Play

from .helpers import Table

REST = ["red 7", "green 1", "green 2", "blue 1", "blue 2", "yellow 1"]


def table(entry: dict[str, Any], hand0: list[str] | None = None, n: int = 4) -> Table:
    return Table(
        n,
        hands={0: hand0 or ["wild_custom", *REST]},
        first="red 3",
        custom_wilds=[entry],
        avoid=["kind=wild_custom"],
    )


def test_deck_grows_by_one_card_per_entry() -> None:
    for k in range(4):
        entries = [{"effect": "reverse"}] * k
        t = Table(2, custom_wilds=entries, start=False)
        assert t.listing["size"] == 109 + k
        customs = [c for c in t.listing["cards"] if c["kind"] == "wild_custom"]
        assert len(customs) == k
    t = Table(2, deck="original", start=False)
    assert t.listing["size"] == 108
    assert not [c for c in t.listing["cards"] if c["kind"] == "wild_shuffle"]


def test_next_draws_n() -> None:
    t = table({"effect": "next_draws", "n": 3, "label": "Three for you"})
    t.play(0, "wild_custom", color="blue")
    assert t.counts() == [6, 10, 7, 7]
    assert t.turn == 2
    assert t.st["color"] == "blue"


def test_all_others_draw_n() -> None:
    t = table({"effect": "all_others_draw", "n": 2})
    t.play(0, "wild_custom", color="blue")
    assert t.counts() == [6, 9, 9, 9]
    assert t.turn == 1


def test_skip_next_n_players() -> None:
    t = table({"effect": "skip_next", "n": 2})
    t.play(0, "wild_custom", color="blue")
    assert t.turn == 3
    assert t.counts() == [6, 7, 7, 7]


def test_swap_hands_with_a_chosen_player() -> None:
    t = table({"effect": "swap_hands"})
    custom = t.hand_ids[0][0]
    entry = next(p for p in t.moves(0)["play"] if p["card"] == custom)
    assert set(entry["targets"]) == {1, 2, 3}
    t.refuse(0, Play(card=custom, color="blue"), "bad_target")
    t.refuse(0, Play(card=custom, color="blue", target=0), "bad_target")
    t.refuse(0, Play(card=custom, color="blue", target=4), "bad_target")
    mine, theirs = t.hand_ids_now(0) - {custom}, t.hand_ids_now(2)
    t.play(0, "wild_custom", color="blue", target=2)
    assert t.hand_ids_now(0) == theirs
    assert t.hand_ids_now(2) == mine
    assert t.turn == 1


def test_rotate_hands_passes_every_hand_in_the_direction_of_play() -> None:
    t = table({"effect": "rotate_hands"})
    custom = t.hand_ids[0][0]
    before = [t.hand_ids_now(s) - {custom} for s in range(4)]
    t.play(0, "wild_custom", color="blue")
    for s in range(4):
        assert t.hand_ids_now((s + 1) % 4) == before[s]
    assert t.turn == 1


def test_discard_color_discards_every_card_of_the_named_color() -> None:
    t = table({"effect": "discard_color"})
    discards = t.st["discard_count"]
    t.play(0, "wild_custom", color="green")
    assert t.count(0) == 4  # the custom card and the two greens are gone
    assert t.st["discard_count"] == discards + 3
    assert all(c["color"] != "green" for c in t.hand(0))
    assert t.st["color"] == "green"
    assert t.turn == 1


def test_reverse() -> None:
    t = table({"effect": "reverse"})
    t.play(0, "wild_custom", color="blue")
    assert t.st["direction"] == -1
    assert t.turn == 3


@pytest.mark.parametrize(
    "entry", [{"effect": "reverse"}, {"effect": "next_draws", "n": 2, "label": "x"}]
)
def test_custom_wild_needs_a_color(entry: dict[str, Any]) -> None:
    t = table(entry)
    t.refuse(0, Play(card=t.hand_ids[0][0]), "need_color")


def test_discard_color_leaving_one_card_honours_the_uno_flag_of_the_play() -> None:
    """RULES 13: the play leaves one card (through its effect) and was declared with it."""
    hand0 = ["red skip", "red reverse", "blue reverse", "blue skip", "green 5", "yellow 6"]
    t = Table(
        2,
        hands={0: [*hand0, "wild_custom"]},
        first="red 3",
        custom_wilds=[{"effect": "discard_color"}],
    )
    for spec in hand0[:4]:
        t.play(0, spec)  # two players: Skip and Reverse replay
    events = t.play(0, "wild_custom", color="green", uno=True)
    assert t.count(0) == 1
    assert "uno_declared" in t.kinds(events)
    assert t.moves(1)["catch"] == []


def test_customizable_draws_never_stack() -> None:
    t = Table(
        3,
        hands={0: ["wild_custom"], 1: ["red draw2", "wild_draw4"]},
        first="red 3",
        custom_wilds=[{"effect": "next_draws", "n": 2}],
        stack_draw2=True,
        stack_draw4=True,
        stack_draw4_on_draw2=True,
    )
    t.play(0, "wild_custom", color="red")
    assert t.phase == "play"
    assert t.counts() == [6, 9, 7]
    assert t.turn == 2


def test_each_customizable_carries_its_effect_n_and_label() -> None:
    entries = [
        {"effect": "next_draws", "n": 4, "label": "Four for you"},
        {"effect": "rotate_hands", "label": "Round we go"},
        {"effect": "reverse"},
    ]
    t = Table(2, custom_wilds=entries, start=False)
    customs = [c for c in t.listing["cards"] if c["kind"] == "wild_custom"]
    assert [(c["effect"], c["n"], c["label"]) for c in customs] == [
        ("next_draws", 4, "Four for you"),
        ("rotate_hands", None, "Round we go"),
        ("reverse", None, None),
    ]


def test_rotate_leaving_someone_one_card_opens_a_catch_window() -> None:
    hand0 = ["red skip", "red reverse", "blue reverse", "blue skip", "green skip", "wild_custom"]
    t = Table(
        2,
        hands={0: [*hand0, "green 5"]},
        first="red 3",
        custom_wilds=[{"effect": "rotate_hands"}],
    )
    for spec in hand0[:5]:
        t.play(0, spec)
    t.play(0, "wild_custom", color="green")  # seat 0 keeps the green 5; hands rotate
    assert t.counts() == [7, 1]
    assert t.moves(0)["catch"] == [1]
