"""One table: lobby seats, the running match and the current round, as plain data.

Hands and piles are lists of int card ids (the top of a pile is the END of its list, so a
draw is a `pop()`); card facts live in the deck (`state.deck`), shared and immutable. Seat
records and deadlines are values, replaced rather than changed, so `clone()` shares every
list and dict with the original (copy-on-write, below) and never deep-copies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from app.engine.decks import Deck, deck_for
from app.engine.settings import Settings, settings_from_json, settings_to_json

# Per-seat UNO states (RULES 13).
UNO_NONE: Final = 0  # not at one card (or nothing to say)
UNO_DECLARED: Final = 1  # at one card and declared
UNO_EXPOSED: Final = 2  # at one card, not declared, inside the catch window
UNO_SAFE: Final = 3  # at one card, not declared, the window closed without a catch
UNO_EARLY: Final = 4  # declared at two cards, on the own turn, before the play that leaves one

# Copy-on-write bits of State.owned (hand n is bit OWN_HAND_SHIFT + n).
OWN_HANDS: Final = 1
OWN_DRAW: Final = 2
OWN_DISCARD: Final = 4
OWN_UNO: Final = 8
OWN_SEATS: Final = 16
OWN_AFK: Final = 32
OWN_DEADLINES: Final = 64
OWN_HAND_SHIFT: Final = 7


@dataclass(frozen=True, slots=True)
class SeatInfo:
    name: str
    player_id: str
    bot: bool = False
    connected: bool = True
    afk: bool = False  # a bot plays the seat until its player acts again
    left: bool = False
    # When the seat's last socket closed (ms); None while connected or never connected. In
    # the lobby a seat away long enough is dropped (settings.lobby_drop_seconds).
    away_since: int | None = None


class Deadline:
    """A timer as data; treat it as immutable. A plain class, not a dataclass: compiled, its
    constructor is native (a dataclass's __init__ runs interpreted), and one is built on
    almost every move."""

    __slots__ = ("at", "kind", "seat", "set_at")
    kind: str  # "turn" | "uno" | "challenge" | "next_round" | "host"
    at: int  # ms since epoch
    set_at: int  # the state version when it was set; Timeout must carry the same
    seat: int | None

    def __init__(self, kind: str, at: int, set_at: int, seat: int | None) -> None:
        self.kind = kind
        self.at = at
        self.set_at = set_at
        self.seat = seat

    def _key(self) -> tuple[str, int, int, int | None]:
        return (self.kind, self.at, self.set_at, self.seat)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Deadline):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Deadline(kind={self.kind!r}, at={self.at!r}, set_at={self.set_at!r}, "
            f"seat={self.seat!r})"
        )


@dataclass(frozen=True, slots=True)
class PendingChallenge:
    offender: int
    victim: int
    guilty: bool  # the offender held a card of the color in play when playing it
    draw: int  # the card's own penalty (cards, or UNTIL_COLOR)


# The fields State's equality and repr show, in order (all but `owned`).
_FIELDS: Final = (
    "room",
    "settings",
    "deck",
    "version",
    "status",
    "seats",
    "host",
    "match_id",
    "round",
    "scores",
    "dealer",
    "pairing",
    "hands",
    "draw_pile",
    "discard",
    "side",
    "direction",
    "turn",
    "phase",
    "color",
    "pending",
    "pending_stack",
    "drawn",
    "challenge",
    "uno",
    "afk_count",
    "turn_serial",
    "turn_key",
    "deadlines",
    "round_started_at",
    "winner",
    "match_winner",
    "spectators",
)


Status = Literal["lobby", "playing", "round_over", "match_over"]
Phase = Literal["play", "after_draw", "penalty", "challenge", "choose", "round_over"]


class State:
    # A plain class, not a dataclass: compiled, its constructor is native (a dataclass's
    # generated __init__ runs interpreted), and `clone()` builds one on every move.
    # Equality and repr are those of the dataclass it was (`owned` is left out of both).
    __slots__ = (*_FIELDS, "owned")  # (as the dataclass had: interpreted, a third faster)
    room: str
    settings: Settings
    deck: Deck
    version: int
    status: Status
    seats: list[SeatInfo]
    host: int | None
    match_id: str | None
    round: int
    scores: list[int]
    dealer: int | None
    pairing: tuple[int, ...] | None  # Flip: each card id's light and dark face (decks.py)
    # --- the round ---
    hands: list[list[int]]
    draw_pile: list[int]
    discard: list[int]
    side: int  # 0 light, 1 dark (Flip)
    direction: int
    turn: int
    phase: Phase
    color: str | None
    pending: int  # stacked draw penalty waiting for the seat in turn
    pending_stack: str | None  # stacking class of the latest card of the stack
    drawn: int | None  # the card drawn this turn that may still be played
    challenge: PendingChallenge | None
    uno: list[int]
    afk_count: list[int]
    turn_serial: int  # bumped whenever the seat to act or its phase changes
    turn_key: int  # turn_serial for which the current turn/challenge deadline was set
    deadlines: dict[str, Deadline]
    round_started_at: int
    winner: int | None  # of the last round
    match_winner: int | None
    # Member ids of the spectators whose socket is open (only their number is shown).
    spectators: tuple[str, ...]
    # Copy-on-write bookkeeping (never serialised): which of the big lists this state owns.
    owned: int

    def __init__(
        self,
        room: str,
        settings: Settings,
        deck: Deck,
        version: int = 0,
        status: Status = "lobby",
        seats: list[SeatInfo] | None = None,
        host: int | None = None,
        match_id: str | None = None,
        round: int = 0,
        scores: list[int] | None = None,
        dealer: int | None = None,
        pairing: tuple[int, ...] | None = None,
        hands: list[list[int]] | None = None,
        draw_pile: list[int] | None = None,
        discard: list[int] | None = None,
        side: int = 0,
        direction: int = 1,
        turn: int = 0,
        phase: Phase = "play",
        color: str | None = None,
        pending: int = 0,
        pending_stack: str | None = None,
        drawn: int | None = None,
        challenge: PendingChallenge | None = None,
        uno: list[int] | None = None,
        afk_count: list[int] | None = None,
        turn_serial: int = 0,
        turn_key: int = -1,
        deadlines: dict[str, Deadline] | None = None,
        round_started_at: int = 0,
        winner: int | None = None,
        match_winner: int | None = None,
        spectators: tuple[str, ...] = (),
        owned: int = 0,
    ) -> None:
        self.room = room
        self.settings = settings
        self.deck = deck
        self.version = version
        self.status = status
        self.seats = seats if seats is not None else list()
        self.host = host
        self.match_id = match_id
        self.round = round
        self.scores = scores if scores is not None else list()
        self.dealer = dealer
        self.pairing = pairing
        self.hands = hands if hands is not None else list()
        self.draw_pile = draw_pile if draw_pile is not None else list()
        self.discard = discard if discard is not None else list()
        self.side = side
        self.direction = direction
        self.turn = turn
        self.phase = phase
        self.color = color
        self.pending = pending
        self.pending_stack = pending_stack
        self.drawn = drawn
        self.challenge = challenge
        self.uno = uno if uno is not None else list()
        self.afk_count = afk_count if afk_count is not None else list()
        self.turn_serial = turn_serial
        self.turn_key = turn_key
        self.deadlines = deadlines if deadlines is not None else dict()
        self.round_started_at = round_started_at
        self.winner = winner
        self.match_winner = match_winner
        self.spectators = spectators
        self.owned = owned

    def _fields(self) -> tuple[object, ...]:
        return (
            self.room,
            self.settings,
            self.deck,
            self.version,
            self.status,
            self.seats,
            self.host,
            self.match_id,
            self.round,
            self.scores,
            self.dealer,
            self.pairing,
            self.hands,
            self.draw_pile,
            self.discard,
            self.side,
            self.direction,
            self.turn,
            self.phase,
            self.color,
            self.pending,
            self.pending_stack,
            self.drawn,
            self.challenge,
            self.uno,
            self.afk_count,
            self.turn_serial,
            self.turn_key,
            self.deadlines,
            self.round_started_at,
            self.winner,
            self.match_winner,
            self.spectators,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        pairs = ", ".join(f"{k}={v!r}" for k, v in zip(_FIELDS, self._fields(), strict=True))
        return f"State({pairs})"

    @property
    def n(self) -> int:
        return len(self.seats)

    # --- copy-on-write -----------------------------------------------------------------
    # A clone shares the hands and piles with its original; the rules write to them only
    # through these methods, which copy a list the first time this state changes it.

    def w_hands(self) -> list[list[int]]:
        if not self.owned & OWN_HANDS:
            self.hands = self.hands.copy()
            self.owned |= OWN_HANDS
        return self.hands

    def w_hand(self, seat: int) -> list[int]:
        bit = 1 << (OWN_HAND_SHIFT + seat)
        if not self.owned & bit:
            hands = self.w_hands()
            hands[seat] = hands[seat].copy()
            self.owned |= bit
        return self.hands[seat]

    def w_draw(self) -> list[int]:
        if not self.owned & OWN_DRAW:
            self.draw_pile = self.draw_pile.copy()
            self.owned |= OWN_DRAW
        return self.draw_pile

    def w_discard(self) -> list[int]:
        if not self.owned & OWN_DISCARD:
            self.discard = self.discard.copy()
            self.owned |= OWN_DISCARD
        return self.discard

    def w_uno(self) -> list[int]:
        if not self.owned & OWN_UNO:
            self.uno = self.uno.copy()
            self.owned |= OWN_UNO
        return self.uno

    def w_seats(self) -> list[SeatInfo]:
        if not self.owned & OWN_SEATS:
            self.seats = self.seats.copy()
            self.owned |= OWN_SEATS
        return self.seats

    def w_afk(self) -> list[int]:
        if not self.owned & OWN_AFK:
            self.afk_count = self.afk_count.copy()
            self.owned |= OWN_AFK
        return self.afk_count

    def w_deadlines(self) -> dict[str, Deadline]:
        if not self.owned & OWN_DEADLINES:
            self.deadlines = self.deadlines.copy()
            self.owned |= OWN_DEADLINES
        return self.deadlines

    def hands_moved(self) -> None:
        """Whole hands changed places inside an owned outer list: own no hand any more."""
        self.owned = (self.owned & ((1 << OWN_HAND_SHIFT) - 1)) | OWN_HANDS

    def clone(self) -> State:
        """A new state sharing the hands and piles (copy-on-write) and everything immutable
        (settings, deck, seat records), the deadlines dict included."""
        c = State(
            self.room,
            self.settings,
            self.deck,
            self.version,
            self.status,
            self.seats,
            self.host,
            self.match_id,
            self.round,
            self.scores,
            self.dealer,
            self.pairing,
            self.hands,
            self.draw_pile,
            self.discard,
            self.side,
            self.direction,
            self.turn,
            self.phase,
            self.color,
            self.pending,
            self.pending_stack,
            self.drawn,
            self.challenge,
            self.uno,
            self.afk_count,
            self.turn_serial,
            self.turn_key,
            self.deadlines,
            self.round_started_at,
            self.winner,
            self.match_winner,
            self.spectators,
            0,
        )
        self.owned = 0  # both now share every list
        return c


def any_exposed(uno: list[int]) -> bool:
    """`UNO_EXPOSED in uno`: compiled, this loop compares unboxed ints, where `in` makes a
    generic comparison per item (asked two or three times a move)."""
    for u in uno:  # noqa: SIM110 (any() with a generator is slower interpreted)
        if u == UNO_EXPOSED:
            return True
    return False


def new_table(room: str, settings: Settings) -> State:
    """An empty lobby: status "lobby", version 0, no seats."""
    return State(room=room, settings=settings, deck=deck_for(settings, None))


def seat_of(state: State, player_id: str) -> int | None:
    for i, s in enumerate(state.seats):
        if s.player_id == player_id:
            return i
    return None


_PLAIN = (
    "room",
    "version",
    "status",
    "host",
    "match_id",
    "round",
    "scores",
    "dealer",
    "hands",
    "draw_pile",
    "discard",
    "side",
    "direction",
    "turn",
    "phase",
    "color",
    "pending",
    "pending_stack",
    "drawn",
    "uno",
    "afk_count",
    "turn_serial",
    "turn_key",
    "round_started_at",
    "winner",
    "match_winner",
)


def state_to_json(state: State) -> dict[str, Any]:
    """Everything, secrets included: for stores and snapshots, never for a client."""
    out: dict[str, Any] = {k: getattr(state, k) for k in _PLAIN}
    out["hands"] = [list(h) for h in state.hands]
    out["draw_pile"] = list(state.draw_pile)
    out["discard"] = list(state.discard)
    out["scores"] = list(state.scores)
    out["uno"] = list(state.uno)
    out["afk_count"] = list(state.afk_count)
    out["settings"] = settings_to_json(state.settings, secrets=True)
    out["hooks_allowed"] = state.settings.hooks_allowed
    out["keep_departed"] = state.settings.keep_departed
    if state.settings.organised:  # (absent otherwise: every other room's JSON as before)
        out["organised"] = True
    out["pairing"] = list(state.pairing) if state.pairing is not None else None
    out["seats"] = [
        {
            "name": s.name,
            "player_id": s.player_id,
            "bot": s.bot,
            "connected": s.connected,
            "afk": s.afk,
            "left": s.left,
            "away_since": s.away_since,
        }
        for s in state.seats
    ]
    out["spectators"] = list(state.spectators)
    ch = state.challenge
    out["challenge"] = (
        None
        if ch is None
        else {"offender": ch.offender, "victim": ch.victim, "guilty": ch.guilty, "draw": ch.draw}
    )
    out["deadlines"] = {
        k: {"kind": d.kind, "at": d.at, "set_at": d.set_at, "seat": d.seat}
        for k, d in state.deadlines.items()
    }
    return out


# Settings parsed from their stored form, by that form: a shared store decodes a room's
# state at every commit another process made, and parsing the settings (validation included)
# was most of it. Settings are frozen, so one object serves every state that has them.
_STORED_SETTINGS: dict[tuple[Any, ...], Settings] = {}
_STORED_SETTINGS_MAX: Final = 512


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _stored_settings(data: dict[str, Any]) -> Settings:
    hooks, keep = bool(data.get("hooks_allowed")), bool(data.get("keep_departed"))
    organised = bool(data.get("organised"))
    key = (_frozen(data["settings"]), hooks, keep, organised)
    settings = _STORED_SETTINGS.get(key)
    if settings is None:
        settings = settings_from_json(data["settings"], hooks)
        if keep or organised:
            settings = replace(settings, keep_departed=keep, organised=organised)
        if len(_STORED_SETTINGS) >= _STORED_SETTINGS_MAX:
            _STORED_SETTINGS.clear()
        _STORED_SETTINGS[key] = settings
    return settings


def state_from_json(data: dict[str, Any]) -> State:
    settings = _stored_settings(data)
    pairing = tuple(data["pairing"]) if data.get("pairing") is not None else None
    st = State(room=data["room"], settings=settings, deck=deck_for(settings, pairing))
    for k in _PLAIN:
        setattr(st, k, data[k])
    st.hands = [list(h) for h in data["hands"]]
    st.draw_pile = list(data["draw_pile"])
    st.discard = list(data["discard"])
    st.scores = list(data["scores"])
    st.uno = list(data["uno"])
    st.afk_count = list(data["afk_count"])
    st.pairing = pairing
    st.seats = [SeatInfo(**s) for s in data["seats"]]
    st.spectators = tuple(data.get("spectators", ()))  # absent from older snapshots
    ch = data.get("challenge")
    st.challenge = PendingChallenge(**ch) if ch else None
    st.deadlines = {k: Deadline(**d) for k, d in data["deadlines"].items()}
    return st
