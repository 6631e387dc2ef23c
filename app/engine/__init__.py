"""The pure UNO rules engine: the contract of docs/architecture.md "The engine contract"."""

from __future__ import annotations

from app.engine.actions import (
    Accept,
    Action,
    AddBot,
    Catch,
    Challenge,
    ChangeSettings,
    Chat,
    Choose,
    DeclareUno,
    Draw,
    Join,
    Leave,
    Pass,
    Play,
    RemoveBot,
    SetConnected,
    Start,
    Timeout,
    Watching,
)
from app.engine.errors import EngineError
from app.engine.events import Event, redact
from app.engine.legal import legal_actions, moves
from app.engine.rules import apply
from app.engine.settings import CustomWild, Settings, parse_settings, settings_to_json
from app.engine.state import (
    Deadline,
    State,
    new_table,
    seat_of,
    state_from_json,
    state_to_json,
)
from app.engine.timers import deadlines
from app.engine.view import deck_listing, view


def bot_seats(state: State) -> list[int]:
    """Seats a bot plays now: bot seats, and human seats taken over after AFK timeouts."""
    return [i for i, s in enumerate(state.seats) if s.bot or s.afk]


__all__ = [
    "Accept",
    "Action",
    "AddBot",
    "Catch",
    "Challenge",
    "ChangeSettings",
    "Chat",
    "Choose",
    "CustomWild",
    "Deadline",
    "DeclareUno",
    "Draw",
    "EngineError",
    "Event",
    "Join",
    "Leave",
    "Pass",
    "Play",
    "RemoveBot",
    "SetConnected",
    "Settings",
    "Start",
    "State",
    "Timeout",
    "Watching",
    "apply",
    "bot_seats",
    "deadlines",
    "deck_listing",
    "legal_actions",
    "moves",
    "new_table",
    "parse_settings",
    "redact",
    "seat_of",
    "settings_to_json",
    "state_from_json",
    "state_to_json",
    "view",
]
