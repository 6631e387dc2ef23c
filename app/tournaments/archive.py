"""A tournament store with a database copy: the primary store (Redis, or memory when
embedded) serves every read and compare-and-set; at the start and at every table result the
record is also written to the database, and a tournament the primary store no longer has
(Redis flushed or restarted without its data, every process restarted) is brought back from
there, at its archived version, and goes on from its last result."""

from __future__ import annotations

import logging
import time
from typing import Any, Protocol

from app.tournaments.records import TournamentRecord, from_json, to_json
from app.tournaments.store import TournamentStore

log = logging.getLogger(__name__)

RECOVER_EVERY_SECONDS = 30.0  # how often the scan asks the database for running tournaments


class Archive(Protocol):
    async def put(
        self, code: str, version: int, status: str, touched_at: int, record: dict[str, Any]
    ) -> None: ...

    async def get(self, code: str) -> tuple[int, dict[str, Any]] | None: ...

    async def running(self) -> list[str]: ...


class ArchivedStore:
    def __init__(self, store: TournamentStore, archive: Archive) -> None:
        self.store = store
        self.archive = archive
        self._recover_at = 0.0  # when the scan next looks for running tournaments lost
        self.restored = 0

    async def start(self) -> None:
        await self.store.start()

    async def create(self, record: TournamentRecord) -> bool:
        return await self.store.create(record)

    async def load(self, code: str) -> TournamentRecord | None:
        record = await self.store.load(code)
        if record is not None:
            return record
        try:
            archived = await self.archive.get(code)
        except Exception as exc:  # the database down: as if it had no copy, for now
            log.warning("tournament archive unreadable: %s", type(exc).__name__)
            return None
        if archived is None:
            return None
        version, data = archived
        restored = from_json(data, version)
        if await self.store.create(restored):
            self.restored += 1
            log.info("tournament restored from the database at version %d", version)
            return restored
        return await self.store.load(code)  # another process brought it back first

    async def save(self, record: TournamentRecord, *, durable: bool = False) -> bool:
        if not await self.store.save(record, durable=durable):
            return False
        if durable:
            try:
                await self.archive.put(
                    record.code, record.version, record.status, record.touched_at, to_json(record)
                )
            except Exception as exc:  # kept in the primary store; the next result writes again
                log.warning("tournament not archived: %s", type(exc).__name__)
        return True

    async def codes(self) -> list[str]:
        return await self.store.codes()

    async def running(self) -> list[str]:
        codes = await self.store.running()
        if time.monotonic() >= self._recover_at:
            # Now and then, running tournaments the primary store lost (a flushed Redis, a
            # restarted process) come back from the database and are watched again.
            self._recover_at = time.monotonic() + RECOVER_EVERY_SECONDS
            try:
                lost = set(await self.archive.running()) - set(codes)
            except Exception as exc:
                log.warning("tournament archive unreadable: %s", type(exc).__name__)
                return codes
            for code in sorted(lost):
                if await self.load(code) is not None:
                    codes.append(code)
        return codes

    async def delete(self, code: str) -> None:
        await self.store.delete(code)

    async def lease(self, code: str, owner: str, ms: int) -> bool:
        return await self.store.lease(code, owner, ms)

    async def release(self, code: str, owner: str) -> None:
        await self.store.release(code, owner)

    async def close(self) -> None:
        await self.store.close()
