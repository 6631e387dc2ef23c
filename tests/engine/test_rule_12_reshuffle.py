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


def _everything_playable_on_red_5() -> list[str]:
    """Every card playable on a red 5 (red, the other 5s, wilds) but one red 3 (the first)."""
    specs = ["red 0"] + [f"red {v}" for v in range(1, 10) for _ in (0, 1)]
    specs.remove("red 3")
    specs += [f"red {k}" for k in ("skip", "reverse", "draw2") for _ in (0, 1)]
    specs += ["wild"] * 4 + ["wild_draw4"] * 4 + ["wild_shuffle"]
    specs += [f"{c} 5" for c in ("blue", "green", "yellow") for _ in (0, 1)]
    return specs


def test_a_draw_in_progress_continues_after_the_reshuffle() -> None:
    # Ten players hold every card playable on a red 5, so the draw pile holds none. Seats 0-3
    # play red cards; seat 4 draws until playable: the whole pile, then the rebuilt pile's
    # first card (a red card once played) ends the draw.
    specs = _everything_playable_on_red_5()
    for opening in ("red 1", "red 2", "red 4", "red 5"):
        specs.remove(opening)
    hands: dict[int, list[str]] = {0: ["red 1"], 1: ["red 2"], 2: ["red 4"], 3: ["red 5"]}
    for i, spec in enumerate(specs):
        seat = i % 10
        hands.setdefault(seat, []).append(spec)
    t = Table(10, hands=hands, first="red 3", draw="until_playable", max_draw=0)
    pile = t.st["draw_count"]
    assert pile == 109 - 70 - 1
    for seat, card in enumerate(("red 1", "red 2", "red 4", "red 5")):
        t.play(seat, card)
    assert t.turn == 4 and t.st["discard_count"] == 5
    events = t.draw(4)
    assert "deck_reshuffled" in t.kinds(events)
    assert t.count(4) == 7 + pile + 1
    assert t.phase == "after_draw"
    assert t.st["discard_count"] == 1
    assert t.st["draw_count"] == 3
    assert total_cards(t) == 109


def test_a_penalty_the_piles_cannot_cover_stops_short_and_still_skips() -> None:
    # Every card is in a hand but the first card: seat 0's Draw Two finds one card to
    # shuffle back (the red 3 under it); seat 1 draws that one, the draw stops, and the
    # penalty still costs the turn.
    t = Table(3, hands={0: ["red draw2", "red skip"]}, first="red 3")
    _empty_the_draw_pile(t)
    while t.turn != 0:
        t.act(t.turn, Draw())
        if t.phase == "after_draw":
            t.act(t.turn, Pass())
    assert t.st["draw_count"] == 0 and t.st["discard_count"] == 1
    before = t.count(1)
    events = t.play(0, "red draw2")
    assert t.kinds(events) == ["card_played", "deck_reshuffled", "card_drawn", "turn_skipped"]
    assert t.seen(t.find("card_drawn", events), None)["count"] == 1
    assert t.count(1) == before + 1
    assert t.turn == 2 and t.phase == "play"
    assert t.st["draw_count"] == 0 and t.st["discard_count"] == 1
    assert total_cards(t) == t.listing["size"]
