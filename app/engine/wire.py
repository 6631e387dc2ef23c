"""Cards as PROTOCOL section 1 writes them (the only place that shapes a card for the wire)."""

from __future__ import annotations

from typing import Any

from app.engine.decks import Deck


def card_json(deck: Deck, side: int, cid: int) -> dict[str, Any]:
    """A card whose face the recipient may see, with its id, on the side in play."""
    card = deck.wire[side][cid].copy()
    if "face" in card:
        card["face"] = card["face"].copy()
    return card


def cards_json(deck: Deck, side: int, cids: list[int]) -> list[dict[str, Any]]:
    return [card_json(deck, side, c) for c in cids]


def back_json(deck: Deck, side: int, cid: int) -> dict[str, Any]:
    """Flip: the face turned away from its holder (no id: it would reveal the hidden face)."""
    return deck.side(1 - side)[cid].to_json()
