"""Room records (the table state, who holds which credential, the command-id cache) and the
bounded per-room history of commits used for the fan-out and for `since` resume.

A commit is what one command, timer or bot move produced: its events and the state after the
last of them. Every recipient gets one `events` frame per commit (PROTOCOL v2), so the history
keeps commit boundaries. It keeps the state only for the newest commits (`STATES_KEPT`): a view
is only ever built of a commit's end, and a client further behind than that gets the missed
commits merged into one frame with the newest view. Events in the history hold no state.

The interface is shaped for a shared store: `commit` succeeds only when the stored version is
still `expected_version` (compare-and-set), so a Redis version can replace the memory one
without touching the rooms. The memory version hands out the live record; the rooms hold the
room's lock (one writer) around load → commit.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import orjson

from app.engine.events import Event
from app.engine.state import State
from app.kept_json import dumps_kept

Role = Literal["player", "spectator"]

# How many applied command ids are remembered per player (a resend older than this is rare:
# clients resend only what is still unacknowledged).
ACK_CACHE_SIZE = 256
# Commits whose end state is kept (for the views of clients a little behind, and the `stale`
# check of a command decided on a recent view).
STATES_KEPT = 8
# Commits whose encoded frames are kept: the newest one is read by every socket of the room
# at once; a socket further behind builds its own frame.
FRAMES_KEPT = 2


class Commit:
    """The events of one command, timer or bot move, and the state after the last of them.

    `cache` holds what the transport encodes of it for each recipient (app/transport/frames.py),
    so a commit is redacted, viewed and encoded once per seat, however many sockets read it.
    The store drops the state and the cache once the commit is old, and `pack` keeps an old
    commit's events only as JSON bytes: the garbage collector walks every container object the
    rooms' histories hold, at every collection that reaches them, and bytes are not one.
    """

    __slots__ = ("_events", "_packed", "cache", "first", "last", "size", "state")

    def __init__(self, events: Sequence[Event], state: State | None) -> None:
        assert events, "a commit has at least one event"
        self._events: tuple[Event, ...] | None = tuple(events)
        self._packed = b""
        self.first = events[0].version
        self.last = events[-1].version
        self.size = len(events)
        self.state = state
        self.cache: object | None = None

    @property
    def events(self) -> tuple[Event, ...]:
        """The events; a packed commit builds new ones at each read and keeps none of them,
        so a read (a resume, a welcome's log) leaves the history as small as it was."""
        if self._events is not None:
            return self._events
        return tuple(_unpacked(self._packed))

    @property
    def packed(self) -> bool:
        return self._events is None

    @property
    def packed_bytes(self) -> int:
        return len(self._packed)

    def forget_state(self) -> None:
        self.state = None
        self.cache = None

    def pack(self) -> None:
        """Keep the events as one JSON blob (their public and private parts, exactly)."""
        if self._events is None:
            return
        self._packed = dumps_kept(
            [
                [e.kind, e.version, e.public, {str(seat): part for seat, part in e.private.items()}]
                for e in self._events
            ]
        )
        self._events = None


def _unpacked(blob: bytes) -> list[Event]:
    return [
        Event(kind, version, public, {int(seat): part for seat, part in private.items()})
        for kind, version, public, private in orjson.loads(blob)
    ]


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
    # A shared store handed out its newest known record without reading the stored one
    # (app/store/redis/rooms.py `load`): a commit of it is still compare-and-set, but a
    # refusal decided on it must be decided again on the stored record (RoomService.submit).
    assumed: bool = False
    # What the store that handed the record out needs to commit it (its own business).
    origin: object | None = field(default=None, repr=False, compare=False)

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
    async def create(
        self, record: RoomRecord, events: list[Event], *, unopened_ttl_ms: int | None = None
    ) -> bool:
        """Store a new room; False when the code is taken. `unopened_ttl_ms`: where rooms
        expire by themselves (Redis), this one expires that soon unless someone uses it
        (a socket, a join: a commit someone made gives it the full idle time)."""
        ...

    async def load(self, room: str) -> RoomRecord | None: ...

    async def commit(
        self, room: str, expected_version: int, record: RoomRecord, events: list[Event]
    ) -> bool:
        """Store `record` and append `events` if the stored version is `expected_version`."""
        ...

    async def commits_since(self, room: str, version: int) -> list[Commit] | None:
        """The commits after `version`, in order; None when the history no longer holds them
        all. `version` must be a commit boundary (any version a client was sent is)."""
        ...

    async def events_since(self, room: str, version: int) -> list[Event] | None:
        """The events after `version`, in order; None when the history no longer holds them."""
        ...

    async def state_at(self, room: str, version: int) -> State | None:
        """The state at `version` if a kept commit ends there (or it is the current one)."""
        ...

    async def rooms(self) -> list[str]:
        """Every stored room code (for the idle-room sweep)."""
        ...

    def rooms_held(self) -> int | None:
        """How many rooms this process keeps in its memory; None when they live elsewhere
        (Redis), where this process's `MAX_ROOMS` does not apply."""
        ...

    async def delete(self, room: str) -> None: ...

    async def healthy(self) -> bool: ...

    async def close(self) -> None: ...


class MemoryRoomStore:
    def __init__(self, history_limit: int = 512, history_max_bytes: int = 128 * 1024) -> None:
        self._history_limit = max(1, history_limit)
        self._history_max_bytes = max(1, history_max_bytes)
        self._records: dict[str, RoomRecord] = {}
        self._history: dict[str, _History] = {}
        # Committed versions, kept apart from the records because a writer may update the
        # live record before it commits.
        self._versions: dict[str, int] = {}
        # The code of each room created or committed to is added here: the checkpointer's set
        # of changed rooms (app/rooms/checkpoints.py), when the app keeps checkpoints.
        self.written: set[str] | None = None

    async def create(
        self, record: RoomRecord, events: list[Event], *, unopened_ttl_ms: int | None = None
    ) -> bool:
        if record.code in self._records:
            return False
        self._records[record.code] = record
        self._versions[record.code] = record.version
        history = self._history[record.code] = _History(
            self._history_limit, self._history_max_bytes
        )
        if events:
            history.append(Commit(events, record.state))
        if self.written is not None:
            self.written.add(record.code)
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
        if events:
            self._history[room].append(Commit(events, record.state))
        if self.written is not None:
            self.written.add(room)
        return True

    def held(self, room: str) -> RoomRecord | None:
        """The room's record (the checkpointer's read; a writer sets a record's new state
        and commits it with no await in between, so its state is always a committed one)."""
        return self._records.get(room)

    def encoded_state(self, room: str, state: State) -> bytes | None:
        return None  # nothing is encoded on this store's commits

    async def commits_since(self, room: str, version: int) -> list[Commit] | None:
        current = self._versions.get(room)
        if current is None or version < 0 or version > current:
            return None
        if version == current:
            return []
        return self._history[room].since(version)

    async def events_since(self, room: str, version: int) -> list[Event] | None:
        commits = await self.commits_since(room, version)
        if commits is None:
            return None
        return [e for c in commits for e in c.events if e.version > version]

    async def state_at(self, room: str, version: int) -> State | None:
        record = self._records.get(room)
        if record is None:
            return None
        if version == self._versions.get(room):
            return record.state
        return self._history[room].state_at(version)

    async def healthy(self) -> bool:
        return True

    async def close(self) -> None:
        return None

    async def rooms(self) -> list[str]:
        return list(self._records)

    def rooms_held(self) -> int | None:
        return len(self._records)

    async def delete(self, room: str) -> None:
        self._records.pop(room, None)
        self._versions.pop(room, None)
        self._history.pop(room, None)


class _History:
    """A room's recent commits: at most `limit` events and `max_bytes` of packed ones in
    all, states of the newest only."""

    __slots__ = ("_bytes", "_commits", "_events", "_limit", "_max_bytes")

    def __init__(self, limit: int, max_bytes: int = 128 * 1024) -> None:
        self._limit = limit
        self._max_bytes = max_bytes
        self._commits: deque[Commit] = deque()
        self._events = 0
        self._bytes = 0  # of the packed commits

    def append(self, commit: Commit) -> None:
        for event in commit.events:
            event.after = None  # the commit holds the one state a view is built of
        self._commits.append(commit)
        self._events += commit.size
        if len(self._commits) > FRAMES_KEPT:
            # Read by every socket of the room at once only while it is among the newest;
            # older, it is read by a resume or a welcome's log now and then.
            older = self._commits[-FRAMES_KEPT - 1]
            older.cache = None
            older.pack()
            self._bytes += older.packed_bytes
        if len(self._commits) > STATES_KEPT:
            self._commits[-STATES_KEPT - 1].forget_state()
        while (self._events > self._limit or self._bytes > self._max_bytes) and len(
            self._commits
        ) > 1:
            dropped = self._commits.popleft()
            self._events -= dropped.size
            self._bytes -= dropped.packed_bytes

    def since(self, version: int) -> list[Commit] | None:
        commits = self._commits
        if not commits or commits[0].first > version + 1:
            return None
        # The common reader is a socket one commit behind (every socket of the room, on each
        # commit): look at the newest end first; indexing a deque walks its blocks.
        newest = commits[-1]
        if newest.last <= version:
            return []
        if newest.first == version + 1:
            return [newest]
        # Binary search on the commits' first versions (they grow by the commit's size).
        lo, hi = 0, len(commits)
        while lo < hi:
            mid = (lo + hi) // 2
            if commits[mid].last <= version:
                lo = mid + 1
            else:
                hi = mid
        return [commits[i] for i in range(lo, len(commits))]

    def state_at(self, version: int) -> State | None:
        for commit in reversed(self._commits):
            if commit.last == version:
                return commit.state
            if commit.last < version or commit.state is None:
                return None
        return None
