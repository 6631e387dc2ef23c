"""Where tournament records live: the interface, and the in-memory store of the embedded mode.

Every change is a compare-and-set: `save` writes only over the version the record was loaded
at, so two processes (or two tasks) that both changed a tournament cannot both win; the loser
loads again and re-decides. A lease keeps two processes from driving the same tournament's
tables at once (it saves work, e.g. the same bot added twice; the compare-and-set is what
keeps the record right if a lease runs out mid-step).

With REDIS_URL the Redis store (app/store/redis/tournaments.py) is used instead, and with a
database the archive (app/tournaments/archive.py) keeps a copy at every result.
"""

from __future__ import annotations

import time
from typing import Protocol

import orjson

from app.kept_json import dumps_kept
from app.tournaments.records import (
    RUNNING,
    EntrantRecord,
    TableRecord,
    TournamentRecord,
    from_json,
    to_json,
)

__all__ = [
    "EntrantRecord",
    "MemoryTournamentStore",
    "TableRecord",
    "TournamentRecord",
    "TournamentStore",
]


class TournamentStore(Protocol):
    async def start(self) -> None:
        """Ready the store (Redis: load its functions); a store not ready yet still works."""
        ...

    async def create(self, record: TournamentRecord) -> bool:
        """Store a new tournament at `record.version` (1 when new); False when the code is
        taken. On success the record carries its stored version."""
        ...

    async def load(self, code: str) -> TournamentRecord | None:
        """The caller's own copy, with the version it was stored at."""
        ...

    async def save(self, record: TournamentRecord, *, durable: bool = False) -> bool:
        """Compare-and-set: write `record` if the stored version is still `record.version`
        (then the record's version moves on by one); False when another writer was first.
        `durable`: a result; a store with a database archive writes it there too."""
        ...

    async def codes(self) -> list[str]: ...

    async def running(self) -> list[str]:
        """The codes of the tournaments being played (their tables need watching)."""
        ...

    async def delete(self, code: str) -> None: ...

    async def lease(self, code: str, owner: str, ms: int) -> bool:
        """Take (or renew) the right to drive `code` for `ms`; False when another owner holds it."""
        ...

    async def release(self, code: str, owner: str) -> None: ...

    async def close(self) -> None: ...


class MemoryTournamentStore:
    """One process's tournaments. Records are kept encoded, as a shared store keeps them, so a
    loaded record is never the stored one (a change is not seen before its save)."""

    def __init__(self) -> None:
        self._records: dict[str, tuple[int, bytes, str]] = {}  # code → (version, JSON, status)
        self._leases: dict[str, tuple[str, float]] = {}

    async def start(self) -> None:
        return None

    async def create(self, record: TournamentRecord) -> bool:
        if record.code in self._records:
            return False
        record.version = max(record.version, 1)
        self._records[record.code] = (record.version, dumps_kept(to_json(record)), record.status)
        return True

    async def load(self, code: str) -> TournamentRecord | None:
        held = self._records.get(code)
        if held is None:
            return None
        return from_json(orjson.loads(held[1]), held[0])

    async def save(self, record: TournamentRecord, *, durable: bool = False) -> bool:
        held = self._records.get(record.code)
        if held is None or held[0] != record.version:
            return False
        record.version += 1
        self._records[record.code] = (record.version, dumps_kept(to_json(record)), record.status)
        return True

    async def codes(self) -> list[str]:
        return list(self._records)

    async def running(self) -> list[str]:
        return [code for code, (_, _, status) in self._records.items() if status == RUNNING]

    async def delete(self, code: str) -> None:
        self._records.pop(code, None)
        self._leases.pop(code, None)

    async def lease(self, code: str, owner: str, ms: int) -> bool:
        now = time.monotonic()
        held = self._leases.get(code)
        if held is not None and held[0] != owner and held[1] > now:
            return False
        self._leases[code] = (owner, now + ms / 1000)
        return True

    async def release(self, code: str, owner: str) -> None:
        held = self._leases.get(code)
        if held is not None and held[0] == owner:
            del self._leases[code]

    async def close(self) -> None:
        return None
