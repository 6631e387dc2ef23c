"""Rule 20: Flip starts light; holders see their light faces, everyone else the dark backs."""

from __future__ import annotations

import json
from typing import Any

from .helpers import Table, face, strip_id


def _sorted(faces: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(f, sort_keys=True) for f in faces)


def test_light_side_in_play_and_own_hand_shows_light_faces() -> None:
    t = Table(3, variant="flip", first="red 3", pile=["blue 5"])
    assert t.st["side"] == "light"
    for seat in range(3):
        hand = t.hand(seat)
        for card in hand:
            assert "face" in card and card["face"] == strip_id(card)
            assert card["face"] == face(t.listing, card["id"], "light")


def test_others_see_dark_backs_without_ids_and_the_draw_top_back() -> None:
    t = Table(3, variant="flip", first="red 3", pile=["blue 5"])
    v = t.view(0)
    assert v["seats"][0]["backs"] is None  # nobody sees the backs of their own cards
    for seat in (1, 2):
        backs = v["seats"][seat]["backs"]
        assert all("id" not in b for b in backs)
        expected = [face(t.listing, cid, "dark") for cid in t.hand_ids_now(seat)]
        assert _sorted(backs) == _sorted(expected)
    assert v["state"]["draw_top_back"] == face(t.listing, t.draw_ids[0], "dark")
    spectator = t.view(None)
    assert all("id" not in b for s in spectator["seats"] for b in s["backs"])


def test_matching_uses_the_side_in_play() -> None:
    hand0 = ["red 5", "blue 3", "green 4", "yellow 6", "blue 7", "green 8", "yellow 9"]
    t = Table(2, variant="flip", hands={0: hand0}, first="red 3")
    ids = dict(zip(hand0, t.hand_ids[0], strict=True))
    assert {ids["red 5"], ids["blue 3"]} <= t.playable(0)
    assert ids["green 4"] not in t.playable(0)


def test_classic_has_no_backs() -> None:
    t = Table(3, first="red 3")
    v = t.view(0)
    assert all(s["backs"] is None for s in v["seats"])
    assert v["state"]["draw_top_back"] is None
