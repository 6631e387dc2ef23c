"""Rigged tables for the QA-play tests: n seats, exact hands and first card (test hooks)."""

from __future__ import annotations

from typing import Any

from e2e.harness import Client, Harness, spec

QUIET = {"turn_seconds": 0, "next_round_seconds": 0, "bot_delay_ms": 0}


def _face(card: dict[str, Any]) -> dict[str, Any]:
    face: dict[str, Any] = card.get("light", card)
    return face


def rig_order(
    deck: list[dict[str, Any]],
    hands: list[list[str]],
    top: str,
    dealer: int,
    pad: str = "yellow",
    pile: list[str] | None = None,
) -> tuple[list[int], list[list[int]], int]:
    """Like harness.deal_order, for any number of seats; `pile` names the first cards of
    the draw pile, top first. Padding: numbers of `pad` color, then of any color."""
    free = list(deck)

    def take(text: str) -> int:
        want = spec(text)
        for card in free:
            f = _face(card)
            if (f["color"], f["kind"], f["value"]) == want:
                free.remove(card)
                return int(card["id"])
        raise LookupError(text)

    ids = [[take(t) for t in hand] for hand in hands]
    top_id = take(top)
    pile_ids = [take(t) for t in (pile or [])]
    for hand in ids:
        while len(hand) < 7:
            card = next(
                (c for c in free if _face(c)["kind"] == "number" and _face(c)["color"] == pad),
                None,
            ) or next(c for c in free if _face(c)["kind"] == "number")
            free.remove(card)
            hand.append(int(card["id"]))
    n = len(hands)
    order: list[int] = []
    for k in range(7 * n):
        seat = (dealer + 1 + k) % n
        order.append(ids[seat][k // n])
    order.append(top_id)
    order.extend(pile_ids)
    order.extend(int(c["id"]) for c in free)
    return order, ids, top_id


async def rig(
    server: Harness,
    hands: list[list[str]],
    top: str,
    settings: dict[str, Any] | None = None,
    dealer: int | None = None,
    pad: str = "yellow",
    pile: list[str] | None = None,
) -> tuple[list[Client], list[list[int]], int]:
    """Seat 0 hosts; seat s holds `hands[s]` (padded to 7); the dealer is the last seat
    unless given, so seat 0 plays first. Returns the connected clients after `start`."""
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    base = {**QUIET, **(settings or {})}
    host = await server.create_room("S0", base)
    room = host["room"]
    tokens = [host["token"]]
    for s in range(1, n):
        tokens.append((await server.join(room, f"S{s}"))["token"])
    response = await server.http.get(f"/api/rooms/{room}/deck")
    deck = response.json()["cards"]
    order, ids, top_id = rig_order(deck, hands, top, dealer, pad, pile)
    clients = [await server.connect(room, t) for t in tokens]
    reply = await clients[0].act("settings", settings={"dealer": dealer, "deck_order": order})
    assert reply["type"] == "ack", reply
    reply = await clients[0].act("start")
    assert reply["type"] == "ack", reply
    for c in clients:
        await c.catch_up(reply["version"])
    return clients, ids, top_id


async def sync(clients: list[Client], version: int) -> None:
    for c in clients:
        await c.catch_up(version)


def card_of(client: Client, text: str) -> int:
    """The id of a card matching `text` in the client's hand (its view)."""
    want = spec(text)
    assert client.view is not None
    for card in client.view["you"]["hand"]:
        f = card.get("face", card)
        if (f["color"], f["kind"], f["value"]) == want:
            return int(card["id"])
    raise LookupError(text)
