"""Bringing a room back after a restart (or after the idle sweep forgot it).

A room this process does not hold is rebuilt from what the match recorder keeps: the table
state at the room's latest completed round (`latest_snapshot`) and the credentials handed out
in it (`room_members`). The room comes back as it was at that round end (`round_over` or
`match_over`, scores and round number intact), with every human seat marked disconnected
(those are events); its players get back in with
their old tokens, and the host's `start` (or the `next_round` timer, re-derived from the
state's deadlines) deals the next round. A room that never completed a round has no snapshot
and stays gone: lobbies and rounds in progress live in memory only.

Versions go on from the room's recorded version ceiling (versions.py), not from the
snapshot's: the room sent versions past its last round end before it was lost, and a client
that saw them must see the room move forward, never back.

Restores are single-flight per room: everyone asking for the same room meanwhile waits for
the one restore, so two sockets racing cannot build two records.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

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
        if snapshot is None:
            return None
        members = await self.recorder.room_members(room)
        ceiling = await self.recorder.version_ceiling(room)
        try:
            state = engine.state_from_json(snapshot)
        except Exception as exc:
            log.error("room snapshot unreadable (%s); not restored", type(exc).__name__)
            return None
        if state.status not in RESTORABLE:
            log.error("room snapshot in status %s; not restored", state.status)
            return None
        if ceiling > state.version:
            state.version = ceiling  # above anything the room sent before it was lost
        state.spectators = ()  # their sockets went with the process that held them
        state, events = self._disconnect_everyone(state)
        await self.recorder.versions_reserved(room, state.version + VERSION_BLOCK, self._clock())
        record = RoomRecord(code=room, state=state, created_at=self._clock())
        record.match_id = state.match_id  # the match is already recorded: no new match_started
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
        log.info("room restored at round %d (%d player credentials)", state.round, seated)
        self._on_restored(record)
        return record

    def _disconnect_everyone(self, state: State) -> tuple[State, list[Event]]:
        """Nobody is connected to a room that was just restored (the snapshot says otherwise)."""
        events: list[Event] = []
        for seat, info in enumerate(state.seats):
            if info.connected and not info.bot and not info.left:
                state, produced = self._apply(state, None, act.SetConnected(seat, False))
                events += produced
        return state, events
