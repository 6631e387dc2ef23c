"""The command a client sends to change a room, as the rooms take it.

The transport parses frames into these (app/transport/commands.py); the rooms apply them.
Defined here, below the transport, so that no import runs from the rooms back up to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.engine import actions as act


@dataclass(frozen=True, slots=True)
class Command:
    """Any command that changes the room: `action` is the engine action it maps to."""

    type: str
    command_id: str
    at: int | None
    action: act.Action = field(compare=False)
