"""What a room store shared by several processes (Redis) adds to the RoomStore interface.

With one process the room's asyncio lock makes every commit succeed. With several, two
processes may apply commands to the same version: the store's compare-and-set refuses the
second (`CommitConflict`, the caller re-reads and re-validates), a command id already
applied anywhere is refused with the version of its ack (`DuplicateCommand`), and the store
itself may be unreachable (`StoreUnavailable`: nothing was applied, or the outcome is unknown
and the client resends the same id).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from app.engine.events import Event
from app.engine.state import State
from app.store.rooms import RoomRecord, RoomStore


class CommitConflict(Exception):
    """The stored room moved on since it was read: read it again and re-validate."""


class DuplicateCommand(Exception):
    """This command id was applied already (maybe by another process)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"already applied at version {version}")
        self.version = version


class StoreUnavailable(Exception):
    """The shared store cannot be reached; the client should retry the same command."""


# The command the current task is applying: a shared store's `load` fetches that command's
# recorded ack in the same round trip, so `RoomRecord.known_ack` answers a resend.
current_command: ContextVar[tuple[str, str] | None] = ContextVar("current_command", default=None)


@contextmanager
def applying(member_id: str, command_id: str) -> Iterator[None]:
    token = current_command.set((member_id, command_id))
    try:
        yield
    finally:
        current_command.reset(token)


class SharedRoomStore(RoomStore, Protocol):
    """A RoomStore whose commit also plans the room's wake-up, queues its completed rounds
    for the database writers and publishes the notice, in the same atomic step."""

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
        """Raises CommitConflict, DuplicateCommand or StoreUnavailable. Each of `observers`
        is told (room, events) once the commit won, before the events are handed to the
        history. A commit nobody made (`used` False: a timer's, a bot's) does not keep the
        room from expiring."""
        ...

    async def reschedule(self, room: str, version: int, wake_at: int | None) -> None:
        """Set the room's wake-up if it is still at `version`."""
        ...

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[str]:
        """Rooms whose wake-up is due, each pushed `lease_ms` out (claimed by this caller)."""
        ...

    def doubt(self, room: str) -> None:
        """The next load of `room` reads the stored record (after a refusal decided on an
        `assumed` one)."""
        ...

    def held(self, room: str) -> RoomRecord | None:
        """The newest record of `room` this process holds (it committed or heard it), with
        no read of the store; None when it holds none."""
        ...

    def encoded_state(self, room: str, state: State) -> bytes | None:
        """`state` as JSON (engine.state_to_json) when this process still holds the encoding
        its commit of that state sent; None otherwise."""
        ...

    async def versions(self, rooms: Sequence[str]) -> list[int]:
        """The stored version of each room (0 when gone)."""
        ...
