"""What the tournaments need from the rooms, and nothing more: open a table with its settings
and seats, look at a table, send the table's host commands, read a finished match, and hear
which tables moved.

The rooms implement it (app/rooms/tables.py); the tournaments never see the room store, the
bus, the recorder or the rooms' configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.engine import actions as act


@dataclass(frozen=True, slots=True)
class TableSeat:
    player_id: str
    bot: bool
    connected: bool
    left: bool


@dataclass(frozen=True, slots=True)
class TableState:
    """A table's room as the tournament judges it."""

    status: str  # the room's status: lobby | playing | round_over | match_over
    match_id: str | None
    host: int | None  # the host seat
    seats: tuple[TableSeat, ...]
    settings: dict[str, Any]  # wire form, with the secret test hooks (to compare with the plan)

    def seat_of(self, player_id: str) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.player_id == player_id), None)


@dataclass(frozen=True, slots=True)
class OpenedTable:
    room: str
    players: tuple[str, ...]  # the room's player id of each named seat, in order


# Told (room, the kinds of the committed events) after a room's commit, in the process that
# made it; called synchronously from the commit, so it must only schedule work.
CommitListener = Callable[[str, frozenset[str]], None]


class Tables(Protocol):
    @property
    def test_hooks(self) -> bool:
        """Whether room settings may carry the test hooks (deck order, bot delay)."""
        ...

    @property
    def idle_seconds(self) -> int:
        """How long an untouched room is kept; an idle tournament is kept as long."""
        ...

    async def open_table(
        self, names: Sequence[str], settings: Mapping[str, Any], bots: int
    ) -> OpenedTable:
        """A new room with these settings, `names` seated in order (the first is its host),
        then `bots` bots."""
        ...

    async def table(self, room: str) -> TableState | None:
        """The room now; None when there is no such room."""
        ...

    async def grant_seat(self, room: str, player_id: str, token: str) -> bool:
        """Let `token` hold that player's seat (idempotent); False when the room has no such
        player (or no such room)."""
        ...

    async def as_host(self, room: str, action: act.Action) -> str | None:
        """Send a host command (start, settings, add_bot, remove_bot) as the room's host seat;
        the refusal's error code, or None when it was applied."""
        ...

    async def match_result(self, match_id: str) -> Mapping[str, Any] | None:
        """The stored match (GET /api/matches/{id}); None while it is not stored."""
        ...

    def on_commit(self, listener: CommitListener) -> None:
        """Call `listener` after every commit this process makes to any room."""
        ...
