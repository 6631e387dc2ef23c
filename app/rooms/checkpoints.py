"""Checkpoints of the rooms a process holds, every few seconds of activity.

With a shared store (Redis), if Redis loses the rooms (FLUSHALL, an instance replaced without
its AOF, a key expired) a room comes back from the database (app/rooms/restore.py). In the
embedded mode (one process, rooms in memory, a database for the matches) the same brings a
room back after a restart as it was at its last checkpoint, a lobby or a round in progress,
instead of at its last round end (a stop on purpose writes a last checkpoint of every room).

A round end is stored anyway (its snapshot); this adds the rooms in between: every `interval`
seconds, each process writes the rooms it committed to since its last pass, in one
transaction, as it holds them then (with Redis, the state as the JSON its newest commit sent:
encoded once). Never on a command's path: a commit only adds the room to a set.

Several processes may commit to one room and each checkpoints it: the database keeps the
newest version (a version-guarded upsert), so an older checkpoint landing late changes
nothing. A pass that fails (the database down) keeps its rooms for the next one.

What a loss of Redis can still lose is what happened after the room's last checkpoint (up to
`interval` seconds of moves, plus a pass's own time): docs/deploy.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

import orjson

from app import engine
from app.engine.state import State
from app.store.recorder import MatchRecorder, RoomCheckpoint
from app.store.rooms import RoomRecord

log = logging.getLogger(__name__)

BATCH_MAX = 200  # rooms per transaction


class HeldRooms(Protocol):
    """What the checkpointer reads of a store: the rooms it holds, without a read of the
    store when it can (RedisRoomStore, MemoryRoomStore)."""

    def held(self, room: str) -> RoomRecord | None: ...

    def encoded_state(self, room: str, state: State) -> bytes | None: ...

    async def load(self, room: str) -> RoomRecord | None: ...


class Checkpointer:
    def __init__(
        self,
        store: HeldRooms,
        recorder: MatchRecorder,
        clock: Callable[[], int],
        *,
        interval: float,
    ) -> None:
        self._store = store
        self._recorder = recorder
        self._clock = clock
        self.interval = interval
        self._changed: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self.written = 0  # checkpoints handed to the database (tests, figures)

    @property
    def changed_rooms(self) -> set[str]:
        """The rooms written since the last pass: the store adds each room it commits to
        (the hot path: a set insertion, nothing more)."""
        return self._changed

    async def start(self) -> None:
        if self._task is None and self.interval > 0:
            self._task = asyncio.create_task(self._run(), name="room-checkpoints")

    async def stop(self) -> None:
        """Stop, after a last pass (a process stopped on purpose loses nothing it held)."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.flush(), 5.0)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.flush()
            except Exception as exc:  # the database is down: the rooms wait for the next pass
                log.warning("room checkpoints not written (%s)", type(exc).__name__)

    async def flush(self) -> int:
        """Checkpoint every room changed since the last pass; how many were written."""
        rooms = set(self._changed)  # the set itself stays: the store adds to it
        self._changed.clear()
        pending = sorted(rooms)
        written = 0
        try:
            while pending:
                batch, rest = pending[:BATCH_MAX], pending[BATCH_MAX:]
                checkpoints: list[RoomCheckpoint] = []
                for room in batch:
                    # What this process wrote (or heard since): no read of the store. An
                    # older version than the store's is harmless (the upsert keeps the newest,
                    # and whoever wrote the newer one checkpoints it).
                    record = self._store.held(room) or await self._store.load(room)
                    if record is not None:
                        checkpoints.append(self._checkpoint(record))
                if checkpoints:
                    await self._recorder.checkpoint(checkpoints)
                written += len(checkpoints)
                pending = rest
                await asyncio.sleep(0)  # a batch at a time: the tables' moves go on between
        except BaseException:
            self._changed.update(pending)  # this batch and the rest: next pass
            raise
        finally:
            self.written += written
        return written

    def _checkpoint(self, record: RoomRecord) -> RoomCheckpoint:
        return RoomCheckpoint(
            room=record.code,
            version=record.version,
            # The JSON this process sent with its commit, when it holds it: not encoded again.
            # Else encoded here, by orjson (the database's JSON columns would use `json`, a
            # good deal dearer on a state: 0.60x the CPU per checkpoint, bench/checkpoints.py).
            state=self._store.encoded_state(record.code, record.state)
            or orjson.dumps(engine.state_to_json(record.state), option=orjson.OPT_NON_STR_KEYS),
            created_at=record.created_at,
            match_id=record.match_id,
            members={d: (m.member_id, m.role, m.name) for d, m in record.members.items()},
            at=self._clock(),
        )
