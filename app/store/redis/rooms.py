"""RoomStore on Redis: the room's record, its history of commits and its wake-up, shared by
every process (the keys and functions are described in uno.lua beside this file).

A commit is one call of the `uno_commit` function: compare-and-set on the room's write
counter, duplicate command ids refused, state, events, acks, wake-up, completed rounds and
the notice (which carries the commit itself, app/bus/notices.py; published only when another
process subscribes to the room, this one's subscribers are told by `announce`) in one atomic
step. Reads are one function call too, on the shared pipelined connection (pipe.py).

Decoding a state costs far more than fetching it, so each process keeps what it decoded,
committed or took from a notice (`heard`): the newest record per room (by write counter), the
states of recent commits, and the Commit objects themselves (so that every socket of this
process shares a commit's encoded frames). States are immutable once built, so sharing them
is safe. A process that hears a room's notices (`listening`) and holds every commit up to the
newest one heard reads nothing back, and applies a command on the record it holds
(`RoomRecord.assumed`: the compare-and-set still decides).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import orjson
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app import engine
from app.bus import notices
from app.engine.events import Event
from app.engine.state import State
from app.store.redis.client import call_function, guard, load_functions
from app.store.redis.pipe import RedisPipe
from app.store.rooms import FRAMES_KEPT, STATES_KEPT, Commit, Member, RoomRecord
from app.store.shared import (
    CommitConflict,
    DuplicateCommand,
    current_command,
)

log = logging.getLogger(__name__)

# Rooms whose newest record, commits and states a process keeps decoded, at least (the app
# raises it to its connection limit: app/rooms/cluster.py).
ROOMS_CACHED_MIN = 4096
# Cached ack entries per room (the memory store keeps 256 per member).
ACK_CACHE_SIZE = 2048
# Rooms per call of the watchdog's version check (one call holds Redis for ~0.3 ms per 1,000).
VERSIONS_PER_CALL = 1000
# A room's own keys, in the order the commit function takes them (uno.lua).
_ROOM_KEYS = ("state", "events", "snaps", "snapv", "cmds", "cmdq")

K = TypeVar("K")
V = TypeVar("V")


class _Lru(Generic[K, V]):
    __slots__ = ("_data", "_size")

    def __init__(self, size: int) -> None:
        self._data: OrderedDict[K, V] = OrderedDict()
        self._size = size

    def get(self, key: K) -> V | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self._size:
            self._data.popitem(last=False)

    def pop(self, key: K) -> V | None:
        return self._data.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._data


@dataclass(slots=True)
class _Loaded:
    """The room's newest record this process knows: its write counter and decoded parts."""

    rev: int
    state: State
    meta: dict[str, Any]
    members: dict[str, Member] | None = None  # decoded from meta on first use
    blob: bytes | None = None  # the state as this process encoded it for its commit
    meta_blob: bytes | None = None  # `meta` as this process encoded it for its commit
    keys: list[str] | None = None  # the commit function's keys (the same at every commit)


@dataclass(slots=True)
class _Origin:
    """Where a handed-out record came from (kept on it, `RoomRecord.origin`): the counter
    its commit must still find, and the ack it was loaded with (already stored: not a new
    one)."""

    rev: int
    stored_acks: frozenset[str]
    loaded: _Loaded | None = None  # the record it was made of (what a commit may reuse)


@dataclass(slots=True)
class _Flight:
    """A history read in progress, which later callers may share."""

    base: int
    states: bool
    heard: int
    future: asyncio.Future[list[Commit] | None]


def _retrieve(future: asyncio.Future[list[Commit] | None]) -> None:
    if not future.cancelled():
        future.exception()  # a failure every caller gave up on is not reported as unretrieved


