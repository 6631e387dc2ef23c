"""Tournament records and where they live: in memory now (one process, like the rooms).

The interface is the small one a Redis or SQL store would implement when the service scales
out (docs/tournaments.md); the memory store hands out the live record and the service holds
the tournament's lock around changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from app.tournaments.core import RoundSpec


@dataclass(slots=True)
class EntrantRecord:
    entrant_id: str
    name: str
    token_hash: str  # SHA-256 of the entrant's token; the token itself is never kept


@dataclass(slots=True)
class TableRecord:
    room: str
    # entrant id → the room's player id of its seat
    players: dict[str, str] = field(default_factory=dict)
    # entrant id → the seat token, handed to that entrant by /me. Kept in memory only (a
    # shared store would keep it encrypted under a server key); never in a public answer.
    seat_tokens: dict[str, str] = field(default_factory=dict)
    bots: int = 0
    status: str = "waiting"  # waiting (lobby) | playing | finished
    match_id: str | None = None
    start_by: int = 0  # ms: the match starts by then even if some entrant has not connected


@dataclass(slots=True)
class TournamentRecord:
    code: str
    name: str
    host_name: str
    host_hash: str  # SHA-256 of the host token
    format: str
    table_size: int
    advance: int
    swiss_rounds: int
    match: dict[str, int]
    fill_with_bots: bool
    settings: dict[str, Any]  # the validated room settings of every table (wire form)
    grace_seconds: float
    created_at: int
    touched_at: int = 0  # ms: the last registration, removal, start or table result
    status: str = "registering"  # registering | running | finished
    entrants: dict[str, EntrantRecord] = field(default_factory=dict)  # registration order
    rounds: list[RoundSpec] = field(default_factory=list)
    tables: dict[str, TableRecord] = field(default_factory=dict)  # room code → table
    winner: str | None = None
    error: str | None = None  # why the tournament stopped, when a table could not be made


class TournamentStore(Protocol):
    async def create(self, record: TournamentRecord) -> bool:
        """Store a new tournament; False when the code is taken."""
        ...

    async def load(self, code: str) -> TournamentRecord | None: ...

    async def save(self, record: TournamentRecord) -> None: ...

    async def codes(self) -> list[str]: ...

    async def delete(self, code: str) -> None: ...


class MemoryTournamentStore:
    def __init__(self) -> None:
        self._records: dict[str, TournamentRecord] = {}

    async def create(self, record: TournamentRecord) -> bool:
        if record.code in self._records:
            return False
        self._records[record.code] = record
        return True

    async def load(self, code: str) -> TournamentRecord | None:
        return self._records.get(code)

    async def save(self, record: TournamentRecord) -> None:
        self._records[record.code] = record

    async def codes(self) -> list[str]:
        return list(self._records)

    async def delete(self, code: str) -> None:
        self._records.pop(code, None)
