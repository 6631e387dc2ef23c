"""The authoritative rooms: one writer per room, commands applied one at a time.

Flow of one command (docs/architecture.md "The path of one move"): take the room's lock,
load the record, apply the timeouts already due, answer a resent command id with its old
ack, apply the command through the engine, record completed rounds, commit the new state and
its events (the bounded history), re-plan the room's one wake-up (the earliest engine
deadline or bot move), then notify the room's channel. Connections read the events from the
history, so the bus only says "this room moved to version V".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from app import engine
from app.bus import notices
from app.bus.base import Bus
from app.engine import actions as act
from app.engine.bot import bot_action, catch_at
from app.engine.errors import EngineError, ErrorCode
from app.engine.events import Event
from app.engine.state import State
from app.rooms.commands import Command
from app.rooms.names import NAME_MAX_GRAPHEMES, BadName, clean_name, free_name, name_key
from app.rooms.recording import RoundReporter
from app.rooms.restore import Restorer
from app.rooms.scheduler import Scheduler, wall_ms
from app.rooms.shared import SharedRooms, retried
from app.rooms.versions import VersionReservations
from app.settings import AppSettings
from app.store.recorder import MatchRecorder, MemberRecord, RecorderUnavailable
from app.store.rooms import Commit, Member, RoomRecord, RoomStore, token_digest
from app.store.shared import CommitConflict, SharedRoomStore, StoreUnavailable

if TYPE_CHECKING:
    from app.rooms.presence import Presence

log = logging.getLogger(__name__)

# Bots answer after a human-like pause unless the room sets `bot_delay_ms` (test hook).
BOT_DELAY_MS = (800, 1500)
# A command may trip several expired deadlines in a row (turn, then the next one...).
MAX_TIMEOUTS_PER_WAKE = 16
NAME_MAX = NAME_MAX_GRAPHEMES
SWEEP_EVERY_SECONDS = 600
MAX_SPECTATORS = 200


class RoomError(Exception):
    """A refused HTTP or WebSocket request, with a wire code and an HTTP status."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        status: int = 400,
        extra: Mapping[str, Any] | None = None,
        *,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.extra = dict(extra or {})  # more fields of the HTTP error object
        self.retry_after = retry_after  # seconds, as the HTTP header


@dataclass(frozen=True, slots=True)
class Identity:
    member_id: str
    role: str  # "player" | "spectator"
    seat: int | None