class RedisRoomStore:
    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = "uno",
        history_limit: int = 512,
        idle_ttl_seconds: int = 6 * 3600,
        states_kept: int = STATES_KEPT,
        rooms_cached: int = ROOMS_CACHED_MIN,
    ) -> None:
        self.client = client
        # The function calls (commit, load, history) on one shared connection; the rest of
        # the commands (rare) through redis-py's pool.
        self._pipe = RedisPipe.like(client.connection_pool.connection_kwargs)
        self.prefix = prefix
        self._history_limit = max(1, history_limit)
        self._ttl_ms = max(1, idle_ttl_seconds) * 1000
        self._states_kept = max(1, states_kept)
        rooms_cached = max(1, rooms_cached)
        self._latest: _Lru[str, _Loaded] = _Lru(rooms_cached)
        self._states: _Lru[tuple[str, int], State] = _Lru(2 * rooms_cached)
        self._commits: _Lru[tuple[str, int], Commit] = _Lru(2 * rooms_cached)
        # Each room's newest commits here: older ones drop their encoded frames and state.
        self._recent: _Lru[str, deque[Commit]] = _Lru(rooms_cached)
        self._flights: dict[str, _Flight] = {}
        self._heard: dict[str, int] = {}  # room → newest version a notice announced
        self._doubted: set[str] = set()  # rooms whose next load reads the stored record
        # This process's commits in flight, which their notice may reach `heard` before the
        # commit's reply arrives: kept from here rather than decoded from the notice.
        self._mark = b'{"by":"' + secrets.token_hex(8).encode() + b'",'
        self._flying: dict[tuple[str, int], Commit] = {}
        # Told the code of each room this process wrote (created or committed): the
        # checkpointer's set of changed rooms (app/rooms/checkpoints.py).
        self.written: Callable[[str], None] | None = None
        # Whether this process hears every notice of the room (the bus is subscribed to it):
        # only then does the newest commit it holds tell that no newer one exists.
        self.listening: Callable[[str], bool] = lambda room: False
        # Told of each commit this process made (the room and its new version): its own
        # subscribers hear of it from here, not through Redis (app/bus/redis.py `local`).
        self.announce: Callable[[str, int], None] | None = None

    # --- keys ---------------------------------------------------------------------------

    def key(self, room: str, name: str) -> str:
        return f"{self.prefix}:{{{room}}}:{name}"

    def channel(self, room: str) -> str:
        return self.key(room, "n")

    @property
    def wake_key(self) -> str:
        return f"{self.prefix}:wake"

    @property
    def rounds_key(self) -> str:
        return f"{self.prefix}:rounds"

    def _commit_keys(self, room: str) -> list[str]:
        base = f"{self.prefix}:{{{room}}}:"
        return [base + name for name in _ROOM_KEYS] + [self.wake_key, self.rounds_key]

    # --- the RoomStore interface --------------------------------------------------------

    async def create(self, record: RoomRecord, events: list[Event]) -> bool:
        room = record.code
        state_blob = _state_blob(record.state)
        meta = _meta(record)
        version = record.version
        created = await self._call(
            "uno_create",
            self._commit_keys(room),
            [
                room,
                version,
                state_blob,
                orjson.dumps(meta),
                "",
                self._ttl_ms,
                self._states_kept,
                events[0].version if events else version,
                _events_blob(events) if events else "",
            ],
        )
        if not created:
            return False
        loaded = _Loaded(1, record.state, meta, dict(record.members))
        self._remember(room, loaded, record, events, frozenset())
        if self.written is not None:
            self.written(room)
        return True

    async def load(self, room: str) -> RoomRecord | None:
        known = self._latest.get(room)
        command = current_command.get()
        if command is not None and known is not None and self._assumable(room, known):
            # A command on a room whose every commit this process heard of: its newest
            # record is the stored one unless a notice is late, and the commit's
            # compare-and-set (and its refusal of a command id applied already) tells.
            record = self._record(room, known)
            record.assumed = True
            record.origin = _Origin(known.rev, frozenset(), known)
            return record
        self._doubted.discard(room)
        ack_field = _ack_field(*command) if command is not None else ""
        reply = await self._call(
            "uno_load",
            [self.key(room, "state"), self.key(room, "snaps"), self.key(room, "cmds")],
            [known.rev if known is not None else "", ack_field],
            read_only=True,
        )
        if reply is None:
            return None
        version, rev = int(reply[0]), int(reply[1])
        if known is None or known.rev != rev:
            if len(reply) < 6 or reply[5] is None:
                log.error("room record without its state in Redis")
                return None
            state = self._states.get((room, version))
            if state is None:
                state = engine.state_from_json(orjson.loads(reply[5]))
            known = _Loaded(rev, state, orjson.loads(reply[4]))
            self._latest.put(room, known)
            self._states.put((room, version), state)
        record = self._record(room, known)
        stored: frozenset[str] = frozenset()
        if command is not None and reply[3] is not None:
            record.remember_ack(command[0], command[1], int(reply[3]))
            stored = frozenset({ack_field})
        record.origin = _Origin(rev, stored, known)
        return record

    def _assumable(self, room: str, known: _Loaded) -> bool:
        return (
            self.listening(room)
            and room not in self._doubted
            and known.state.version >= self._heard.get(room, 0)
        )

    def doubt(self, room: str) -> None:
        self._doubted.add(room)

    @staticmethod
    def _record(room: str, known: _Loaded) -> RoomRecord:
        meta = known.meta
        if known.members is None:
            known.members = {d: Member(m[0], m[1], m[2]) for d, m in meta["mem"].items()}
        return RoomRecord(
            code=room,
            state=known.state,
            created_at=int(meta["c"]),
            members=dict(known.members),  # a join adds to the record's own copy
            match_id=meta.get("m"),
        )

    async def commit(
        self, room: str, expected_version: int, record: RoomRecord, events: list[Event]
    ) -> bool:
        """The RoomStore form: False when the stored room moved on (no wake-up planned)."""
        try:
            await self.commit_shared(room, expected_version, record, events, wake_at=None)
        except CommitConflict:
            return False
        return True

    async def commit_shared(
        self,
        room: str,
        expected_version: int,
        record: RoomRecord,
        events: Sequence[Event],
        *,
        wake_at: int | None,
        rounds: Sequence[bytes] = (),
        stored: Callable[[], object] | None = None,
    ) -> None:
        origin = record.origin if isinstance(record.origin, _Origin) else None
        known = origin.stored_acks if origin is not None else frozenset()
        loaded = origin.loaded if origin is not None else None
        acks: list[tuple[str, int]] = []
        for member_id, cache in record.acks.items():
            for command_id, version in cache.items():
                field = _ack_field(member_id, command_id)
                if field not in known:
                    acks.append((field, version))
        version = record.version
        state_blob = _state_blob(record.state)
        if loaded is not None and loaded.meta_blob is not None and _same_meta(record, loaded):
            # Most commits change no member: the meta this process encoded last time.
            meta, meta_blob, members = loaded.meta, loaded.meta_blob, loaded.members
        else:
            meta = _meta(record)
            meta_blob, members = orjson.dumps(meta), None
        keys = loaded.keys if loaded is not None and loaded.keys else self._commit_keys(room)
        events_blob = _events_blob(events) if events else b""
        args: list[Any] = [
            room,
            origin.rev if origin is not None else "",
            expected_version,
            version,
            state_blob,
            meta_blob,
            events_blob or "",
            events[0].version if events else version,
            "" if wake_at is None else wake_at,
            self._ttl_ms,
            self._history_limit,
            self._states_kept,
            ACK_CACHE_SIZE,
            self.channel(room),
            # The commit function appends the commit to this head (the notice's body, see
            # `heard`), and publishes it only if another process may hear it: this one's
            # subscribers are told below (`announce`).
            notices.notice(room, version, self._mark),
            "1" if self.announce is not None and self.listening(room) else "0",
            len(acks),
        ]
        for field, ack_version in acks:
            args += [field, ack_version]
        args += list(rounds)
        flight = (room, version)
        commit = Commit(events, record.state) if events else None
        if commit is not None:
            self._flying[flight] = commit
        try:
            reply = await self._call("uno_commit", keys, args)
        finally:
            if commit is not None:
                self._flying.pop(flight, None)
        outcome = reply[0].decode()
        if outcome == "dup":
            raise DuplicateCommand(int(reply[1]))
        if outcome != "ok":  # "stale", or "gone" (expired or deleted meanwhile)
            self._latest.pop(room)
            raise CommitConflict(outcome)
        if stored is not None:
            stored()  # before the events lose their states (commit observers, tests)
        written = known | {field for field, _ in acks} if acks else known
        loaded = _Loaded(
            int(reply[1]),
            record.state,
            meta,
            members if members is not None else dict(record.members),
            state_blob,
            meta_blob,
            keys,
        )
        self._remember(room, loaded, record, events, written, commit)
        if self.written is not None:
            self.written(room)
        if version != expected_version and self.announce is not None:
            self.announce(room, version)

    async def commits_since(self, room: str, version: int) -> list[Commit] | None:
        return await self._since(room, version, states=True)

    async def events_since(self, room: str, version: int) -> list[Event] | None:
        commits = await self._since(room, version, states=False)
        if commits is None:
            return None
        return [e for c in commits for e in c.events if e.version > version]

    async def state_at(self, room: str, version: int) -> State | None:
        state = self._states.get((room, version))
        if state is not None:
            return state
        blob = await self._guard(self.client.hget(self.key(room, "snaps"), str(version)))
        if blob is None:
            return None
        state = engine.state_from_json(orjson.loads(blob))
        self._states.put((room, version), state)
        return state

    async def rooms(self) -> list[str]:
        """None to sweep: idle rooms expire in Redis by themselves (PEXPIRE on each write)."""
        return []

    async def delete(self, room: str) -> None:
        keys = self._commit_keys(room)[:6]
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(*keys)
            pipe.zrem(self.wake_key, room)
            await self._guard(pipe.execute())
        self._latest.pop(room)

    async def healthy(self) -> bool:
        try:
            return bool(await self.client.ping())
        except (RedisError, OSError):
            return False

    async def close(self) -> None:
        if self._pipe is not None:
            await self._pipe.aclose()
        await self.client.aclose()

    # --- what the shared rooms add ------------------------------------------------------

    async def reschedule(self, room: str, version: int, wake_at: int | None) -> None:
        await self._call(
            "uno_reschedule",
            [self.key(room, "state"), self.wake_key],
            [room, version, "" if wake_at is None else wake_at],
        )

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[str]:
        rooms = await self._call("uno_claim", [self.wake_key], [now, lease_ms, limit, self.prefix])
        return [r.decode() for r in rooms]

    async def versions(self, rooms: Sequence[str]) -> list[int]:
        """Every room's stored version (0 when gone), in one function call per
        VERSIONS_PER_CALL rooms: the watchdog reads each room it holds sockets of every two
        seconds, and one call is far cheaper to pack and parse than a command per room."""
        replies: list[Any] = []
        for start in range(0, len(rooms), VERSIONS_PER_CALL):
            keys = [self.key(room, "state") for room in rooms[start : start + VERSIONS_PER_CALL]]
            replies += await self._call("uno_versions", keys, (), read_only=True)
        return [int(v) if v is not None else 0 for v in replies]

    def held(self, room: str) -> RoomRecord | None:
        """The newest record of `room` this process holds (committed or heard), without
        reading Redis; None when it holds none."""
        known = self._latest.get(room)
        return self._record(room, known) if known is not None else None

    def encoded_state(self, room: str, state: State) -> bytes | None:
        """`state` as this process encoded it for its own commit (JSON of
        engine.state_to_json), if it is still the newest state of the room it holds."""
        known = self._latest.get(room)
        if known is None or known.state is not state:
            return None
        return known.blob

    async def wake_of(self, room: str) -> int | None:
        """The room's planned wake-up (ms), for tests and the health page."""
        score = await self._guard(self.client.zscore(self.wake_key, room))
        return None if score is None else int(score)

    # --- internals ------------------------------------------------------------------------

    async def _since(self, room: str, version: int, *, states: bool) -> list[Commit] | None:
        """Single-flight per room: the sockets of one room here usually ask for the same
        commits at once (one notice reaches them all); one read serves every caller at or
        after the version it was asked for."""
        if version < 0:
            return None
        held = self._held_since(room, version)
        if held is not None:
            return held
        heard = self._heard.get(room, 0)
        flight = self._flights.get(room)
        # A read started before the newest notice arrived may miss that commit: not joined.
        if (
            flight is not None
            and flight.base <= version
            and flight.heard >= heard
            and (flight.states or not states)
        ):
            commits = await asyncio.shield(flight.future)
            if commits is not None:
                return [c for c in commits if c.last > version]
        future = asyncio.ensure_future(self._read_since(room, version, states=states))
        future.add_done_callback(_retrieve)
        mine = _Flight(version, states, heard, future)
        self._flights[room] = mine
        try:
            return await asyncio.shield(future)
        finally:
            if self._flights.get(room) is mine:
                del self._flights[room]

    def _held_since(self, room: str, version: int) -> list[Commit] | None:
        """The commits after `version` from this process's own (committed here or taken from
        their notices), when it hears the room's notices and holds every commit up to the
        newest it heard of."""
        recent = self._recent.get(room)
        if not recent or not self.listening(room):
            return None
        newest = recent[-1].last
        if newest < version or newest < self._heard.get(room, 0):
            return None
        held: list[Commit] = []
        expected = version + 1
        for commit in recent:
            if commit.last < expected:
                continue
            if commit.first != expected:
                return None  # a notice was lost, or the room came back from a checkpoint
            held.append(commit)
            expected = commit.last + 1
        if not held and newest != version:
            return None
        return held

    def heard(self, room: str, version: int, body: bytes = b"") -> None:
        """The bus saw a notice: reads of the room started before it may be out of date. A
        notice from another process's commit carries the commit: kept as if read."""
        if version > self._heard.get(room, 0):
            self._heard[room] = version
        if body and (room, version) not in self._commits:
            if body.startswith(self._mark):  # this process's own commit, its reply not in yet
                mine = self._flying.get((room, version))
                if mine is not None:
                    self._keep(room, mine)
                return
            try:
                self._take(room, version, body)
            except Exception:  # the history read repairs it: never let a notice stop the bus
                log.exception("could not take a commit from its notice")

    def _take(self, room: str, version: int, body: bytes) -> None:
        data = orjson.loads(body)
        events = [Event.from_json(e) for e in data["events"]]
        if not events or events[-1].version != version:
            return
        state = self._states.get((room, version))
        if state is None:
            state = engine.state_from_json(data["state"])
            self._states.put((room, version), state)
        rev = data["rev"]
        known = self._latest.get(room)
        if rev is not None and (known is None or known.rev < rev):
            self._latest.put(room, _Loaded(rev, state, data["meta"]))
        self._keep(room, Commit(events, state))

    async def _read_since(self, room: str, version: int, *, states: bool) -> list[Commit] | None:
        held = [v for v in range(version + 1, version + 129) if (room, v) in self._states]
        reply = await self._call(
            "uno_since",
            [self.key(room, "state"), self.key(room, "events"), self.key(room, "snaps")],
            [version, 1 if states else 0, *held],
            read_only=True,
        )
        if reply is None:
            return None
        current = int(reply[0])
        if version > current:
            return None
        entries = reply[1:]
        if version == current:
            return []
        if not entries or int(entries[0][0]) != version + 1:
            return None  # trimmed away
        commits: list[Commit] = []
        newest = len(entries) - self._states_kept
        for index, (_first, last_raw, blob, state_blob) in enumerate(entries):
            last = int(last_raw)
            commit = self._commits.get((room, last))
            want_state = states and index >= newest
            if commit is None:
                events = [Event.from_json(e) for e in orjson.loads(blob)]
                commit = Commit(events, None)
                self._keep(room, commit)
            if want_state and commit.state is None:
                state = self._states.get((room, last))
                if state is None and state_blob:
                    state = engine.state_from_json(orjson.loads(state_blob))
                    self._states.put((room, last), state)
                commit.state = state
            commits.append(commit)
        return commits

    def _remember(
        self,
        room: str,
        loaded: _Loaded,
        record: RoomRecord,
        events: Sequence[Event],
        stored_acks: frozenset[str],
        commit: Commit | None = None,
    ) -> None:
        state = loaded.state
        self._latest.put(room, loaded)
        self._states.put((room, state.version), state)
        record.origin = _Origin(loaded.rev, stored_acks, loaded)
        if events:
            for event in events:
                event.after = None  # the commit holds the one state a view is built of
            if (room, events[-1].version) not in self._commits:  # not taken from its notice
                self._keep(room, commit if commit is not None else Commit(events, state))

    def _keep(self, room: str, commit: Commit) -> None:
        self._commits.put((room, commit.last), commit)
        recent = self._recent.get(room)
        if recent is None:
            recent = deque()
            self._recent.put(room, recent)
        if recent and recent[-1].last >= commit.last:
            return  # an older commit read again for a slow socket: not among the newest
        recent.append(commit)
        if len(recent) > FRAMES_KEPT:
            recent[-FRAMES_KEPT - 1].cache = None
        if len(recent) > STATES_KEPT:
            recent.popleft().forget_state()

    def _call(
        self, name: str, keys: Sequence[str], args: Sequence[Any], *, read_only: bool = False
    ) -> Coroutine[Any, Any, Any]:
        # The coroutine itself, not one more awaiting it: every frame on the way to the reply
        # is resumed again when it comes.
        load, pipe = self._load_functions, self._pipe
        return call_function(self.client, name, keys, args, load, read_only=read_only, pipe=pipe)

    def _load_functions(self) -> Coroutine[Any, Any, None]:
        return load_functions(self.client)

    _guard = staticmethod(guard)


def _ack_field(member_id: str, command_id: str) -> str:
    return f"{member_id}|{command_id}"


def _same_meta(record: RoomRecord, loaded: _Loaded) -> bool:
    """Whether `record` has the meta `loaded` was stored with (members, match, creation)."""
    meta = loaded.meta
    return (
        record.members == loaded.members
        and record.match_id == meta.get("m")
        and record.created_at == meta.get("c")
    )


def _meta(record: RoomRecord) -> dict[str, Any]:
    return {
        "c": record.created_at,
        "m": record.match_id,
        "mem": {d: [m.member_id, m.role, m.name] for d, m in record.members.items()},
    }


def _state_blob(state: State) -> bytes:
    return orjson.dumps(engine.state_to_json(state), option=orjson.OPT_NON_STR_KEYS)


def _events_blob(events: Sequence[Event]) -> bytes:
    return orjson.dumps([e.to_json() for e in events], option=orjson.OPT_NON_STR_KEYS)
