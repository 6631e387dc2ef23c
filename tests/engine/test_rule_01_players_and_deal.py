"""Rule 1: 2-10 players, the dealer, the deal of 7, the first player left of the dealer."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.actions import Join, Start

from .helpers import Table, quick_win_table, total_cards, win_quickly


@pytest.mark.parametrize(("n", "dealer"), [(2, 1), (3, 0), (5, 2), (10, 9), (10, 4)])
def test_deal_gives_seven_each_and_left_of_dealer_starts(n: int, dealer: int) -> None:
    t = Table(n, dealer=dealer)
    size = int(t.listing["size"])
    assert t.status == "playing"
    assert t.counts() == [7] * n
    st = t.st
    assert st["discard_count"] == 1
    assert st["draw_count"] == size - 7 * n - 1
    assert st["top"]["id"] == t.first_id
    assert st["turn"] == (dealer + 1) % n
    assert st["direction"] == 1
    assert st["phase"] == "play"
    for seat in range(n):
        assert t.hand_ids_now(seat) == set(t.hand_ids[seat])
    assert total_cards(t) == size


def test_one_player_cannot_start() -> None:
    t = Table(1, start=False)
    t.refuse(0, Start())


def test_eleventh_player_is_refused() -> None:
    t = Table(10, start=False)
    t.refuse(None, Join(name="late", player_id="p10"), "room_full")


def test_max_players_caps_the_room() -> None:
    t = Table(3, start=False, max_players=3)
    t.refuse(None, Join(name="late", player_id="p3"), "room_full")


def test_join_after_start_is_refused() -> None:
    t = Table(3)
    t.refuse(None, Join(name="late", player_id="p9"), "already_started")


def test_only_the_host_starts() -> None:
    t = Table(3, start=False)
    t.refuse(1, Start(), "not_host")


def test_dealer_is_drawn_without_the_hook() -> None:
    t = Table(4, dealer=None, seed=11)
    chosen = t.find("dealer_chosen")
    dealer = chosen.public["dealer"]
    assert 0 <= dealer < 4
    assert t.counts() == [7] * 4
    assert t.kinds(t.events).index("dealer_chosen") < t.kinds(t.events).index("round_started")


def _points(card: dict[str, Any]) -> int:
    return int(card["value"]) if card["kind"] == "number" else 0  # symbols count as 0


@pytest.mark.parametrize("n", [2, 4, 10])
def test_highest_number_deals_and_ties_draw_again(n: int) -> None:
    ties = 0
    for seed in range(25):
        t = Table(n, dealer=None, seed=seed)
        chosen = t.find("dealer_chosen").public
        rounds = chosen["draws"]
        for draw in rounds[:-1]:
            values = [_points(d["card"]) for d in draw]
            assert values.count(max(values)) > 1, "a draw round without a tie at the top"
            ties += 1
        last = {d["seat"]: _points(d["card"]) for d in rounds[-1]}
        best = max(last.values())
        assert list(last.values()).count(best) == 1
        assert last[chosen["dealer"]] == best
        assert t.turn in ((chosen["dealer"] + 1) % n, (chosen["dealer"] + 2) % n, chosen["dealer"])
    if n == 10:
        assert ties > 0  # ten players tie often: the redraw path ran


def _expected_first(top_kind: str, dealer: int, n: int) -> tuple[int, int]:
    """(turn, direction) right after the deal, per rule 2 official, for a top card kind."""
    if top_kind in ("skip", "draw2"):
        return (dealer + 2) % n, 1
    if top_kind == "reverse":
        return dealer, -1
    return (dealer + 1) % n, 1


def test_deal_passes_left_next_round() -> None:
    """Round 1 dealt by seat 1 (seat 0 opens); round 2 is dealt by seat 0."""
    t = quick_win_table()
    assert t.turn == 0
    win_quickly(t)
    assert t.status == "round_over"
    t.act(0, Start())
    assert t.status == "playing"
    assert t.view(None)["round"] == 2
    turn, direction = _expected_first(t.top["kind"], 0, 2)
    assert t.turn == turn
    assert t.st["direction"] == direction
