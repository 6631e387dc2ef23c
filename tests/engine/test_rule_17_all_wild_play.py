"""Rule 17: All Wild: every card plays on every card; a first card's action is ignored."""

from __future__ import annotations

import pytest

from .helpers import Table

AW = "all_wild"
HAND0 = ["wild", "wild_skip", "wild_skip2", "wild_reverse", "wild_draw2", "wild_draw4", "wild"]


def test_every_card_is_playable_on_every_card() -> None:
    for first in ("wild_draw4", "wild_reverse", "wild"):
        t = Table(3, hands={0: HAND0}, first=first, variant=AW, dealer=2)
        assert t.playable(0) == t.hand_ids_now(0)


@pytest.mark.parametrize(
    "first",
    [
        "wild_draw2",
        "wild_draw4",
        "wild_skip",
        "wild_skip2",
        "wild_reverse",
        "wild_forced_swap",
        "wild_targeted_draw2",
        "wild",
    ],
)
def test_first_card_action_is_ignored(first: str) -> None:
    t = Table(3, dealer=0, first=first, variant=AW)
    assert t.top["id"] == t.first_id
    assert t.counts() == [7, 7, 7]
    assert t.turn == 1
    assert t.st["direction"] == 1
    assert t.phase in ("play", "choose")


def test_no_challenge_on_wild_draw_four() -> None:
    t = Table(3, hands={0: HAND0}, first="wild", variant=AW)
    if t.phase == "choose":
        t.choose(0, t.moves(0)["choose"][0])
    t.play(0, "wild_draw4")
    assert t.phase == "play"
    assert t.counts() == [6, 11, 7]
    assert t.turn == 2
    assert not t.moves(1)["challenge"]


def test_plays_need_no_color() -> None:
    t = Table(2, hands={0: HAND0}, first="wild", variant=AW)
    if t.phase == "choose":
        t.choose(0, t.moves(0)["choose"][0])
    t.play(0, "wild")
    assert t.turn == 1
