"""Rule 12: an empty draw pile is rebuilt from the discards under the top; no cards, no draw."""

from __future__ import annotations

from app.engine.actions import Draw, Pass, Play

from .helpers import Table, total_cards


def _empty_the_draw_pile(t: Table) -> None:
    """Both seats draw (and keep) until the draw pile is empty."""
    while t.st["draw_count"] > 0:
        seat = t.turn
        t.act(seat, Draw())
        if t.phase == "after_draw":
            t.act(seat, Pass())


def _play_a_number(t: Table) -> bool:
    seat = t.turn
    for action in t.legal(seat):
        if isinstance(action, Play) and action.color is None:
            card = next(c for c in t.hand(seat) if c["id"] == action.card)
            if card["kind"] == "number" and t.count(seat) > 2:
                t.act(seat, action)
                return True
    return False


def test_empty_pile_with_a_single_discard_stops_the_draw() -> None:
    t = Table(2, first="red 3")
    _empty_the_draw_pile(t)
    assert t.st["discard_count"] == 1
    seat = t.turn
    before = t.count(seat)
    t.act(seat, Draw())
    assert t.count(seat) == before  # nothing to draw: the draw stops
    assert total_cards(t) == t.listing["size"]
    assert t.st["top"]["id"] == t.first_id


def test_empty_pile_is_rebuilt_from_the_discards_keeping_the_top() -> None:
    t = Table(2, first="red 3")
    _empty_the_draw_pile(t)
    played = 0
    while played < 3:
        if _play_a_number(t):
            played += 1
        else:
            t.act(t.turn, Draw())  # draws nothing; the turn moves on
            if t.phase == "after_draw":
                t.act(t.turn, Pass())
    top = t.top["id"]
    discards = t.st["discard_count"]
    assert discards == 4
    seat = t.turn
    before = t.count(seat)
    events = t.act(seat, Draw())
    assert "deck_reshuffled" in t.kinds(events)
    assert t.top["id"] == top
    assert t.st["discard_count"] == 1
    assert t.count(seat) == before + 1
    assert t.st["draw_count"] == discards - 2
    assert total_cards(t) == t.listing["size"]
