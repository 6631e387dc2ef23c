"""The cluster tests' leak audit finds what it looks for (and passes a clean exchange)."""

from __future__ import annotations

import json
from typing import Any

from .harness import CREATED, Player, leaks


def _card(cid: int) -> dict[str, Any]:
    return {"id": cid, "color": "red", "kind": "number", "value": 5}


def _welcome(seat: int, version: int, hand: list[int], **view: Any) -> str:
    you = {"seat": seat, "hand": [_card(c) for c in hand]}
    body = {"version": version, "status": "playing", "you": you, **view}
    return json.dumps({"type": "welcome", "version": version, "view": body, "you": you})


def _table(extra_for_guest: dict[str, Any]) -> list[Player]:
    host, guest = Player("R", "tok-host-secret", seat=0), Player("R", "tok-guest-secret", seat=1)
    del CREATED[-2:]  # made-up frames: not for the audit every cluster test ends with
    host.frames.append(_welcome(0, 5, [1, 2]))
    host.hands[5] = frozenset({1, 2})
    guest.frames.append(_welcome(1, 5, [3], **extra_for_guest))
    guest.hands[5] = frozenset({3})
    return [host, guest]


def test_a_clean_exchange_passes() -> None:
    assert leaks(_table({"discard": [_card(9)]})) == []


def test_another_seats_card_is_found() -> None:
    problems = leaks(_table({"discard": [_card(2)]}))
    assert problems == ["seat 1 was sent 1 card(s) of seat 0 at version 5"]


def test_the_round_end_reveal_is_not_a_leak() -> None:
    assert leaks(_table({"discard": [_card(2)], "status": "round_over"})) == []


def _replay(cards_before_the_end: list[int], cards_after: list[int]) -> str:
    """A resume's frame: a draw, the round's end, the next deal, a draw, in one frame (each
    draw wrongly showing seat 0's cards)."""

    def drawn(version: int, cards: list[int]) -> dict[str, Any]:
        shown = [_card(c) for c in cards]
        return {"version": version, "kind": "card_drawn", "seat": 0, "cards": shown}

    events = [
        drawn(3, cards_before_the_end),
        {"version": 4, "kind": "round_ended", "hands": [[], [_card(2)]]},
        {"version": 5, "kind": "round_started", "hand": [_card(3)]},
    ]
    if cards_after:
        events.append(drawn(6, cards_after))
    version = events[-1]["version"]
    view = {"version": version, "status": "playing", "you": {"seat": 1, "hand": [_card(3)]}}
    return json.dumps({"type": "events", "version": version, "events": events, "view": view})


def _replayed(frame: str, version: int) -> list[Player]:
    host, guest = Player("R", "tok-host", seat=0), Player("R", "tok-guest", seat=1)
    del CREATED[-2:]
    host.hands[version] = frozenset({1, 2})  # the new deal gave seat 0 ids of the old reveal
    guest.hands[version] = frozenset({3})
    guest.frames.append(frame)
    return [host, guest]


def test_a_replayed_round_end_is_not_a_leak_of_the_next_deal() -> None:
    assert leaks(_replayed(_replay([9], []), 5)) == []


def test_a_card_named_after_the_replayed_round_end_is_still_checked() -> None:
    problems = leaks(_replayed(_replay([9], [1]), 6))
    assert problems == ["seat 1 was sent 1 card(s) of seat 0 at version 6"]


def test_cards_of_its_own_shuffled_to_another_seat_are_not_a_leak() -> None:
    # Seat 1 was dealt card 1 at version 3; a Shuffle Hands at 4 gave it to seat 0.
    events = [
        {"version": 3, "kind": "round_started", "hand": [_card(1), _card(3)]},
        {"version": 4, "kind": "hands_shuffled", "seat": 0, "hand": [_card(3)]},
    ]
    view = {"version": 4, "status": "playing", "you": {"seat": 1, "hand": [_card(3)]}}
    frame = json.dumps({"type": "events", "version": 4, "events": events, "view": view})
    table = _replayed(frame, 4)
    table[0].hands[4] = frozenset({1, 2})
    assert leaks(table) == []
    # Another seat's card named in the same frame is still found.
    events.append({"version": 5, "kind": "card_drawn", "seat": 0, "cards": [_card(2)]})
    view["version"] = 5
    frame = json.dumps({"type": "events", "version": 5, "events": events, "view": view})
    table = _replayed(frame, 5)
    assert leaks(table) == ["seat 1 was sent 1 card(s) of seat 0 at version 5"]


def test_a_card_played_then_reshuffled_into_a_hand_is_not_a_leak() -> None:
    # A replayed frame: seat 0 played card 1 at version 3; the pile was reshuffled and seat
    # 0 drew it again by version 5 (its own draw: no cards shown to seat 1).
    events: list[dict[str, Any]] = [
        {"version": 3, "kind": "card_played", "seat": 0, "card": _card(1)},
        {"version": 4, "kind": "pile_reshuffled"},
        {"version": 5, "kind": "card_drawn", "seat": 0, "count": 1},
    ]
    view = {"version": 5, "status": "playing", "you": {"seat": 1, "hand": [_card(3)]}}
    frame = json.dumps({"type": "events", "version": 5, "events": events, "view": view})
    table = _replayed(frame, 5)
    assert leaks(table) == []
    # The same card shown to seat 1 in seat 0's draw is found.
    events[2]["cards"] = [_card(1)]
    frame = json.dumps({"type": "events", "version": 5, "events": events, "view": view})
    assert leaks(_replayed(frame, 5)) == ["seat 1 was sent 1 card(s) of seat 0 at version 5"]


def test_tokens_and_secret_keys_are_found() -> None:
    problems = leaks(_table({"note": "tok-host-secret", "draw_pile": []}))
    assert "a token in a welcome frame" in problems
    assert "secret keys ['draw_pile'] in a welcome frame" in problems
