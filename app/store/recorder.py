"""Where completed rounds go: the interface between the rooms and the match database.

The room calls `round_completed` for a `round_ended` event *before* publishing it; when the
call returns, the round is durable (in the database, or in an outbox that retries until the
database takes it). Writes are idempotent on (match_id, number): a retry never stores a round
twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import orjson


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    seat: int
    player_id: str
    name: str
    bot: bool = False


@dataclass(frozen=True, slots=True)
class RoundRecord:
    match_id: str
    room: str
    settings: dict[str, Any]
    players: tuple[PlayerRecord, ...]
    number: int
    winner: int | None
    reason: str
    points: tuple[int, ...]
    scores: tuple[int, ...]  # cumulative totals after this round
    hands: tuple[tuple[dict[str, Any], ...], ...]  # the cards left in each hand, as on the wire
    started_at: int  # ms since epoch
    ended_at: int
    match_over: bool = False
    match_winner: int | None = None
    snapshot: dict[str, Any] | None = field(default=None, compare=False)  # state_to_json


@dataclass(frozen=True, slots=True)
class MemberRecord:
    """A credential of a room, as the room store keeps it: the token's SHA-256, never the token."""

    room: str
    token_hash: str
    member_id: str  # the player id (a seat) or the spectator id
    role: str  # "player" or "spectator"
    name: str
    joined_at: int  # ms since epoch


@dataclass(frozen=True, slots=True)
class RoomCheckpoint:
    """A room as it stood at `version` (app/rooms/checkpoints.py), to restore it from when its
    shared store lost it: a lobby or a round in progress, not only a round end."""

    room: str
    version: int
    # engine.state_to_json, or that already encoded as JSON (the bytes a shared store's commit
    # sent: not encoded again). Read back, always the decoded form.
    state: dict[str, Any] | bytes
    created_at: int
    match_id: str | None
    # token digest → (member id, role, name): the credentials the room held then
    members: dict[str, tuple[str, str, str]]
    at: int  # when it was taken (ms since epoch)


def masked(identifier: str) -> str:
    """A match id (or room code) as logs show it: enough to correlate, not to look it up."""
    return identifier[:4] + "…"


class RecorderUnavailable(RuntimeError):
    """The match database cannot be read now (the HTTP layer answers 503)."""


