"""Room members waiting for the database: handed-out credentials are queued here in memory
and written in the background, so that creating, joining or watching a room never waits for
the database (and works while it is down).

Why memory and not the durable outbox: a credential matters after a restart only if the room
also reached a round end, which is written far later than the join; the queue is normally
empty within milliseconds. A process that dies while the database is down loses the queued
credentials (its rooms are memory-only anyway until their first stored round).
"""

from __future__ import annotations

import asyncio

from app.store.recorder import MemberRecord

BATCH_MAX = 500  # credentials per transaction


class MemberQueue:
    """Credentials, and rooms' version ceilings (app/rooms/versions.py), waiting to be written."""

    def __init__(self) -> None:
        self._pending: dict[tuple[str, str], MemberRecord] = {}  # (room, token hash), in order
        self.ceilings: dict[str, tuple[int, int]] = {}  # room → (highest ceiling, at)
        self.wake = asyncio.Event()

    def __len__(self) -> int:
        return len(self._pending) + len(self.ceilings)

    def put_ceiling(self, room: str, ceiling: int, at: int) -> None:
        known = self.ceilings.get(room)
        if known is None or known[0] < ceiling:
            self.ceilings[room] = (ceiling, at)
        self.wake.set()

    def take_ceilings(self) -> dict[str, tuple[int, int]]:
        """The waiting ceilings (removed: put them back with `put_ceiling` if the write fails)."""
        taken, self.ceilings = self.ceilings, {}
        return taken

    def put(self, member: MemberRecord) -> None:
        self._pending.setdefault((member.room, member.token_hash), member)
        self.wake.set()

    def batch(self) -> list[MemberRecord]:
        """The oldest waiting credentials (they stay queued until `done`)."""
        batch = []
        for member in self._pending.values():
            batch.append(member)
            if len(batch) >= BATCH_MAX:
                break
        return batch

    def done(self, members: list[MemberRecord]) -> None:
        for member in members:
            self._pending.pop((member.room, member.token_hash), None)

    def for_room(self, room: str) -> list[MemberRecord]:
        return [m for m in self._pending.values() if m.room == room]
