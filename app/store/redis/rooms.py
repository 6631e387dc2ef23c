"""RoomStore on Redis: the room's record, its history of commits and its wake-up, shared by
every process (the keys and functions are described in uno.lua beside this file).

A commit is one call of the `uno_commit` function: compare-and-set on the room's write
counter, duplicate command ids refused, state, events, acks, wake-up, completed rounds and
the notice (which carries the commit itself, app/bus/notices.py; published only when another
process subscribes to the room, this one's subscribers are told by `announce`) in one atomic
step. Reads are one function call too, on the shared pipelined connection (pipe.py).

Decoding a state costs far more than fetching it, so each process keeps, per room, what it
decoded, committed or took from a notice (`heard`): one `_Room` entry with the newest record
(by write counter) and the room's newest commits with their states. States are immutable once
built, so sharing them is safe. A process that hears a room's notices (`listening`) and holds
every commit up to the newest one heard reads nothing back, and applies a command on the
record it holds (`RoomRecord.assumed`: the compare-and-set still decides).

This is the path of every move in the shared mode, so it is kept flat: one dictionary lookup
for everything the process knows of a room, the record's origin a tuple, and the function
call's reply awaited as the connection's own future (docs/performance.md, "Scale-out").
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import hiredis
import orjson
from redis.asyncio import Redis
from redis.exceptions import RedisError, ResponseError

from app import engine
from app.bus import notices
from app.engine.events import Event
from app.engine.state import State
from app.kept_json import dumps_kept
from app.store.redis.client import call_function, guard, load_functions
from app.store.redis.pipe import RedisPipe
from app.store.rooms import FRAMES_KEPT, STATES_KEPT, Commit, Member, RoomRecord
from app.store.shared import (
    CommitConflict,
    DuplicateCommand,
    StoreUnavailable,
    current_command,
)

log = logging.getLogger(__name__)

# Rooms a process keeps an entry of, at least (the app raises it to its connection limit:
# app/rooms/cluster.py). Beyond it the least recently written room's entry is dropped.
ROOMS_CACHED_MIN = 4096
# Cached ack entries per room (the memory store keeps 256 per member).
ACK_CACHE_SIZE = 2048
# Rooms per call of the watchdog's version check (one call holds Redis for ~0.3 ms per 1,000).
VERSIONS_PER_CALL = 1000
# A room's own keys, in the order the commit function takes them (uno.lua).
_ROOM_KEYS = ("state", "events", "snaps", "snapv", "cmds", "cmdq")
_NO_ACKS: frozenset[str] = frozenset()
_DUMPS_OPTION = orjson.OPT_NON_STR_KEYS


class _Room:
    """Everything this process knows of one room.

    `rev` (0: no record held) is the write counter of `state`, `meta` and `members`; `blob`
    and `meta_blob` are the state and meta as this process encoded them for its own commit
    (None when the record was read or heard). `recent` holds the newest commits (their
    frames and states for the newest few), `heard` the newest version a notice announced.
    """

    __slots__ = (
        "blob",
        "doubted",
        "flight",
        "heard",
        "keys",
        "members",
        "meta",
        "meta_blob",
        "recent",
        "rev",
        "state",
    )

    def __init__(self, keys: list[str]) -> None:
        self.rev = 0
        self.state: State | None = None
        self.meta: dict[str, Any] = {}
        self.members: dict[str, Member] | None = None
        self.blob: bytes | None = None
        self.meta_blob: bytes | None = None
        self.keys = keys  # the commit function's keys (the same at every commit)
        self.recent: deque[Commit] = deque()
        self.heard = 0
        self.doubted = False  # the next load reads the stored record
        self.flight: _Flight | None = None

    def hold(self, rev: int, state: State, meta: dict[str, Any]) -> None:
        """A newer record read or heard (not encoded here)."""
        self.rev, self.state, self.meta = rev, state, meta
        self.members = self.blob = self.meta_blob = None

    def state_of(self, version: int) -> State | None:
        state = self.state
        if state is not None and state.version == version:
            return state
        for commit in self.recent:
            if commit.last == version and commit.state is not None:
                return commit.state
        return None

    def keep(self, commit: Commit) -> None:
        recent = self.recent
        if recent and recent[-1].last >= commit.last:
            return  # an older commit read again for a slow socket: not among the newest
        recent.append(commit)
        if len(recent) > FRAMES_KEPT:
            recent[-FRAMES_KEPT - 1].cache = None
        if len(recent) > STATES_KEPT:
            recent.popleft().forget_state()


class _Flight:
    """A history read in progress, which later callers may share."""

    __slots__ = ("base", "future", "heard", "states")

    def __init__(
        self, base: int, states: bool, heard: int, future: asyncio.Future[list[Commit] | None]
    ) -> None:
        self.base, self.states, self.heard, self.future = base, states, heard, future


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
        self.rooms_cached = max(1, rooms_cached)
        # In the order of their last write (a dict keeps insertion order): the first is the
        # one dropped when there are too many.
        self._rooms: dict[str, _Room] = {}
        # This process's commits in flight, which their notice may reach `heard` before the
        # commit's reply arrives: kept from here rather than decoded from the notice.
        self._mark = b'{"by":"' + secrets.token_hex(8).encode() + b'",'
        self._flying: dict[tuple[str, int], Commit] = {}
        # The code of each room this process wrote (created or committed) is added here:
        # the checkpointer's set of changed rooms (app/rooms/checkpoints.py).
        self.written: set[str] | None = None
        # Whether this process hears every notice of the room (the bus is subscribed to it):
        # only then does the newest commit it holds tell that no newer one exists.
        self.listening: Callable[[str], bool] = lambda room: False
        # Told of each commit this process made (the room, its new version and its notice):
        # its own subscribers hear of it from here, not through Redis (app/bus/redis.py
        # `local`).
        self.announce: Callable[[str, int, bytes], None] | None = None
        # Called with each commit once its function call is sent, before its reply is
        # awaited: the sockets' frames are built then (app/transport/hub.py `prepare`).
        self.prepare: Callable[[str, Commit], None] | None = None

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

    def _entry(self, room: str) -> _Room:
        entry = self._rooms.get(room)
        if entry is None:
            entry = self._cache(room, _Room(self._commit_keys(room)))
        return entry

    def _cache(self, room: str, entry: _Room) -> _Room:
        self._rooms[room] = entry
        if len(self._rooms) > self.rooms_cached:
            del self._rooms[next(iter(self._rooms))]
        return entry

    # --- the RoomStore interface --------------------------------------------------------

    async def create(
        self, record: RoomRecord, events: list[Event], *, unopened_ttl_ms: int | None = None
    ) -> bool:
        room = record.code
        entry = self._entry(room)
        state_blob = _state_blob(record.state)
        meta = _meta(record)
        meta_blob = orjson.dumps(meta)
        version = record.version
        created = await self._call(
            "uno_create",
            entry.keys,
            [
                room,
                version,
                state_blob,
                meta_blob,
                "",
                min(self._ttl_ms, unopened_ttl_ms or self._ttl_ms),
                self._states_kept,
                events[0].version if events else version,
                _events_blob(events) if events else "",
            ],
        )
        if not created:
            return False
        entry.hold(1, record.state, meta)
        entry.members = dict(record.members)
        entry.blob, entry.meta_blob = state_blob, meta_blob
        entry.recent.clear()
        record.origin = (1, _NO_ACKS, entry)
        if events:
            for event in events:
                event.after = None  # the commit holds the one state a view is built of
            entry.keep(Commit(events, record.state))
        if self.written is not None:
            self.written.add(room)
        return True

    async def load(self, room: str) -> RoomRecord | None:
        entry = self._rooms.get(room)
        command = current_command.get()
        if (
            command is not None
            and entry is not None
            and entry.rev
            and not entry.doubted
            and entry.state.version >= entry.heard  # type: ignore[union-attr]
            and self.listening(room)
        ):
            # A command on a room whose every commit this process heard of: its newest
            # record is the stored one unless a notice is late, and the commit's
            # compare-and-set (and its refusal of a command id applied already) tells.
            record = _record(room, entry)
            record.assumed = True
            record.origin = (entry.rev, _NO_ACKS, entry)
            return record
        made = entry is None
        if entry is None:
            # Cached only once the room is known to exist: a look-up of a made-up code (a
            # stranger's GET, a hello) must not push a room played here out of the cache.
            entry = _Room(self._commit_keys(room))
        entry.doubted = False
        ack_field = f"{command[0]}|{command[1]}" if command is not None else ""
        sent = entry.rev
        reply = await self._read_record(entry, sent, ack_field)
        if reply is not None and len(reply) < 6 and entry.rev != sent:
            # The record held when the read was sent is the stored one, but a commit or a
            # notice replaced it meanwhile: read the stored one whole.
            reply = await self._read_record(entry, 0, ack_field)
        if reply is None:
            return None
        if made:  # (or the entry a commit or a notice made meanwhile)
            entry = self._rooms.get(room) or self._cache(room, entry)
        version, rev = int(reply[0]), int(reply[1])
        if len(reply) >= 6 and entry.rev != rev:
            if reply[5] is None:
                log.error("room record without its state in Redis")
                return None
            state = entry.state_of(version)
            if state is None:
                state = engine.state_from_json(orjson.loads(reply[5]))
            entry.hold(rev, state, orjson.loads(reply[4]))
        record = _record(room, entry)
        stored = _NO_ACKS
        if command is not None and reply[3] is not None:
            record.remember_ack(command[0], command[1], int(reply[3]))
            stored = frozenset({ack_field})
        record.origin = (rev, stored, entry)
        return record

    async def _read_record(self, entry: _Room, rev: int, ack_field: str) -> Any:
        """`uno_load`: the stored record's head, and its meta and state unless it is at
        write counter `rev` (0: always)."""
        keys = entry.keys[0:5:2]  # state, snaps, cmds
        args = [rev or "", ack_field]
        try:
            return await self._fcall("uno_load", keys, args, read_only=True)
        except (RedisError, OSError) as exc:
            return await self._recover(exc, "uno_load", keys, args, read_only=True)

    def doubt(self, room: str) -> None:
        entry = self._rooms.get(room)
        if entry is not None:
            entry.doubted = True

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
        observers: Sequence[Callable[[str, Sequence[Event]], object]] = (),
        used: bool = True,
    ) -> None:
        origin = record.origin
        entry: _Room
        known: frozenset[str]
        if type(origin) is tuple:
            rev, known, entry = origin
        else:
            rev, known, entry = "", _NO_ACKS, self._entry(room)
        acks: list[Any] = []
        for member_id, cache in record.acks.items():
            for command_id, ack_version in cache.items():
                field = f"{member_id}|{command_id}"
                if field not in known:
                    acks += (field, ack_version)
        state = record.state
        version = state.version
        state_blob = _state_blob(state)
        members = entry.members
        meta_blob = entry.meta_blob
        if (
            meta_blob is not None
            and record.members == members
            and record.match_id == entry.meta.get("m")
            and record.created_at == entry.meta.get("c")
        ):
            meta = entry.meta  # most commits change no member: the meta encoded last time
        else:
            meta = _meta(record)
            meta_blob, members = orjson.dumps(meta), None
        head = notices.notice(room, version)
        announce = self.announce
        args: list[Any] = [
            room,
            rev,
            expected_version,
            version,
            state_blob,
            meta_blob,
            _events_blob(events) if events else "",
            events[0].version if events else version,
            "" if wake_at is None else wake_at,
            # Negative: a timer's or a bot's commit, which leaves the room's expiry as it is
            # (else a table nobody comes back to, its absent host's wait starting again every
            # minute, would never expire).
            self._ttl_ms if used else -self._ttl_ms,
            self._history_limit,
            self._states_kept,
            ACK_CACHE_SIZE,
            entry.keys[0][:-5] + "n",  # the channel, P:{R}:n
            # The commit function appends the commit to this head (the notice's body, see
            # `heard`), and publishes it only if another process may hear it: this one's
            # subscribers are told below (`announce`).
            head + b"\n" + self._mark,
            "1" if announce is not None and self.listening(room) else "0",
            len(acks) // 2,
            *acks,
            *rounds,
        ]
        commit = Commit(events, state) if events else None
        flight = (room, version)
        if commit is not None:
            self._flying[flight] = commit
        reply_of = self._fcall("uno_commit", entry.keys, args)
        prepare = self.prepare
        if prepare is not None and commit is not None:
            if self._pipe is not None:
                self._pipe.send_now()  # Redis works while the frames are built
            try:
                prepare(room, commit)
            except Exception:  # the frames are built after the reply instead
                log.exception("frames not built ahead of a commit's reply")
        try:
            reply = await reply_of
        except (RedisError, OSError) as exc:
            reply = await self._recover(exc, "uno_commit", entry.keys, args)
        finally:
            if commit is not None:
                del self._flying[flight]
        outcome = reply[0]
        if outcome != b"ok":
            if outcome == b"dup":
                raise DuplicateCommand(int(reply[1]))
            entry.rev = 0  # "stale", or "gone" (expired or deleted meanwhile): read it again
            raise CommitConflict(outcome.decode())
        for observe in observers:  # before the events lose their states
            observe(room, events)
        new_rev = int(reply[1])
        if new_rev > entry.rev:  # (a newer commit's notice may have been heard meanwhile)
            entry.rev, entry.state, entry.meta = new_rev, state, meta
            entry.members = members if members is not None else dict(record.members)
            entry.blob, entry.meta_blob = state_blob, meta_blob
            rooms = self._rooms
            if rooms.get(room) is entry:  # the most recently written: the last one dropped
                del rooms[room]
                rooms[room] = entry
        if acks:
            known = known.union(acks[::2])
        record.origin = (new_rev, known, entry)
        if commit is not None:
            for event in events:
                event.after = None  # the commit holds the one state a view is built of
            entry.keep(commit)
        if self.written is not None:
            self.written.add(room)
        if announce is not None and version != expected_version:
            announce(room, version, head)

    async def commits_since(self, room: str, version: int) -> list[Commit] | None:
        return await self._since(room, version, states=True)

    async def events_since(self, room: str, version: int) -> list[Event] | None:
        commits = await self._since(room, version, states=False)
        if commits is None:
            return None
        return [e for c in commits for e in c.events if e.version > version]

    async def state_at(self, room: str, version: int) -> State | None:
        entry = self._rooms.get(room)
        state = entry.state_of(version) if entry is not None else None
        if state is not None:
            return state
        blob = await self._guard(self.client.hget(self.key(room, "snaps"), str(version)))
        if blob is None:
            return None
        return engine.state_from_json(orjson.loads(blob))

    async def rooms(self) -> list[str]:
        """None to sweep: idle rooms expire in Redis by themselves (PEXPIRE on each write)."""
        return []

    def rooms_held(self) -> int | None:
        return None

    async def delete(self, room: str) -> None:
        keys = self._commit_keys(room)[:6]
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(*keys)
            pipe.zrem(self.wake_key, room)
            await self._guard(pipe.execute())
        self._rooms.pop(room, None)

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
        entry = self._rooms.get(room)
        return _record(room, entry) if entry is not None and entry.rev else None

    def encoded_state(self, room: str, state: State) -> bytes | None:
        """`state` as this process encoded it for its own commit (JSON of
        engine.state_to_json), if it is still the newest state of the room it holds."""
        entry = self._rooms.get(room)
        if entry is None or entry.state is not state:
            return None
        return entry.blob

    def held_state(self, room: str) -> State | None:
        """The newest state of `room` this process holds (tests, the health page)."""
        entry = self._rooms.get(room)
        return entry.state if entry is not None and entry.rev else None

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
        entry = self._entry(room)
        if self.listening(room):
            held = _held_since(entry, version)
            if held is not None:
                return held
        flight = entry.flight
        # A read started before the newest notice arrived may miss that commit: not joined.
        if (
            flight is not None
            and flight.base <= version
            and flight.heard >= entry.heard
            and (flight.states or not states)
        ):
            commits = await asyncio.shield(flight.future)
            if commits is not None:
                return [c for c in commits if c.last > version]
        future = asyncio.ensure_future(self._read_since(room, entry, version, states=states))
        future.add_done_callback(_retrieve)
        mine = entry.flight = _Flight(version, states, entry.heard, future)
        try:
            return await asyncio.shield(future)
        finally:
            if entry.flight is mine:
                entry.flight = None

    def heard(self, room: str, version: int, body: bytes = b"") -> None:
        """The bus saw a notice: reads of the room started before it may be out of date. A
        notice from another process's commit carries the commit: kept as if read."""
        entry = self._entry(room)
        if version > entry.heard:
            entry.heard = version
        if body and not (entry.recent and entry.recent[-1].last >= version):
            if body.startswith(self._mark):  # this process's own commit, its reply not in yet
                mine = self._flying.get((room, version))
                if mine is not None:
                    entry.keep(mine)
                return
            try:
                self._take(entry, version, body)
            except Exception:  # the history read repairs it: never let a notice stop the bus
                log.exception("could not take a commit from its notice")

    def _take(self, entry: _Room, version: int, body: bytes) -> None:
        data = orjson.loads(body)
        events = [Event.from_json(e) for e in data["events"]]
        if not events or events[-1].version != version:
            return
        state = entry.state_of(version)
        if state is None:
            state = engine.state_from_json(data["state"])
        rev = data["rev"]
        if rev is not None and entry.rev < rev:
            entry.hold(rev, state, data["meta"])
        entry.keep(Commit(events, state))

    async def _read_since(
        self, room: str, entry: _Room, version: int, *, states: bool
    ) -> list[Commit] | None:
        held = {c.last: c for c in entry.recent}
        have = [v for v, c in held.items() if v > version and c.state is not None]
        if entry.state is not None and entry.state.version > version:
            have.append(entry.state.version)
        keys = entry.keys
        reply = await self._call(
            "uno_since", keys[:3], [version, 1 if states else 0, *have], read_only=True
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
            commit = held.get(last)
            if commit is None:
                events = [Event.from_json(e) for e in orjson.loads(blob)]
                commit = Commit(events, None)
                entry.keep(commit)
            if states and index >= newest and commit.state is None:
                state = entry.state_of(last)
                if state is None and state_blob:
                    state = engine.state_from_json(orjson.loads(state_blob))
                commit.state = state
            commits.append(commit)
        return commits

    def _fcall(
        self, name: str, keys: Sequence[str], args: Sequence[Any], *, read_only: bool = False
    ) -> Awaitable[Any]:
        """The function's reply, to await. On the open pipe this is the reply's future
        itself, no coroutine frame on the path of every move: a caller awaiting it turns a
        Redis failure into StoreUnavailable with `_recover`. Else `_call`'s coroutine, which
        does that itself."""
        pipe = self._pipe
        link = pipe._usable() if pipe is not None else None
        if link is None or "_call" in self.__dict__:  # (tests count the calls there)
            return self._call(name, keys, args, read_only=read_only)
        command = "FCALL_RO" if read_only else "FCALL"
        return link.request(hiredis.pack_command((command, name, len(keys), *keys, *args)))

    async def _recover(
        self,
        exc: Exception,
        name: str,
        keys: Sequence[str],
        args: Sequence[Any],
        *,
        read_only: bool = False,
    ) -> Any:
        """After `_fcall`'s future failed: nothing ran if Redis lacks the library (never
        loaded, restarted without its AOF, FUNCTION FLUSH), so `_call` loads it and calls
        once more; any other failure is StoreUnavailable (the outcome may be unknown)."""
        if isinstance(exc, ResponseError) and "function not found" in str(exc).lower():
            return await self._call(name, keys, args, read_only=read_only)
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc

    def _call(
        self, name: str, keys: Sequence[str], args: Sequence[Any], *, read_only: bool = False
    ) -> Awaitable[Any]:
        load, pipe = self._load_functions, self._pipe
        return call_function(self.client, name, keys, args, load, read_only=read_only, pipe=pipe)

    def _load_functions(self) -> Awaitable[None]:
        return load_functions(self.client)

    _guard = staticmethod(guard)


def _held_since(entry: _Room, version: int) -> list[Commit] | None:
    """The commits after `version` from this process's own (committed here or taken from
    their notices), when it holds every commit up to the newest it heard of (the caller
    checks that it hears the room's notices)."""
    recent = entry.recent
    if not recent:
        return None
    newest = recent[-1].last
    if newest < version or newest < entry.heard:
        return None
    if newest == version:
        return []
    held: list[Commit] = []
    expected = version + 1
    for commit in recent:
        if commit.last < expected:
            continue
        if commit.first != expected:
            return None  # a notice was lost, or the room came back from a checkpoint
        held.append(commit)
        expected = commit.last + 1
    return held or None


def _record(room: str, entry: _Room) -> RoomRecord:
    members = entry.members
    meta = entry.meta
    if members is None:
        members = entry.members = {d: Member(m[0], m[1], m[2]) for d, m in meta["mem"].items()}
    return RoomRecord(
        code=room,
        state=entry.state,  # type: ignore[arg-type]
        created_at=int(meta["c"]),
        members=dict(members),  # a join adds to the record's own copy
        match_id=meta.get("m"),
    )


def _meta(record: RoomRecord) -> dict[str, Any]:
    return {
        "c": record.created_at,
        "m": record.match_id,
        "mem": {d: [m.member_id, m.role, m.name] for d, m in record.members.items()},
    }


def _state_blob(state: State) -> bytes:
    # Kept per room (`encoded_state`, for the checkpoints): sized to its content.
    return dumps_kept(engine.state_to_json(state), option=_DUMPS_OPTION)


def _events_blob(events: Sequence[Event]) -> bytes:
    return orjson.dumps(list(map(_event_json, events)), option=_DUMPS_OPTION)


_event_json = Event.to_json