@dataclass(frozen=True, slots=True)
class Created:
    room: str
    player_id: str
    seat: int
    token: str
    name: str  # as seated: a free variant ("Ayşe 2") when the name was taken


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command produced: an ack version, or an error code and message."""

    version: int | None = None
    code: ErrorCode | None = None
    message: str = ""
    # For `stale`: the refusal the current state gave, reported instead when the state at
    # `at` refused the command too (then the newer state did not make it illegal).
    refusal: tuple[ErrorCode, str] | None = None
    # A refusal with consequences (a false UNO catch's penalty): the version it committed.
    committed: int | None = None
    # A false catch decided on an older view (`at`): the table without its penalty (and its
    # events), kept should the catch have been legal at `at`. Then the newer state made it
    # illegal (another catch came first, or the declaration), so it is `stale` and, refused,
    # costs nothing (PROTOCOL 3); else it is the false catch RULES 13 charges.
    unpenalised: tuple[State, list[Event]] | None = None


# A refused command whose consequences were committed (a false catch, RULES 13) is remembered
# in the ack cache as the negative of the version it committed, so a resend of its `id` is
# not applied again (PROTOCOL 3) and gets the same refusal. Versions start at 1.
FALSE_CATCH_REFUSAL: tuple[ErrorCode, str] = ("not_catchable", "that player cannot be caught now")


def remembered(version: int) -> Outcome:
    """The answer to a command id applied already (here, or by another process's commit):
    its ack, or for a refusal with consequences (a negative version) the same refusal."""
    if version < 0:
        code, message = FALSE_CATCH_REFUSAL
        return Outcome(code=code, message=message)
    return Outcome(version=version)


@dataclass(slots=True)
class _BotPlan:
    version: int
    at: int | None  # None: nothing to do at this version (or already tried)


@dataclass(slots=True)
class _Tried:
    version: int
    keys: set[tuple[str, int]]


_ENGINE_STATUS = {"room_full": 409, "already_started": 409}


class RoomService:
    def __init__(
        self,
        config: AppSettings,
        store: RoomStore,
        bus: Bus,
        recorder: MatchRecorder,
        *,
        clock: Callable[[], int] = wall_ms,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.bus = bus
        self.clock = clock
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self.scheduler = Scheduler(self.wake, clock)
        self.recorder = recorder
        self.rounds = RoundReporter(recorder)
        self.versions = VersionReservations(recorder)
        self.restorer = Restorer(
            store,
            recorder,
            self._apply,
            clock,
            self._after_restore,
        )
        self._locks: dict[str, asyncio.Lock] = {}
        self._bots: dict[str, _BotPlan] = {}
        self._tried: dict[str, _Tried] = {}
        self._touched: dict[str, int] = {}  # room → last use: command, join, socket (ms)
        # Rooms made over HTTP whose page nobody has opened yet → when they were made (ms).
        self._unopened: dict[str, int] = {}
        self._sweeper: asyncio.Task[None] | None = None
        # Set by the app: whether this process holds sockets of a room (kept while it does).
        self.has_sockets: Callable[[str], bool] = lambda room: False
        # Called with every commit before it is stored, while each event's `after` still holds
        # the state right after it (the store keeps one state per recent commit): tests'
        # ground truth for auditing what each recipient was sent.
        self.commit_observers: list[Callable[[str, Sequence[Event]], None]] = []
        # Set when the store is shared by several processes (app/rooms/shared.py), with the
        # record of which process holds which seat's socket (app/rooms/presence.py).
        self.shared: SharedRooms | None = None
        self.presence: Presence | None = None

    def share(self, store: SharedRoomStore) -> None:
        """Run on a store shared with other processes: commits may lose to theirs and are
        retried, wake-ups live in the store's index (see app/rooms/shared.py)."""
        self.shared = SharedRooms(self, store)

    async def start(self) -> None:
        await self.scheduler.start()
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_forever(), name="room-sweeper")

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        await self.scheduler.stop()

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_SECONDS)
            try:
                await self.sweep()
            except Exception:
                log.exception("idle-room sweep failed")
            try:
                await self.prune_records()
            except Exception as exc:  # the database may be down: the next sweep retries
                log.warning("room retention skipped (%s)", type(exc).__name__)

    async def sweep(self) -> int:
        """Forget rooms nobody has touched for `room_idle_seconds` and nobody watches, and
        rooms made over HTTP whose page nobody opened within `room_unused_seconds`."""
        now = self.clock()
        cutoff = now - self.config.room_idle_seconds * 1000
        unopened_cutoff = now - self.config.room_unused_seconds * 1000
        removed = 0
        for room in await self.store.rooms():
            unopened = self._unopened.get(room, now) < unopened_cutoff
            if not unopened and (self._touched.get(room, 0) >= cutoff or self.has_sockets(room)):
                continue
            async with self._lock(room):
                await self.store.delete(room)
            self.scheduler.schedule(room, None)
            self._drop_local(room)
            removed += 1
        if removed:
            log.info("forgot %d idle rooms", removed)
        if self.store.rooms_held() is None:
            self._forget_local(cutoff, unopened_cutoff)
        return removed

    def _forget_local(self, cutoff: int, unopened_cutoff: int) -> None:
        """With the rooms in Redis (which expires them itself), what this process keeps of
        each room it ever served (its lock, bot plan, timers tried, last use, version
        ceiling) goes once the room is idle, or it would grow with every room for ever."""
        touched = self._touched
        # Rooms this process only ran the timers or bots of (any process claims any room's
        # wake-up) were never used here: dropped at every sweep, or they would pile up with
        # every room ever woken here. A room still timed loses its bot plan and timers tried
        # (planned again at its next wake) and its ceiling (reserved again), nothing else.
        woken = set(self._locks).union(self._bots, self._tried, self.versions.rooms())
        for room in [*touched, *woken.difference(touched)]:
            if touched.get(room, 0) >= cutoff or self.has_sockets(room):
                continue
            lock = self._locks.get(room)
            if lock is not None and lock.locked():
                continue
            self._drop_local(room)
        for room, made in list(self._unopened.items()):
            if made < unopened_cutoff:  # Redis expires the room itself (its short TTL)
                del self._unopened[room]

    def _drop_local(self, room: str) -> None:
        for table in (self._locks, self._bots, self._tried, self._touched, self._unopened):
            table.pop(room, None)
        self.versions.forget(room)

    async def prune_records(self) -> tuple[int, int]:
        """Retention of the database's rows (recorder.prune): rooms idle past
        `room_retention_days`; running matches with no round for `room_idle_seconds`."""
        now = self.clock()
        return await self.recorder.prune(
            now - int(self.config.room_retention_days * 86_400_000),
            now - self.config.room_idle_seconds * 1000,
        )

    def _after_restore(self, record: RoomRecord) -> None:
        self._touched[record.code] = self.clock()
        self._plan(record.code, record.state)  # a next_round deadline already past fires now

    def _lock(self, room: str) -> asyncio.Lock:
        lock = self._locks.get(room)
        if lock is None:
            lock = self._locks[room] = asyncio.Lock()
        return lock

    # --- HTTP: rooms, seats, spectators ---------------------------------------------------

    async def create_room(
        self,
        name: str,
        settings: Mapping[str, Any] | None,
        *,
        drop_departed: bool = False,
        organised: bool = False,
    ) -> Created:
        """A new room, `name` its host. Without `drop_departed` the lobby keeps a departed
        player's seat whatever the settings say, as a tournament's table must: its entrants
        come and go between the tournament page and the table (and its settings must stay
        the ones it asked for). A room made over HTTP frees them (`lobby_drop_seconds`).
        `organised`: a tournament's table, whose lobby only the tournament deals."""
        name = _clean_name(name)
        try:
            parsed = engine.parse_settings(
                dict(settings or {}), test_hooks=self.config.uno_test_hooks
            )
        except EngineError as exc:
            raise RoomError(exc.code, exc.message, 400) from exc
        held = self.store.rooms_held()
        if drop_departed and self.config.max_rooms and (held or 0) >= self.config.max_rooms:
            log.warning("room refused: this process holds %d rooms (MAX_ROOMS)", held)
            message = "the server is full, try again in a few minutes"
            raise RoomError("unavailable", message, 503, retry_after=60)
        if not drop_departed:
            parsed = replace(parsed, keep_departed=True)
        if organised:  # a tournament's table: only the tournament deals its lobby
            parsed = replace(parsed, organised=True)
        try:
            return await self._create_room(name, parsed, drop_departed)
        except StoreUnavailable as exc:  # (a create whose reply was lost: a room nobody holds)
            raise RoomError("unavailable", "the room store is unreachable", 503) from exc

    async def _create_room(
        self, name: str, parsed: engine.Settings, drop_departed: bool
    ) -> Created:
        while True:
            code = secrets.token_urlsafe(16)
            if await self.store.load(code) is None:
                break
        now = self.clock()
        player_id = _new_id()
        state, events = engine.apply(
            engine.new_table(code, parsed),
            None,
            act.Join(name=name, player_id=player_id),
            self.rng,
            now,
            trace=True,
        )
        record = RoomRecord(code=code, state=state, created_at=now)
        token = secrets.token_urlsafe(32)
        record.add_member(token, Member(player_id, "player", name))
        for observe in self.commit_observers:
            observe(code, events)
        unopened_ttl_ms = self.config.room_unused_seconds * 1000 if drop_departed else None
        if not await self.store.create(record, events, unopened_ttl_ms=unopened_ttl_ms):
            raise RoomError("conflict", "room code collision, try again", 409)
        self._touched[code] = now
        if drop_departed:
            self._unopened[code] = now
        await self.versions.committed(code, record.version, now)
        await self._remember(code, token, record.member(token), now)
        seat = engine.seat_of(state, player_id)
        assert seat is not None
        log.info("room created (%d seats so far)", len(state.seats))
        return Created(code, player_id, seat, token, name)

    @retried
    async def join(self, room: str, name: str, *, by_link: bool = False) -> Created:
        """Seat a new player. A name already seated (compared by `name_key`, bots included)
        is replaced by its first free variant ("Ayşe 2"): two seats of one name could not be
        told apart, and PROTOCOL 3 answers a join 201 unless the room is full or started.
        `by_link`: a join over HTTP, by whoever has the room's code; a tournament's table
        (its code is public, for watching) seats only the tournament's entrants."""
        name = _clean_name(name)
        await self._load(room)  # before the lock: an unknown room must not leave one behind
        async with self._lock(room):
            record = await self._load(room)
            if by_link and record.state.settings.organised:  # a tournament's table
                message = "a tournament table seats its entrants only; you may watch it"
                raise RoomError("room_full", message, 409)
            seated = {name_key(s.name) for s in record.state.seats}
            name = free_name(name, seated)
            player_id = _new_id()
            try:
                state, events = self._apply(record.state, None, act.Join(name, player_id))
            except EngineError as exc:
                raise RoomError(exc.code, exc.message, _ENGINE_STATUS.get(exc.code, 409)) from exc
            token = secrets.token_urlsafe(32)
            record.add_member(token, Member(player_id, "player", name))
            await self._commit(record, state, events)
            await self._remember(room, token, record.member(token), self.clock())
        seat = engine.seat_of(state, player_id)
        assert seat is not None
        return Created(room, player_id, seat, token, name)

    @retried
    async def spectate(self, room: str, name: str) -> tuple[str, str]:
        name = _clean_name(name if name.strip() else "Spectator")  # the name is optional
        await self._load(room)  # before the lock: an unknown room must not leave one behind
        async with self._lock(room):
            record = await self._load(room)
            credentials = [d for d, m in record.members.items() if m.role == "spectator"]
            if len(credentials) >= MAX_SPECTATORS:
                # The cap counts people watching: the oldest credential whose spectator has no
                # socket open makes way (else a stranger's 200 unused ones locked the room).
                watching = set(record.state.spectators)
                idle = next(
                    (d for d in credentials if record.members[d].member_id not in watching), None
                )
                if idle is None:
                    raise RoomError("room_full", "too many spectators", 409)
                del record.members[idle]
            # Unique among seats and spectators, by suffix: a spectator's chat line must not
            # pass for another's (watching is one click; nobody is asked to pick again).
            names = {name_key(s.name) for s in record.state.seats}
            names |= {name_key(m.name) for m in record.members.values() if m.role == "spectator"}
            name = free_name(name, names)
            token = secrets.token_urlsafe(32)
            spectator_id = "s_" + secrets.token_urlsafe(9)
            await self._add_credential(record, token, Member(spectator_id, "spectator", name))
        return spectator_id, token

    @retried
    async def grant(self, room: str, player_id: str, token: str) -> bool:
        """Let `token` hold `player_id`'s seat as well (idempotent). A tournament derives each
        entrant's seat token from the entrant's own token rather than keep one (app/
        tournaments/service.py `me`). False when the room holds no such player, or the token
        is another member's."""
        await self._load(room)  # before the lock: an unknown room must not leave one behind
        async with self._lock(room):
            record = await self._load(room)
            holder = record.member(token)
            if holder is not None:
                return holder.member_id == player_id and holder.role == "player"
            seated = next(
                (
                    m
                    for m in record.members.values()
                    if m.member_id == player_id and m.role == "player"
                ),
                None,
            )
            if seated is None:
                return False
            await self._add_credential(record, token, Member(player_id, "player", seated.name))
        return True

    async def _add_credential(self, record: RoomRecord, token: str, member: Member) -> None:
        """Store a new token of the room (a write without events: no version, no notice),
        under the room's lock, and hand it to the recorder for a restart."""
        record.add_member(token, member)
        if not await self.store.commit(record.code, record.version, record, []):
            raise RoomError("conflict", "room changed, try again", 409)
        await self._remember(record.code, token, member, self.clock())

    async def summary(self, room: str) -> dict[str, Any]:
        record = await self._load(room)
        public = engine.view(record.state, None, self.clock())
        seats = [
            {key: value for key, value in seat.items() if key != "backs"}
            for seat in public["seats"]
        ]
        return {
            "room": room,
            "url": f"/r/{room}",
            "status": public["status"],
            "version": record.version,
            "settings": public["settings"],
            "host": public.get("host"),
            "match_id": public.get("match_id"),
            "round": public.get("round"),
            "seats": seats,
            "scores": [seat.get("score", 0) for seat in seats],
            "spectators": len(record.state.spectators),  # watching now, as in the view
        }

    async def deck(self, room: str) -> dict[str, Any]:
        record = await self._load(room)
        listing: dict[str, Any] = engine.deck_listing(
            record.state, test_hooks=self.config.uno_test_hooks
        )
        return listing

    async def _load(self, room: str) -> RoomRecord:
        record = await self._restored(room)
        if record is None:
            raise RoomError("not_found", "no such room", 404)
        return record

    async def _restored(self, room: str) -> RoomRecord | None:
        """The room held here, else restored from its latest round end (app/rooms/restore.py);
        RoomError 503 when the database cannot say whether it has one."""
        try:
            return await self.restorer.load(room)
        except (RecorderUnavailable, StoreUnavailable) as exc:
            raise RoomError("unavailable", "the room cannot be loaded now, retry", 503) from exc

    async def _remember(self, room: str, token: str, member: Member | None, now: int) -> None:
        """Hand the new credential to the recorder (it queues the write: nothing waits here),
        so that the room can be restored with its members after a restart."""
        if member is None:
            return
        try:
            await self.recorder.member_added(
                MemberRecord(
                    room, token_digest(token), member.member_id, member.role, member.name, now
                )
            )
        except Exception:  # the room works without it; only a restart would miss the member
            log.exception("could not record a room member")

    # --- reads for the transport (it never reaches into the store) -----------------------

    async def current_state(self, room: str) -> State | None:
        """The room's state now; None when it is gone from the store."""
        record = await self.store.load(room)
        return None if record is None else record.state

    async def commits_since(self, room: str, version: int) -> list[Commit] | None:
        """The commits after `version` (RoomStore.commits_since): the live fan-out."""
        return await self.store.commits_since(room, version)

    async def events_since(self, room: str, version: int) -> list[Event] | None:
        """The events after `version` (RoomStore.events_since): resumes and welcomes' logs."""
        return await self.store.events_since(room, version)

    # --- WebSocket: identities and commands --------------------------------------------

    async def identify(self, room: str, token: str) -> Identity | None:
        """Who holds `token` in `room`; None when nobody (or no such room). May restore the
        room (RoomError 503 when the database cannot say)."""
        record = await self._restored(room)
        if record is None:
            return None
        member = record.member(token)
        if member is None:
            return None
        self._touched[room] = self.clock()
        self._unopened.pop(room, None)
        if member.role == "spectator":
            return Identity(member.member_id, "spectator", None)
        seat = _own_seat(record.state, member.member_id)
        if seat is None:
            return None  # left: the seat is gone (lobby) or a bot's for good (in a match)
        return Identity(member.member_id, "player", seat)

    @retried
    async def submit(self, room: str, who: Identity, command: Command) -> Outcome:
        async with self._lock(room):
            record = await self.store.load(room)
            if record is None:  # the socket outlived the room here: bring it back if we can
                with contextlib.suppress(RoomError):
                    record = await self._restored(room)
            if record is None:
                return Outcome(code="unauthorized", message="the room is gone")
            state, events = self._due_timeouts(room, record.state)
            seat = _own_seat(state, who.member_id) if who.role == "player" else None
            action = command.action
            spectating = None
            if who.role == "spectator" and isinstance(action, act.Chat):
                # The one command of a spectator: chat, under their name, marked as theirs.
                spectating = _spectator_name(record, who.member_id)
                if spectating is not None:
                    action = act.Chat(action.text, spectator=spectating)
            if seat is None and spectating is None:
                outcome = Outcome(code="unauthorized", message="no seat of yours in this room")
            else:
                known = record.known_ack(who.member_id, command.command_id)
                if known is not None:
                    outcome = remembered(known)
                else:
                    outcome, state, events = self._command(state, events, seat, command, action)
                    if outcome.unpenalised is not None:
                        held, refusal = await self._trial_at(room, who.member_id, command)
                        if held and refusal is None:
                            state, events = outcome.unpenalised
                            outcome = Outcome(code="stale", message="the table moved on")
                    elif outcome.refusal is not None:
                        _held, then = await self._trial_at(room, who.member_id, command)
                        if outcome.refusal[0] == then:  # refused then too: its own code
                            outcome = Outcome(code=outcome.refusal[0], message=outcome.refusal[1])
                    if outcome.version is not None:
                        record.remember_ack(who.member_id, command.command_id, outcome.version)
                    elif outcome.committed is not None:
                        record.remember_ack(who.member_id, command.command_id, -outcome.committed)
            if events:
                await self._commit(record, state, events)
            elif outcome.code is not None and record.assumed and self.shared is not None:
                # Refused on this process's newest record, not the stored one, which may be
                # newer (a late notice) or hold this command's ack (applied elsewhere):
                # decided again on the stored record.
                self.shared.store.doubt(room)
                raise CommitConflict("refused on an assumed record")
            return outcome

    def _command(
        self,
        state: State,
        events: list[Event],
        seat: int | None,
        command: Command,
        action: act.Action,
    ) -> tuple[Outcome, State, list[Event]]:
        try:
            after, produced = self._apply(state, seat, action)
        except EngineError as exc:
            version = state.version
            before, before_events = state, events
            if exc.state is not None:
                # Refused, yet with consequences: a false UNO catch costs the catcher; any
                # command of an away seat's player hands the seat back (RULES 29).
                if exc.events:
                    exc.events[-1].after = exc.state
                state, events = exc.state, events + exc.events
                if exc.code == "not_catchable" and isinstance(action, act.Catch):
                    # Remembered: a resend of its id must not cost the penalty again.
                    unpenalised = None
                    if command.at is not None and command.at < version:
                        # Only the player's return (an away seat's), as for any refusal.
                        back, returned = self._apply(before, seat, act.Back())
                        unpenalised = (back, before_events + returned)
                    return (
                        Outcome(
                            code=exc.code,
                            message=exc.message,
                            committed=state.version,
                            unpenalised=unpenalised,
                        ),
                        state,
                        events,
                    )
            if command.at is not None and command.at < version:
                stale = Outcome(
                    code="stale", message="the table moved on", refusal=(exc.code, exc.message)
                )
                return stale, state, events
            return Outcome(code=exc.code, message=exc.message), state, events
        return Outcome(version=after.version), after, events + produced

    async def _trial_at(
        self, room: str, member_id: str, command: Command
    ) -> tuple[bool, str | None]:
        """Whether the history holds the state at version `at` (the one the client decided
        on), and the code that state would have refused `command` with (None: legal then,
        or not held, or the trial failed)."""
        at = command.at
        if at is None or at < 1:
            return False, None
        old = await self.store.state_at(room, at)
        if old is None:
            return False, None
        seat = engine.seat_of(old, member_id)
        if seat is None:
            return True, "unauthorized"
        try:
            # A throwaway generator: a trial must not move the room's randomness.
            engine.apply(old, seat, command.action, random.Random(at), self.clock())
        except EngineError as exc:
            return True, exc.code
        except Exception:  # a trial must never fail the command: keep the plain `stale`
            log.exception("stale check failed")
            return False, None
        return True, None

    async def set_connected(self, room: str, member_id: str, connected: bool) -> None:
        if self.presence is None:
            await self._set_connected(room, member_id, connected, None)
            return
        # Recorded before the commit (app/rooms/presence.py); a socket closing here leaves the
        # seat connected while another process holds a newer socket of it.
        await self.presence.holding(room, member_id, connected)
        held = None if connected else self.presence.held
        if await self._set_connected(room, member_id, connected, held) is None:
            # Not committed (Redis unreachable, or the room too busy): the seat would show
            # the opposite for as long as this process lives. Presence settles it later.
            self.presence.unsettled(room, member_id)

    async def disconnect_unless_held(
        self, room: str, member_id: str, held: Callable[[str, str], Awaitable[bool]]
    ) -> bool:
        """Mark the seat disconnected unless `held` says a live process holds its socket
        (checked inside each compare-and-set attempt); True when this marked it."""
        return await self._set_connected(room, member_id, False, held)

    @retried
    async def _set_connected(
        self,
        room: str,
        member_id: str,
        connected: bool,
        held: Callable[[str, str], Awaitable[bool]] | None,
    ) -> bool:
        async with self._lock(room):
            record = await self.store.load(room)
            if record is None:
                return False
            seat = engine.seat_of(record.state, member_id)
            action: act.Action
            if seat is not None:
                action = act.SetConnected(seat, connected)
            else:
                name = _spectator_name(record, member_id)
                if name is None:
                    return False
                action = act.Watching(member_id, name, connected)
            try:
                state, events = self._apply(record.state, None, action)
            except EngineError:
                return False
            if events and held is not None and await held(room, member_id):
                return False
            if events:
                await self._commit(record, state, events)
            elif connected and self.shared is not None:
                # Shown connected already (its socket on another process has not closed yet):
                # a write without events all the same. A process closing that other socket
                # may have checked `held` just before this one recorded its socket; this
                # write makes its compare-and-set fail, and its next attempt sees us.
                await self._commit(record, state, [])
            return bool(events)

    # --- timers and bots ----------------------------------------------------------------

    @retried
    async def wake(self, room: str) -> None:
        """The scheduler's call: apply the due deadlines, then at most one bot move."""
        async with self._lock(room):
            record = await self.store.load(room)
            if record is None:
                return
            state, events = self._due_timeouts(room, record.state)
            if self.shared is not None and not events:
                self._claimed(room, state)
            state, bot_events = self._bot_move(room, state)
            events += bot_events
            if events:
                await self._commit(record, state, events, used=False)
            else:
                self._plan(room, state)

    def _due_timeouts(self, room: str, state: State) -> tuple[State, list[Event]]:
        events: list[Event] = []
        for _ in range(MAX_TIMEOUTS_PER_WAKE):
            now = self.clock()
            tried = self._tried_at(room, state.version)
            due = [
                d
                for d in engine.deadlines(state)
                if d.at <= now and (d.kind, d.set_at) not in tried.keys
            ]
            if not due:
                break
            first = min(due, key=lambda d: d.at)
            tried.keys.add((first.kind, first.set_at))
            try:
                state, produced = self._apply(state, None, act.Timeout(first.kind, first.set_at))
            except EngineError as exc:
                log.warning("timeout %s refused by the engine: %s", first.kind, exc.code)
                continue
            except Exception:  # keep the room's other timers alive
                log.exception("timeout %s failed", first.kind)
                continue
            events += produced
        return state, events

    def _tried_at(self, room: str, version: int) -> _Tried:
        tried = self._tried.get(room)
        if tried is None or tried.version != version:
            tried = self._tried[room] = _Tried(version, set())
        return tried

    def _bot_move(self, room: str, state: State) -> tuple[State, list[Event]]:
        plan = self._bots.get(room)
        if plan is None or plan.version != state.version or plan.at is None:
            return state, []
        if plan.at > self.clock():
            return state, []
        plan.at = None  # one try per version: a refused or empty move must not spin
        for seat in engine.bot_seats(state):
            try:
                action = bot_action(state, seat, self.rng)
                if action is None:
                    continue
                return self._apply(state, seat, action, bot=True)
            except EngineError as exc:
                log.warning("bot move refused by the engine: %s", exc.code)
            except Exception:  # a policy bug must not stop the room's timers
                log.exception("bot move failed")
        return state, []

    def _plan(self, room: str, state: State) -> None:
        """Schedule the room's one wake-up: the earliest deadline or the next bot move."""
        if self.shared is not None:
            self.shared.plan(room, state)
            return
        self.scheduler.schedule(room, self._next_wake(room, state))

    def _claimed(self, room: str, state: State) -> None:
        """A shared wake-up index entry was claimed for this version: the bot move it may
        stand for was planned by whichever process committed the version (maybe not this
        one), and its time has come."""
        plan = self._bots.get(room)
        if plan is None or plan.version != state.version:
            self._bots[room] = _BotPlan(state.version, self.clock())

    def _next_wake(self, room: str, state: State) -> int | None:
        """The room's one wake-up: the earliest deadline or the next bot move."""
        if state.status == "round_over" and not _played_for_someone(state):
            # Every seat is a bot (the last person left): the round under way was played out,
            # but no next one is dealt for nobody, or a stranger could leave rooms of bots
            # playing match after match. A spectator's arrival (a commit) wakes the table.
            return None
        candidates: list[int] = []
        tried = self._tried_at(room, state.version)
        for d in engine.deadlines(state):
            if (d.kind, d.set_at) not in tried.keys:
                candidates.append(d.at)
        bot_at = self._bot_due(room, state)
        if bot_at is not None:
            candidates.append(bot_at)
        return min(candidates) if candidates else None

    def _bot_due(self, room: str, state: State) -> int | None:
        plan = self._bots.get(room)
        if plan is not None and plan.version == state.version:
            return plan.at
        at: int | None = None
        for seat in engine.bot_seats(state):
            try:
                wants = bot_action(state, seat, self.rng)
            except Exception:
                log.exception("bot policy failed")
                wants = None
            if wants is not None:
                at = self.clock() + self._bot_delay(state)
                if isinstance(wants, act.Catch) and state.settings.bot_delay_ms is None:
                    at = max(at, catch_at(state, self.clock(), self.rng) or at)
                break
        self._bots[room] = _BotPlan(state.version, at)
        return at

    def _bot_delay(self, state: State) -> int:
        configured = state.settings.bot_delay_ms
        if configured is not None:
            return configured
        return self.rng.randint(*BOT_DELAY_MS)

    # --- the one place where state changes ---------------------------------------------

    def _apply(
        self, state: State, seat: int | None, action: act.Action, *, bot: bool = False
    ) -> tuple[State, list[Event]]:
        after, events = engine.apply(
            state, seat, action, self.rng, self.clock(), trace=True, bot=bot
        )
        if events:
            # The last event's view must show everything its command did. The engine promises
            # this; the guard costs nothing and keeps a stale compiled engine from showing a
            # player a turn that has already passed.
            events[-1].after = after
        return after, events

    async def _commit(
        self, record: RoomRecord, state: State, events: list[Event], *, used: bool = True
    ) -> None:
        """`used`: someone did this (a command, a join, a socket); a timer's or a bot's commit
        is not a use, or a table nobody comes back to would never be idle: an absent host with
        nobody to hand over to expires every 60 s, for ever, and bots play on."""
        if used:
            self._touched[record.code] = self.clock()
        if self.shared is not None:  # compare-and-set; wake-up, rounds and notice included
            await self.shared.commit(record, state, events, used=used)
            # Reserved here too: a room Redis lost comes back from a checkpoint a few seconds
            # old, and must go on above every version it sent since.
            await self.versions.committed(record.code, state.version, self.clock())
            return
        expected = record.version
        # A completed round is durable before anyone can see its `round_ended`.
        await self.rounds.report(record, events, self.clock())
        for observe in self.commit_observers:
            observe(record.code, events)
        record.state = state
        if not await self.store.commit(record.code, expected, record, events):
            raise RuntimeError("room store refused a commit under the room lock")
        await self.versions.committed(record.code, state.version, self.clock())
        self._plan(record.code, state)
        if events:
            await self.bus.publish(record.code, notices.notice(record.code, state.version))


def _own_seat(state: State, member_id: str) -> int | None:
    """The seat `member_id` plays; None once it left (a seat left mid-match is a bot's)."""
    seat = engine.seat_of(state, member_id)
    if seat is None or state.seats[seat].left:
        return None
    return seat


def _spectator_name(record: RoomRecord, member_id: str) -> str | None:
    for member in record.members.values():
        if member.member_id == member_id and member.role == "spectator":
            return member.name
    return None


def _clean_name(name: str) -> str:
    try:
        return clean_name(name)
    except BadName as exc:
        raise RoomError(exc.code, str(exc), 400) from exc


def _new_id() -> str:
    return "p_" + secrets.token_urlsafe(9)


def _played_for_someone(state: State) -> bool:
    """A person's seat (absent or not: an AFK seat's bot plays for its player) or a
    spectator watching."""
    return bool(state.spectators) or any(not info.bot for info in state.seats)
