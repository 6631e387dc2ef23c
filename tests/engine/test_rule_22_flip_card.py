"""Rule 22: the Flip card turns the piles and the hands; `flip_discard` both values."""

from __future__ import annotations

import json
from typing import Any

from .helpers import (
    Table,
    dark_table,
    face,
    flip_listing,
    light_color_backed_by,
    strip_id,
)

HAND0 = ["red flip", "blue 1", "green 2", "yellow 5", "blue 6", "green 7", "yellow 8"]


def _sorted(faces: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(f, sort_keys=True) for f in faces)


def test_whole_pile_everything_turns_over() -> None:
    t = Table(3, variant="flip", hands={0: HAND0}, first="red 3", under=["blue 9"])
    events = t.play(0, "red flip")
    assert "side_flipped" in t.kinds(events)
    st = t.st
    assert st["side"] == "dark"
    assert st["discard_count"] == 2
    # the pile turned over: the first card, once at the bottom, is on top, dark face up
    assert st["top"]["id"] == t.first_id
    assert strip_id(st["top"]) == face(t.listing, t.first_id, "dark")
    # the draw pile turned over: its old bottom is its top, light face as its back
    assert st["draw_top_back"] == face(t.listing, t.under_ids[0], "light")
    for seat in range(3):
        for card in t.hand(seat):
            assert strip_id(card) == face(t.listing, card["id"], "dark")
    v = t.view(0)
    for seat in (1, 2):
        expected = [face(t.listing, cid, "light") for cid in t.hand_ids_now(seat)]
        assert _sorted(v["seats"][seat]["backs"]) == _sorted(expected)
    assert t.turn == 1


def test_top_card_only_the_flip_card_turns() -> None:
    t = Table(3, variant="flip", hands={0: HAND0}, first="red 3", flip_discard="top_card")
    flip = t.hand_ids[0][0]
    t.play(0, "red flip")
    st = t.st
    assert st["side"] == "dark"
    assert st["top"]["id"] == flip
    assert strip_id(st["top"]) == face(t.listing, flip, "dark")
    assert st["discard_count"] == 2


def test_new_top_action_is_not_applied() -> None:
    listing = flip_listing(3)
    color = light_color_backed_by(listing, "kind=draw5")
    t = Table(
        3,
        variant="flip",
        hands={0: [f"{color} flip"]},
        first=f"{color} kind=number|kind=draw5",
    )
    t.play(0, f"{color} flip")
    assert t.top["kind"] == "draw5"
    assert t.counts() == [6, 7, 7]
    assert t.turn == 1
    assert t.phase == "play"


def test_wild_on_top_after_flip_next_player_names_the_color() -> None:
    listing = flip_listing(3)
    color = light_color_backed_by(listing, "kind=wild")
    t = Table(
        3, variant="flip", hands={0: [f"{color} flip"]}, first=f"{color} kind=number|kind=wild"
    )
    t.play(0, f"{color} flip")
    assert t.phase == "choose"
    assert t.turn == 1
    assert set(t.moves(1)["choose"]) == {"pink", "teal", "orange", "purple"}
    t.choose(1, "teal")
    assert t.st["color"] == "teal"
    assert t.phase == "play"
    assert t.turn == 1


def test_a_dark_flip_turns_back_to_light() -> None:
    t = dark_table(3, ["dark:pink flip"])
    events = t.play(1, "pink flip")
    assert "side_flipped" in t.kinds(events)
    assert t.st["side"] == "light"
    for seat in range(3):
        for card in t.hand(seat):
            assert strip_id(card) == face(t.listing, card["id"], "light")
    assert t.turn == 2
