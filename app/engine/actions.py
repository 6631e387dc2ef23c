"""Everything that can change a table, as plain immutable values.

Player actions mirror the client frames of PROTOCOL.md; system actions (seat ``None``)
come from the server: joins, connection changes and timer expiries. The engine decides
what each one means; the server only decides *when* a system action happens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# --- lobby and table management ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Join:
    """System: a new human takes the lowest free seat (refused when full or started)."""

    name: str
    player_id: str


@dataclass(frozen=True, slots=True)
class Leave:
    """A player leaves: in the lobby the seat is freed, in a game a bot keeps the seat."""


@dataclass(frozen=True, slots=True)
class SetConnected:
    """System: a seat's socket came or went (emits ``connected`` / ``disconnected``)."""

    seat: int
    connected: bool


@dataclass(frozen=True, slots=True)
class Watching:
    """System: a spectator's socket came or went (emits ``spectator_joined`` /
    ``spectator_left``; the views show how many watch)."""

    spectator_id: str
    name: str
    connected: bool


@dataclass(frozen=True, slots=True)
class ChangeSettings:
    """Host only, in the lobby: a partial settings object, validated by the engine."""

    settings: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AddBot:
    pass


@dataclass(frozen=True, slots=True)
class Back:
    """The player of an away (AFK) seat is back: the bot stops playing it at once, without
    waiting for the player's next move (which may be many turns away)."""


@dataclass(frozen=True, slots=True)
class RemoveBot:
    """Host only, in the lobby: free a bot's seat, or with `any_seat` anyone else's (a player
    who went away keeps the seat otherwise, and would be dealt in)."""

    seat: int
    any_seat: bool = False


@dataclass(frozen=True, slots=True)
class Start:
    """Host only: deal the first round, the next round, or a new match (PROTOCOL `start`).

    `organiser`: sent by the tournament that owns the table, never parsed from a client; a
    tournament table's lobby is dealt only so (app/tournaments/referee.py)."""

    organiser: bool = False


@dataclass(frozen=True, slots=True)
class Chat:
    text: str
    # Set by the server for a spectator's message (their name); a player's chat has None.
    spectator: str | None = None


# --- play -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Choose:
    color: str


@dataclass(frozen=True, slots=True)
class Play:
    card: int
    color: str | None = None
    target: int | None = None
    uno: bool = False


@dataclass(frozen=True, slots=True)
class Draw:
    pass


@dataclass(frozen=True, slots=True)
class Pass:
    pass


@dataclass(frozen=True, slots=True)
class DeclareUno:
    pass


@dataclass(frozen=True, slots=True)
class Catch:
    seat: int


@dataclass(frozen=True, slots=True)
class Challenge:
    pass


@dataclass(frozen=True, slots=True)
class Accept:
    pass


# --- timers ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Timeout:
    """System: the deadline `kind` set at state version `set_at` has passed.

    Ignored (no events, state unchanged) when that deadline no longer exists in the state
    or was set at another version: a timer never fires for a state that has moved on.
    """

    kind: str  # "turn" | "uno" | "challenge" | "next_round" | "host" | "lobby_drop"
    set_at: int


Action = (
    Join
    | Leave
    | Back
    | SetConnected
    | Watching
    | ChangeSettings
    | AddBot
    | RemoveBot
    | Start
    | Chat
    | Choose
    | Play
    | Draw
    | Pass
    | DeclareUno
    | Catch
    | Challenge
    | Accept
    | Timeout
)
