"""Rule 6: a Wild is playable any time and may name any color, the current one included."""

from __future__ import annotations

import pytest

from app.engine.actions import Play

from .helpers import LIGHT, Table

HAND0 = ["wild", "red 7", "red 8", "blue 1", "blue 2", "green 1", "green 2"]


@pytest.mark.parametrize("color", LIGHT)
def test_wild_while_holding_playable_cards_names_any_color(color: str) -> None:
    t = Table(2, hands={0: HAND0}, first="red 3")
    wild = t.hand_ids[0][0]
    entry = next(p for p in t.moves(0)["play"] if p["card"] == wild)
    assert set(entry["colors"]) == set(LIGHT)
    t.play(0, "wild", color=color)
    assert t.st["color"] == color
    assert t.top["id"] == wild
    assert t.turn == 1


def test_wild_without_a_color_is_refused() -> None:
    t = Table(2, hands={0: HAND0}, first="red 3")
    t.refuse(0, Play(card=t.hand_ids[0][0]), "need_color")


def test_wild_with_a_color_not_in_play_is_refused() -> None:
    t = Table(2, hands={0: HAND0}, first="red 3")
    t.refuse(0, Play(card=t.hand_ids[0][0], color="pink"))
