"""Rule 4: drawing: `draw` one / until_playable, `max_draw`, `forced_play`, `no_voluntary_draw`."""

from __future__ import annotations

import pytest

from app.engine.actions import Draw, Pass, Play

from .helpers import Table

# Seat 0 holds nothing playable on the red 3 (no red, no 3, no wild)
DRY = ["blue 1", "blue 2", "green 4", "green 5", "yellow 6", "yellow 8", "blue 9"]
# Seat 0 holds a red 7 (playable) among unplayable cards
WET = ["red 7", "blue 2", "green 4", "green 5", "yellow 6", "yellow 8", "blue 9"]


def test_draw_one_unplayable_ends_the_turn() -> None:
    t = Table(2, hands={0: DRY}, first="red 3", pile=["green 9"])
    events = t.draw(0)
    assert t.count(0) == 8
    assert t.draw_ids[0] in t.hand_ids_now(0)
    assert t.turn == 1
    assert t.phase == "play"
    drawn = t.find("card_drawn", events)
    assert t.draw_ids[0] not in _ids(t.seen(drawn, 1))
    assert t.draw_ids[0] not in _ids(t.seen(drawn, None))
    assert t.draw_ids[0] in _ids(t.seen(drawn, 0))


def _ids(obj: object) -> set[int]:
    from .helpers import card_ids_in

    return card_ids_in(obj)


def test_draw_one_playable_may_be_played_at_once_and_no_other() -> None:
    t = Table(2, hands={0: WET}, first="red 3", pile=["red 9"])
    t.draw(0)
    assert t.turn == 0
    assert t.phase == "after_draw"
    moves = t.moves(0)
    assert {p["card"] for p in moves["play"]} == {t.draw_ids[0]}
    assert moves["pass"] is True
    assert moves["draw"] is False
    t.refuse(0, Play(card=t.hand_ids[0][0]), "illegal_card")  # the red 7: not the drawn card
    t.refuse(0, Draw())
    t.play(0, t.draw_ids[0])
    assert t.top["id"] == t.draw_ids[0]
    assert t.turn == 1


def test_draw_one_playable_may_be_kept_with_pass() -> None:
    t = Table(2, hands={0: WET}, first="red 3", pile=["red 9"])
    t.draw(0)
    t.pass_(0)
    assert t.turn == 1
    assert t.count(0) == 8
    assert t.top["id"] == t.first_id


def test_pass_without_a_draw_is_refused() -> None:
    t = Table(2, hands={0: WET}, first="red 3")
    t.refuse(0, Pass())


def test_may_draw_even_when_holding_a_playable_card() -> None:
    t = Table(2, hands={0: WET}, first="red 3", pile=["green 9"])
    assert t.moves(0)["draw"] is True
    t.draw(0)
    assert t.count(0) == 8
    assert t.turn == 1


def test_until_playable_draws_until_a_playable_card() -> None:
    t = Table(
        2, hands={0: DRY}, first="red 3", pile=["blue 7", "green 8", "red 6"], draw="until_playable"
    )
    t.draw(0)
    assert t.count(0) == 10
    assert t.phase == "after_draw"
    assert t.playable(0) == {t.draw_ids[2]}
    t.play(0, t.draw_ids[2])
    assert t.turn == 1


def test_until_playable_may_keep_the_playable_card() -> None:
    t = Table(2, hands={0: DRY}, first="red 3", pile=["blue 7", "red 6"], draw="until_playable")
    t.draw(0)
    t.pass_(0)
    assert t.count(0) == 9
    assert t.turn == 1


def test_until_playable_stops_at_max_draw() -> None:
    t = Table(
        2,
        hands={0: DRY},
        first="red 3",
        pile=["blue 7", "green 8", "red 6"],
        max_draw=2,
        draw="until_playable",
    )
    t.draw(0)
    assert t.count(0) == 9
    assert t.turn == 1
    assert t.draw_ids[2] not in t.hand_ids_now(0)


def test_until_playable_zero_cap_draws_on() -> None:
    dry_draws = ["blue 4", "blue 5", "blue 6", "green 1", "green 2", "green 6", "yellow 2"]
    dry_draws += ["yellow 4", "yellow 5", "blue 7", "green 7", "yellow 7"]
    t = Table(
        2,
        hands={0: DRY},
        first="red 3",
        pile=[*dry_draws, "red 6"],
        max_draw=0,
        draw="until_playable",
    )
    t.draw(0)
    assert t.count(0) == 7 + len(dry_draws) + 1
    assert t.phase == "after_draw"


@pytest.mark.parametrize("mode", ["one", "until_playable"])
def test_forced_play_the_playable_drawn_card_must_be_played(mode: str) -> None:
    t = Table(2, hands={0: DRY}, first="red 3", pile=["red 9"], forced_play=True, draw=mode)
    t.draw(0)
    assert t.phase == "after_draw"
    assert t.moves(0)["pass"] is False
    t.refuse(0, Pass())
    t.play(0, t.draw_ids[0])
    assert t.turn == 1


def test_forced_play_unplayable_drawn_card_still_ends_the_turn() -> None:
    t = Table(2, hands={0: DRY}, first="red 3", pile=["green 9"], forced_play=True)
    t.draw(0)
    assert t.turn == 1


def test_no_voluntary_draw_refuses_a_draw_while_holding_a_playable_card() -> None:
    t = Table(2, hands={0: WET}, first="red 3", no_voluntary_draw=True)
    assert t.moves(0)["draw"] is False
    t.refuse(0, Draw())
    t.play(0, "red 7")


def test_no_voluntary_draw_allows_a_draw_with_nothing_playable() -> None:
    t = Table(2, hands={0: DRY}, first="red 3", pile=["green 9"], no_voluntary_draw=True)
    assert t.moves(0)["draw"] is True
    t.draw(0)
    assert t.count(0) == 8
