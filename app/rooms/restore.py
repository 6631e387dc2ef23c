"""Bringing a room back after a restart (or after the idle sweep forgot it).

A room this process does not hold is rebuilt from what the match recorder keeps: the table
state at the room's latest completed round (`latest_snapshot`), or its latest checkpoint
(`latest_checkpoint`, app/rooms/checkpoints.py: with a shared store, every few seconds of
activity) when that is newer, and the credentials handed out in it (`room_members`). From a
round end the room comes back as it was then (`round_over` or `match_over`, scores and round
number intact); from a checkpoint, as it was then whatever its status: a lobby, or a round in
progress with its hands, piles, turn and timers. Every human seat is marked disconnected
(those are events); its players get back in with their old tokens, and play goes on (the
`next_round` timer, or any other deadline, re-derived from the state's deadlines). A room with
neither stays gone (without a database, or with `EMBEDDED_CHECKPOINT_SECONDS` 0, lobbies and rounds
in progress live in memory only).

Versions go on from the room's recorded version ceiling (versions.py), not from the
snapshot's: the room sent versions past its last round end before it was lost, and a client
that saw them must see the room move forward, never back.

Restores are single-flight per room: everyone asking for the same room meanwhile waits for
the one restore, so two sockets racing cannot build two records.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from app import engine
from app.engine import actions as act
from app.engine.events import Event
from app.engine.state import State
from app.rooms.versions import VERSION_BLOCK
from app.store.recorder import MatchRecorder
from app.store.rooms import Member, RoomRecord, RoomStore

log = logging.getLogger(__name__)

RESTORABLE = frozenset({"round_over", "match_over"})
CODE_MAX = 64  # the longest room code the database holds (rooms.code)

Apply = Callable[[State, int | None, act.Action], tuple[State, list[Event]]]


class Restorer:
    def __init__(
        self,
        store: RoomStore,
        recorder: MatchRecorder,
        apply: Apply,
        clock: Callable[[], int],
        on_restored: Callable[[RoomRecord], None],
    ) -> None:
        self.store = store
        self.recorder = recorder
        self._apply = apply
        self._clock = clock
        self._on_restored = on_restored  # plans the room's timers and bots
        self._flights: dict[str, asyncio.Future[RoomRecord | None]] = {}
        # Whether a live process holds a socket of (room, member) (app/rooms/presence.py, Redis
        # mode): such a seat stays connected when its room is restored.
        self.held: Callable[[str, str], Awaitable[bool]] | None = None

    async def load(self, room: str) -> RoomRecord | None:
        """The room's record: held here, else restored; None when there is nothing to restore.

        Raises RecorderUnavailable (app.store.recorder) when the database cannot tell.
        """
        record = await self.store.load(room)
        if record is not None:
            return record
        if not 0 < len(room) <= CODE_MAX:
            return None  # never a room code: no need to ask the database
        flight = self._flights.get(room)
        if flight is None:
            flight = asyncio.ensure_future(self._restore(room))
            self._flights[room] = flight
            flight.add_done_callback(lambda done: self._land(room, done))
        # shield: a caller that gives up (a socket closing) must not cancel the others' restore
        return await asyncio.shield(flight)

    def _land(self, room: str, done: asyncio.Future[RoomRecord | None]) -> None:
        if self._flights.get(room) is done:
            del self._flights[room]
        if not done.cancelled():
            done.exception()  # retrieved here too, so an unawaited failure is not reported twice

    async def _restore(self, room: str) -> RoomRecord | None:
        snapshot = await self.recorder.latest_snapshot(room)
        checkpoint = await self.recorder.latest_checkpoint(room)
        if snapshot is None and checkpoint is None:
            return None
        members = await self.recorder.room_members(room)
        ceiling = await self.recorder.version_ceiling(room)
        state = _state(snapshot, "snapshot") if snapshot is not None else None
        if state is not None and state.status not in RESTORABLE:
            log.error("room snapshot in status %s; not restored", state.status)
            state = None
        created_at = self._clock()
        if checkpoint is not None and (state is None or checkpoint.version > state.version):
            newer = _state(checkpoint.state, "checkpoint")
            if newer is not None:  # any status: a lobby, a round in progress, a round end
                state, created_at = newer, checkpoint.created_at
        if state is None:
            return None
        if ceiling > state.version:
            state.version = ceiling  # above anything the room sent before it was lost
        state.spectators = ()  # their sockets went with the process that held them
        state, events = await self._disconnect_everyone(room, state)
        await self.recorder.versions_reserved(room, state.version + VERSION_BLOCK, self._clock())
        record = RoomRecord(code=room, state=state, created_at=created_at)
        record.match_id = state.match_id  # the match is already recorded: no new match_started
        if checkpoint is not None:  # credentials whose database write may not have landed
            for digest, (member_id, role, name) in checkpoint.members.items():
                if role == "player":
                    record.members[digest] = Member(member_id, "player", name)
                elif role == "spectator":
                    record.members[digest] = Member(member_id, "spectator", name)
        for m in members:
            if m.role == "player":
                record.members[m.token_hash] = Member(m.member_id, "player", m.name)
            elif m.role == "spectator":
                record.members[m.token_hash] = Member(m.member_id, "spectator", m.name)
        if not await self.store.create(record, events):
            # Created meanwhile by someone else (cannot happen while restores are single-flight
            # and codes are random, but the store is the judge).
            return await self.store.load(room)
        seated = sum(1 for m in record.members.values() if m.role == "player")
        log.info(
            "room restored in status %s at round %d (%d player credentials)",
            state.status,
            state.round,
            seated,
        )
        self._on_restored(record)
        return record

    async def _disconnect_everyone(self, room: str, state: State) -> tuple[State, list[Event]]:
        """Nobody is connected to a room that was just restored (the snapshot says otherwise),
        except through a socket a live process holds."""
        events: list[Event] = []
        for seat, info in enumerate(state.seats):
            if info.connected and not info.bot and not info.left:
                if self.held is not None:
                    try:
                        if await self.held(room, info.player_id):
                            continue
                    except Exception as exc:  # unknown: shown disconnected, as without it
                        log.warning("seat presence unknown (%s)", type(exc).__name__)
                state, produced = self._apply(state, None, act.SetConnected(seat, False))
                events += produced
        return state, events


def _state(blob: dict[str, Any] | bytes, what: str) -> State | None:
    try:
        return engine.state_from_json(orjson.loads(blob) if isinstance(blob, bytes) else blob)
    except Exception as exc:
        log.error("room %s unreadable (%s); not restored from it", what, type(exc).__name__)
        return None