class MatchRecorder(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def match_started(
        self,
        match_id: str,
        room: str,
        settings: dict[str, Any],
        players: tuple[PlayerRecord, ...],
        started_at: int,
    ) -> None:
        """Called when a match is dealt; best effort (a round record also creates the match)."""
        ...

    async def round_completed(self, record: RoundRecord) -> None: ...

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        """The PROTOCOL `GET /api/matches/{match_id}` body, or None.

        Raises RecorderUnavailable when the database cannot be read.
        """
        ...

    async def latest_snapshot(self, room: str) -> dict[str, Any] | None:
        """The room's state (RoundRecord.snapshot) at its latest completed round, or None: after
        a restart the room is restored from it and deals its next round."""
        ...

    async def member_added(self, member: MemberRecord) -> None:
        """Called when a token is handed out (room creation, join, spectate). Returns at once:
        the write happens in the background and is retried while the database is down
        (idempotent on (room, token_hash)); only a process dying meanwhile loses it."""
        ...

    async def room_members(self, room: str) -> list[MemberRecord]:
        """Every credential recorded for the room (including writes still queued).

        Raises RecorderUnavailable when the database cannot be read.
        """
        ...

    async def versions_reserved(self, room: str, ceiling: int, at: int) -> None:
        """The room may send versions up to `ceiling` (app/rooms/versions.py). Returns at once,
        written in the background like `member_added`; a ceiling never goes down."""
        ...

    async def version_ceiling(self, room: str) -> int:
        """The highest ceiling recorded for the room (0: none), queued writes included.

        Raises RecorderUnavailable when the database cannot be read.
        """
        ...

    async def checkpoint(self, checkpoints: Sequence[RoomCheckpoint]) -> None:
        """Store rooms' checkpoints, one transaction; a room's stored checkpoint is replaced
        only by a newer version (several processes may checkpoint one room). Raises when the
        database cannot take them (the caller keeps them for its next try)."""
        ...

    async def latest_checkpoint(self, room: str) -> RoomCheckpoint | None:
        """The room's newest checkpoint, or None.

        Raises RecorderUnavailable when the database cannot be read.
        """
        ...

    async def prune(self, rooms_before: int, matches_before: int) -> tuple[int, int]:
        """Retention (ms since epoch): forget the rows of rooms idle since `rooms_before`, mark
        `abandoned` the running matches with no round since `matches_before`; returns
        (rooms forgotten, matches abandoned)."""
        ...

    async def healthy(self) -> bool: ...


class MemoryRecorder:
    """Keeps matches in a dict: the default when no database is configured (and for tests)."""

    def __init__(self) -> None:
        self._matches: dict[str, dict[str, Any]] = {}
        self._rounds: dict[str, dict[int, RoundRecord]] = {}
        self._snapshots: dict[str, dict[str, Any]] = {}
        self._members: dict[str, dict[str, MemberRecord]] = {}  # room → token hash → member
        self._ceilings: dict[str, tuple[int, int]] = {}  # room → (ceiling, at)
        self._abandoned: set[str] = set()
        self._started: dict[str, int] = {}  # match → started_at
        # Each checkpoint's state kept as JSON, as the database keeps it: thousands of rooms'
        # nested dicts would be walked by every collection of the garbage collector.
        self._checkpoints: dict[str, tuple[RoomCheckpoint, bytes]] = {}

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def match_started(
        self,
        match_id: str,
        room: str,
        settings: dict[str, Any],
        players: tuple[PlayerRecord, ...],
        started_at: int,
    ) -> None:
        self._matches.setdefault(match_id, _head(match_id, room, settings, players))
        self._rounds.setdefault(match_id, {})
        self._started.setdefault(match_id, started_at)

    async def round_completed(self, record: RoundRecord) -> None:
        self._matches.setdefault(
            record.match_id, _head(record.match_id, record.room, record.settings, record.players)
        )
        self._started.setdefault(record.match_id, record.started_at)
        # A duplicate (a retry) keeps the first record, as the database does, except that a
        # repeat may add the match's end (the room learned of it after the round).
        rounds = self._rounds.setdefault(record.match_id, {})
        first = rounds.setdefault(record.number, record)
        if record.match_over and not first.match_over:
            rounds[record.number] = replace(
                first, match_over=True, match_winner=record.match_winner
            )
        if record.snapshot is not None:
            self._snapshots[record.room] = record.snapshot

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        head = self._matches.get(match_id)
        if head is None:
            return None
        rounds = [self._rounds[match_id][n] for n in sorted(self._rounds[match_id])]
        if not rounds:
            return {
                **head,
                "status": "abandoned" if match_id in self._abandoned else "running",
                "rounds": [],
                "scores": [0] * len(head["players"]),
                "winner": None,
            }
        last = rounds[-1]
        return {
            **head,
            "status": "finished"
            if last.match_over
            else "abandoned"
            if match_id in self._abandoned
            else "running",
            "rounds": [
                {
                    "number": r.number,
                    "winner": r.winner,
                    "points": list(r.points),
                    "ended_at": r.ended_at,
                }
                for r in rounds
            ],
            "scores": list(last.scores),
            "winner": last.match_winner if last.match_over else None,
        }

    async def latest_snapshot(self, room: str) -> dict[str, Any] | None:
        return self._snapshots.get(room)

    async def member_added(self, member: MemberRecord) -> None:
        self._members.setdefault(member.room, {}).setdefault(member.token_hash, member)

    async def room_members(self, room: str) -> list[MemberRecord]:
        return list(self._members.get(room, {}).values())

    async def versions_reserved(self, room: str, ceiling: int, at: int) -> None:
        if self._ceilings.get(room, (0, 0))[0] < ceiling:
            self._ceilings[room] = (ceiling, at)

    async def version_ceiling(self, room: str) -> int:
        return self._ceilings.get(room, (0, 0))[0]

    async def checkpoint(self, checkpoints: Sequence[RoomCheckpoint]) -> None:
        for cp in checkpoints:
            known = self._checkpoints.get(cp.room)
            if known is None or known[0].version < cp.version:
                state = cp.state
                if isinstance(state, bytes):
                    self._checkpoints[cp.room] = (cp, state)  # (no copy made of the record)
                else:
                    blob = orjson.dumps(state, option=orjson.OPT_NON_STR_KEYS)
                    self._checkpoints[cp.room] = (replace(cp, state={}), blob)

    async def latest_checkpoint(self, room: str) -> RoomCheckpoint | None:
        known = self._checkpoints.get(room)
        return None if known is None else replace(known[0], state=orjson.loads(known[1]))

    async def prune(self, rooms_before: int, matches_before: int) -> tuple[int, int]:
        abandoned = 0
        for match_id, started in self._started.items():
            played = list(self._rounds.get(match_id, {}).values())
            if match_id in self._abandoned or any(r.match_over for r in played):
                continue
            last = max([started, *(r.ended_at for r in played)])
            if last < matches_before:
                self._abandoned.add(match_id)
                abandoned += 1
        active: dict[str, int] = {}
        for room, members in self._members.items():
            active[room] = max(m.joined_at for m in members.values()) if members else 0
        for room, (_, at) in self._ceilings.items():
            active[room] = max(active.get(room, 0), at)
        for by_number in self._rounds.values():
            for r in by_number.values():
                active[r.room] = max(active.get(r.room, 0), r.ended_at)
        for room, (cp, _) in self._checkpoints.items():
            active[room] = max(active.get(room, 0), cp.at)
        held = (
            self._members.keys()
            | self._snapshots.keys()
            | self._ceilings.keys()
            | self._checkpoints.keys()
        )
        idle = [room for room in held if active.get(room, 0) < rooms_before]
        for room in idle:
            self._members.pop(room, None)
            self._snapshots.pop(room, None)
            self._ceilings.pop(room, None)
            self._checkpoints.pop(room, None)
        return len(idle), abandoned

    async def healthy(self) -> bool:
        return True


def _head(
    match_id: str, room: str, settings: dict[str, Any], players: tuple[PlayerRecord, ...]
) -> dict[str, Any]:
    # No room code: a match id gets shared (a results link); the room code lets one watch.
    return {
        "match_id": match_id,
        "settings": settings,
        "players": [{"seat": p.seat, "player_id": p.player_id, "name": p.name} for p in players],
    }
