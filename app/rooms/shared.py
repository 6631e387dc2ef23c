"""The rooms on a store shared by several processes (Redis): what changes for RoomService.

Any process applies any room's command: load, apply the engine, commit with compare-and-set.
The room's asyncio lock still serialises this process's own writers (a cheap fast path);
another process's commit in between makes ours fail with `CommitConflict`, and the whole
operation runs again on the newer state (re-validated: of two simultaneous UNO calls or
catches the first one wins, the second meets the new state). A command id already applied
anywhere answers with its recorded ack.

The commit itself (`commit`) carries what one process did around it: the room's next wake-up
(the earliest deadline or bot move) goes into the shared wake-up index, completed rounds
into the round stream, and the notice is published, all inside the one commit function.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import orjson

from app.engine.events import Event
from app.engine.state import State
from app.rooms.recording import RoundReporter
from app.store.recorder import MatchRecorder, PlayerRecord, RoundRecord
from app.store.rooms import RoomRecord
from app.store.shared import (
    CommitConflict,
    DuplicateCommand,
    SharedRoomStore,
    StoreUnavailable,
    current_command,
)

if TYPE_CHECKING:
    from app.rooms.service import RoomService

log = logging.getLogger(__name__)

# Attempts of one operation against concurrent commits of other processes. Each attempt
# re-reads the room, so this bounds how many other commits one command can lose to in a row.
TRIES = 12
# Jitter between retries of a lost compare-and-set (no game randomness: none is global).
_JITTER = secrets.SystemRandom()

P = ParamSpec("P")
R = TypeVar("R")


def retried(
    method: Callable[Concatenate[RoomService, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[RoomService, P], Coroutine[Any, Any, R]]:
    """Run a RoomService operation again on a compare-and-set conflict (shared store only;
    with the memory store the call is passed straight through). A plain function that hands
    back the coroutine to await: no frame of its own on the path of every command."""

    def run(service: RoomService, /, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, R]:
        shared = service.shared
        if shared is None:
            return method(service, *args, **kwargs)
        command: tuple[str, str] | None = None
        if method.__name__ == "submit":  # (room, who, command)
            who, cmd = args[1], args[2]
            command = (who.member_id, cmd.command_id)  # type: ignore[attr-defined]
        return shared.run(method.__name__, command, method, service, *args, **kwargs)

    run.__name__ = method.__name__
    run.__qualname__ = method.__qualname__
    run.__doc__ = method.__doc__
    return run


class StreamedRounds(RoundReporter):
    """Completed rounds are not sent to the recorder from here but queued per room, and the
    commit function appends them to the round stream atomically with the round's last move.
    (The match start is still sent directly: best effort, idempotent.)"""

    def __init__(self, recorder: MatchRecorder) -> None:
        super().__init__(recorder)
        self.pending: dict[str, list[RoundRecord]] = {}

    async def _send(self, round_record: RoundRecord) -> None:
        self.pending.setdefault(round_record.room, []).append(round_record)

    def take(self, room: str) -> list[RoundRecord]:
        return self.pending.pop(room, [])


def encode_round(record: RoundRecord) -> bytes:
    # orjson encodes the dataclasses itself: dataclasses.asdict would deep-copy the snapshot
    # first (2 ms of a round's last move, measured).
    return orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS)


def decode_round(blob: bytes) -> RoundRecord:
    data = orjson.loads(blob)
    data["players"] = tuple(PlayerRecord(**p) for p in data["players"])
    data["points"] = tuple(data["points"])
    data["scores"] = tuple(data["scores"])
    data["hands"] = tuple(tuple(hand) for hand in data["hands"])
    return RoundRecord(**data)


class SharedRooms:
    def __init__(self, service: RoomService, store: SharedRoomStore) -> None:
        self.service = service
        self.store = store
        self.rounds = StreamedRounds(service.recorder)
        self._planning: set[asyncio.Task[None]] = set()
        self.conflicts = 0  # commits lost to another process (re-run); for tests and figures

    async def run(
        self,
        name: str,
        command: tuple[str, str] | None,
        attempt: Callable[..., Awaitable[R]],
        /,
        *args: Any,
        **kwargs: Any,
    ) -> R:
        from app.rooms.service import Outcome, RoomError, remembered

        for tries in range(TRIES):
            # A command's identity rides along so that `load` fetches its recorded ack.
            token = current_command.set(command) if command is not None else None
            try:
                return await attempt(*args, **kwargs)
            except DuplicateCommand as dup:
                if command is None:
                    raise
                return remembered(dup.version)  # type: ignore[return-value]
            except CommitConflict:
                self.conflicts += 1
                # A little jitter so that losers of a burst do not collide again in step.
                await asyncio.sleep(_JITTER.random() * 0.002 * (tries + 1))
            except RoomError as exc:
                if exc.code != "conflict":
                    raise
                self.conflicts += 1
            except StoreUnavailable as exc:
                log.warning("room store unavailable in %s: %s", name, exc)
                if name == "submit":
                    message = "the room store is unreachable; resend the command"
                    return Outcome(code="unavailable", message=message)  # type: ignore[return-value]
                if name in ("join", "spectate"):
                    raise RoomError("unavailable", "the room store is unreachable", 503) from exc
                return None  # type: ignore[return-value]  # timers: the lease retries them
            finally:
                if token is not None:
                    current_command.reset(token)
        if name == "submit":
            return Outcome(code="unavailable", message="the room is busy, resend")  # type: ignore[return-value]
        if name in ("join", "spectate"):
            raise RoomError("unavailable", "the room is busy, try again", 503)
        log.warning("%s gave up after %d conflicts", name, TRIES)
        return None  # type: ignore[return-value]

    async def commit(
        self, record: RoomRecord, state: State, events: list[Event], *, used: bool = True
    ) -> None:
        service = self.service
        room = record.code
        expected = record.version
        now = service.clock()
        await self.rounds.report(record, events, now)
        pending = self.rounds.take(room)
        record.state = state
        await self.store.commit_shared(
            room,
            expected,
            record,
            events,
            wake_at=service._next_wake(room, state),
            rounds=list(map(encode_round, pending)) if pending else (),
            # Only a commit that won is observed (a lost attempt is re-run on the new state).
            observers=service.commit_observers,
            used=used,
        )

    def plan(self, room: str, state: State) -> None:
        """Set the room's wake-up in the shared index (outside a commit: after a wake-up that
        found nothing due yet, or a restore)."""
        wake_at = self.service._next_wake(room, state)
        task = asyncio.create_task(self._reschedule(room, state.version, wake_at))
        self._planning.add(task)
        task.add_done_callback(self._planning.discard)

    async def _reschedule(self, room: str, version: int, wake_at: int | None) -> None:
        try:
            await self.store.reschedule(room, version, wake_at)
        except StoreUnavailable as exc:  # the claim lease brings the room back later
            log.warning("could not re-plan a room's wake-up: %s", exc)
