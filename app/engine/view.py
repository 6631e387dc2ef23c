"""view(): the only way hidden information leaves the engine (PROTOCOL "The view")."""

from __future__ import annotations

from typing import Any

from app.engine.decks import FLIP_DARK, FLIP_LIGHT
from app.engine.legal import moves
from app.engine.settings import settings_to_json
from app.engine.state import UNO_DECLARED, State
from app.engine.wire import back_json, card_json, cards_json


def _backs(st: State, seat: int) -> list[dict[str, Any]]:
    """The faces turned away from a holder, sorted so their order tells nothing."""
    faces = [back_json(st.deck, st.side, c) for c in st.hands[seat]]
    faces.sort(
        key=lambda f: (f["kind"], f["color"] or "", f["value"] if f["value"] is not None else -1)
    )
    return faces


def _deadline(st: State, kind: str) -> dict[str, Any] | None:
    d = st.deadlines.get(kind)
    return None if d is None else {"seat": d.seat, "at": d.at}


def view(state: State, seat: int | None, now: int) -> dict[str, Any]:
    st = state
    n = len(st.seats)
    me = seat if seat is not None and 0 <= seat < n else None
    in_round = st.status != "lobby" and bool(st.discard)
    flip = st.deck.dark is not None and in_round
    seats = []
    for i, info in enumerate(st.seats):
        hand = st.hands[i] if in_round and i < len(st.hands) else []
        seats.append(
            {
                "seat": i,
                "name": info.name,
                "player_id": info.player_id,
                "bot": info.bot,
                "connected": info.connected,
                "hand_count": len(hand),
                "uno": in_round and i < len(st.uno) and st.uno[i] == UNO_DECLARED,
                "score": st.scores[i] if i < len(st.scores) else 0,
                "backs": _backs(st, i) if flip and i != me else None,
                "afk": info.afk,
            }
        )
    you = None
    if me is not None:
        you = {
            "seat": me,
            "hand": cards_json(st.deck, st.side, st.hands[me]) if in_round else [],
            "moves": moves(st, me),
        }
    table = None
    if in_round:
        top = st.discard[-1]
        pile = st.draw_pile
        table = {
            "top": card_json(st.deck, st.side, top),
            "color": st.color,
            "side": "dark" if st.side else "light",
            "direction": st.direction,
            "turn": st.turn,
            "draw_count": len(pile),
            "discard_count": len(st.discard),
            "pending_draw": st.pending,
            "draw_top_back": back_json(st.deck, st.side, pile[-1]) if flip and pile else None,
            "phase": st.phase if st.status == "playing" else "round_over",
            "deadlines": {
                "turn": _deadline(st, "turn"),
                "uno": _deadline(st, "uno"),
                "challenge": _deadline(st, "challenge"),
                "next_round": _deadline(st, "next_round"),
            },
            "dealer": st.dealer,
            "winner": st.winner if st.status != "playing" else None,
            "match_winner": st.match_winner if st.status == "match_over" else None,
        }
    return {
        "room": st.room,
        "status": st.status,
        "version": st.version,
        "server_time": now,
        "settings": settings_to_json(st.settings),
        "host": st.host,
        "match_id": st.match_id,
        "round": st.round,
        "seats": seats,
        "you": you,
        "state": table,
        "log": [],
    }


def deck_listing(state: State, *, test_hooks: bool) -> dict[str, Any]:
    """GET /api/rooms/{room}/deck. Flip faces are listed unpaired unless test hooks are on."""
    deck = state.deck
    if deck.dark is None:
        return {
            "variant": deck.variant,
            "size": deck.size,
            "cards": [card_json(deck, 0, c) for c in range(deck.size)],
        }
    if test_hooks:
        return {
            "variant": deck.variant,
            "size": deck.size,
            "cards": [
                {"id": c, "light": deck.light[c].to_json(), "dark": deck.dark[c].to_json()}
                for c in range(deck.size)
            ],
        }
    return {
        "variant": deck.variant,
        "size": deck.size,
        "light": [f.to_json() for f in FLIP_LIGHT],
        "dark": [f.to_json() for f in FLIP_DARK],
    }
