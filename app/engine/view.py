"""view(): the only way hidden information leaves the engine (PROTOCOL "The view")."""

from __future__ import annotations

from typing import Any, TypedDict

from app.engine.decks import FLIP_DARK, FLIP_LIGHT
from app.engine.legal import moves
from app.engine.lobby import drop_at, next_host
from app.engine.settings import settings_to_json
from app.engine.state import UNO_DECLARED, State
from app.engine.wire import back_json, card_json, cards_json

# The wire shapes of the view (PROTOCOL section 4), so mypy checks what leaves the engine.
Card = dict[str, Any]  # a card's face as app/engine/wire.py writes it (kind, color, value...)


class Deadline(TypedDict):
    seat: int | None
    at: int


class Deadlines(TypedDict):
    turn: Deadline | None
    uno: Deadline | None
    challenge: Deadline | None
    next_round: Deadline | None


class HostDeadline(TypedDict):
    seat: int
    at: int
    to: int | None


class SeatView(TypedDict, total=False):
    seat: int
    name: str
    player_id: str
    bot: bool
    connected: bool
    hand_count: int
    uno: bool
    score: int
    backs: list[Card] | None
    afk: bool
    drop_at: int | None  # extension, lobby only


class TableView(TypedDict):
    top: Card
    color: str | None
    side: str
    direction: int
    turn: int
    draw_count: int
    discard_count: int
    pending_draw: int
    draw_top_back: Card | None
    phase: str
    deadlines: Deadlines
    dealer: int | None
    winner: int | None
    match_winner: int | None


class YouView(TypedDict):
    seat: int
    hand: list[Card]
    moves: dict[str, Any]


class View(TypedDict, total=False):
    room: str
    status: str
    version: int
    server_time: int
    settings: dict[str, Any]
    host: int | None
    match_id: str | None
    round: int
    seats: list[SeatView]
    you: YouView | None
    state: TableView | None
    host_deadline: HostDeadline | None  # extension
    spectators: int  # extension
    log: list[dict[str, Any]]  # the welcome's only
    chat: list[dict[str, Any]]  # extension, the welcome's only


def _backs(st: State, seat: int) -> list[Card]:
    """The faces turned away from a holder, sorted so their order tells nothing."""
    faces = [back_json(st.deck, st.side, c) for c in st.hands[seat]]
    faces.sort(
        key=lambda f: (f["kind"], f["color"] or "", f["value"] if f["value"] is not None else -1)
    )
    return faces


def _deadline(st: State, kind: str) -> Deadline | None:
    d = st.deadlines.get(kind)
    return None if d is None else Deadline(seat=d.seat, at=d.at)


def view(state: State, seat: int | None, now: int) -> View:
    """What `seat` may know now (None = a spectator), with an empty `log` the caller fills."""
    st = state
    me = seat if seat is not None and 0 <= seat < len(st.seats) else None
    out = public_view(st, now, me)
    out["you"] = you_view(st, me) if me is not None else None
    out["log"] = []
    return out


def public_view(state: State, now: int, exclude_backs: int | None = None) -> View:
    """The view every recipient shares: no `you`, no `log`. In Flip the seat
    `exclude_backs` is shown without its backs (a holder does not see its own)."""
    st = state
    in_round = st.status != "lobby" and bool(st.discard)
    return View(
        room=st.room,
        status=st.status,
        version=st.version,
        server_time=now,
        settings=settings_to_json(st.settings),
        host=st.host,
        match_id=st.match_id,
        round=st.round,
        seats=seats_view(st, exclude_backs),
        you=None,
        state=_table(st) if in_round else None,
        # extensions
        host_deadline=_host_deadline(st),
        spectators=len(st.spectators),
    )


def _host_deadline(st: State) -> HostDeadline | None:
    """The absent host's deadline: when the role passes and to whom (`to` is None when no
    connected human could take it now; then the host keeps it and the wait starts again)."""
    d = st.deadlines.get("host")
    if d is None or st.host is None:
        return None
    return HostDeadline(seat=st.host, at=d.at, to=next_host(st))


def flip_in_round(state: State) -> bool:
    """Do the views show backs (so a seat's own entry differs from everybody else's)?"""
    return state.deck.dark is not None and state.status != "lobby" and bool(state.discard)


def seats_view(state: State, exclude_backs: int | None) -> list[SeatView]:
    st = state
    in_round = st.status != "lobby" and bool(st.discard)
    flip = st.deck.dark is not None and in_round
    lobby = st.status == "lobby"
    seats = []
    for i, info in enumerate(st.seats):
        hand = st.hands[i] if in_round and i < len(st.hands) else []
        seat = SeatView(
            seat=i,
            name=info.name,
            player_id=info.player_id,
            bot=info.bot,
            connected=info.connected,
            hand_count=len(hand),
            uno=in_round and i < len(st.uno) and st.uno[i] == UNO_DECLARED,
            score=st.scores[i] if i < len(st.scores) else 0,
            backs=_backs(st, i) if flip and i != exclude_backs else None,
            afk=info.afk,
        )
        if lobby:  # extension: when a departed player's seat is freed (None: not departed)
            seat["drop_at"] = drop_at(st, i)
        seats.append(seat)
    return seats


def you_view(state: State, seat: int) -> YouView:
    """The recipient's own part of the view: its hand and its legal moves."""
    st = state
    in_round = st.status != "lobby" and bool(st.discard)
    return YouView(
        seat=seat,
        hand=cards_json(st.deck, st.side, st.hands[seat]) if in_round else [],
        moves=moves(st, seat),
    )


def _table(st: State) -> TableView:
    flip = st.deck.dark is not None
    top = st.discard[-1]
    pile = st.draw_pile
    return TableView(
        top=card_json(st.deck, st.side, top),
        color=st.color,
        side="dark" if st.side else "light",
        direction=st.direction,
        turn=st.turn,
        draw_count=len(pile),
        discard_count=len(st.discard),
        pending_draw=st.pending,
        draw_top_back=back_json(st.deck, st.side, pile[-1]) if flip and pile else None,
        phase=st.phase if st.status == "playing" else "round_over",
        deadlines=Deadlines(
            turn=_deadline(st, "turn"),
            uno=_deadline(st, "uno"),
            challenge=_deadline(st, "challenge"),
            next_round=_deadline(st, "next_round"),
        ),
        dealer=st.dealer,
        winner=st.winner if st.status != "playing" else None,
        match_winner=st.match_winner if st.status == "match_over" else None,
    )


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
