"""Room records (the table state, who holds which credential, the command-id cache) and the
bounded per-room event history used for `since` resume.

The interface is shaped for a shared store: `commit` succeeds only when the stored version is
still `expected_version` (compare-and-set), so a Redis version can replace the memory one
without touching the rooms. The memory version hands out the live record; the rooms hold the
room's lock (one writer) around load → commit.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Literal, Protocol

from app.engine.events import Event
from app.engine.state import State

Role = Literal["player", "spectator"]

# How many applied command ids are remembered per player (a resend older than this is rare:
# clients resend only what is still unacknowledged).
ACK_CACHE_SIZE = 256


@dataclass(slots=True)
class Member:
    """Who a token belongs to. The token itself is never stored, only its SHA-256."""

    member_id: str
    role: Role
    name: str


@dataclass(slots=True)
class RoomRecord:
    code: str
    state: State
    created_at: int
    members: dict[str, Member] = field(default_factory=dict)  # token digest → member
    acks: dict[str, OrderedDict[str, int]] = field(default_factory=dict)
    match_id: str | None = None  # the last match announced to the recorder

    @property
    def version(self) -> int:
        return self.state.version

    def remember_ack(self, member_id: str, command_id: str, version: int) -> None:
        cache = self.acks.setdefault(member_id, OrderedDict())
        cache[command_id] = version
        while len(cache) > ACK_CACHE_SIZE:
            cache.popitem(last=False)

    def known_ack(self, member_id: str, command_id: str) -> int | None:
        cache = self.acks.get(member_id)
        return None if cache is None else cache.get(command_id)

    def member(self, token: str) -> Member | None:
        return self.members.get(token_digest(token))

    def add_member(self, token: str, member: Member) -> None:
        self.members[token_digest(token)] = member


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class RoomStore(Protocol):
    async def create(self, record: RoomRecord, events: list[Event]) -> bool:
        """Store a new room; False when the code is taken."""
        ...

    async def load(self, room: str) -> RoomRecord | None: ...

    async def commit(
        self, room: str, expected_version: int, record: RoomRecord, events: list[Event]
    ) -> bool:
        """Store `record` and append `events` if the stored version is `expected_version`."""
        ...

    async def events_since(self, room: str, version: int) -> list[Event] | None:
        """The events after `version`, in order; None when the history no longer holds them."""
        ...

    async def rooms(self) -> list[str]:
        """Every stored room code (for the idle-room sweep)."""
        ...

    async def delete(self, room: str) -> None: ...

    async def healthy(self) -> bool: ...

    async def close(self) -> None: ...


class MemoryRoomStore:
    def __init__(self, history_limit: int = 512) -> None:
        self._history_limit = max(1, history_limit)
        self._records: dict[str, RoomRecord] = {}
        self._history: dict[str, deque[Event]] = {}
        # Committed versions, kept apart from the records because a writer may update the
        # live record before it commits.
        self._versions: dict[str, int] = {}

    async def create(self, record: RoomRecord, events: list[Event]) -> bool:
        if record.code in self._records:
            return False
        self._records[record.code] = record
        self._versions[record.code] = record.version
        self._history[record.code] = deque(events, maxlen=self._history_limit)
        return True

    async def load(self, room: str) -> RoomRecord | None:
        return self._records.get(room)

    async def commit(
        self, room: str, expected_version: int, record: RoomRecord, events: list[Event]
    ) -> bool:
        if self._versions.get(room) != expected_version:
            return False
        self._records[room] = record
        self._versions[room] = record.version
        self._history[room].extend(events)
        return True

    async def events_since(self, room: str, version: int) -> list[Event] | None:
        current = self._versions.get(room)
        if current is None or version < 0 or version > current:
            return None
        if version == current:
            return []
        history = self._history[room]
        if not history or history[0].version > version + 1:
            return None
        # Versions are consecutive, so the start index is arithmetic, not a scan.
        start = version + 1 - history[0].version
        return [history[i] for i in range(start, len(history))]

    async def healthy(self) -> bool:
        return True

    async def close(self) -> None:
        return None

    async def rooms(self) -> list[str]:
        return list(self._records)

    async def delete(self, room: str) -> None:
        self._records.pop(room, None)
        self._versions.pop(room, None)
        self._history.pop(room, None)
