"""Versions never go backwards, not even across a restart.

A room lives in memory; after a crash it is restored from its last round end (restore.py),
whose version is lower than the last one its clients saw. So each room reserves its versions
ahead in the database: once its version comes within half a block of the recorded ceiling,
it records a new ceiling a block above. A restored room starts from the recorded ceiling, which
is above every version it could have sent.

The write is queued (recorder.versions_reserved, in the background like a new credential), so
no command waits for the database; it has half a block of versions (64 events: a minute of
play or more) to land before the room could go past the ceiling the database holds. Only a
database down for that long and a crash meanwhile could let a restored room repeat versions.
"""

from __future__ import annotations

import logging

from app.store.recorder import MatchRecorder

log = logging.getLogger(__name__)

VERSION_BLOCK = 128


class VersionReservations:
    def __init__(self, recorder: MatchRecorder) -> None:
        self._recorder = recorder
        self._ceilings: dict[str, int] = {}  # room → the ceiling asked for last

    async def committed(self, room: str, version: int, now: int) -> None:
        """After each commit: reserve the next block when the room nears its ceiling."""
        ceiling = self._ceilings.get(room, 0)
        if version + VERSION_BLOCK // 2 <= ceiling:
            return
        ceiling = version + VERSION_BLOCK
        self._ceilings[room] = ceiling
        try:
            await self._recorder.versions_reserved(room, ceiling, now)
        except Exception:  # the room plays on; only a restore could then start too low
            log.exception("could not reserve a room's versions")

    def rooms(self) -> list[str]:
        """The rooms a ceiling is remembered for."""
        return list(self._ceilings)

    def forget(self, room: str) -> None:
        self._ceilings.pop(room, None)
