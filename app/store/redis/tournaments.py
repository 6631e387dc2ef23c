"""Tournaments in Redis (REDIS_URL set): every process reads and changes any tournament.

Each write is one Function call (tournaments.lua): create if absent, compare-and-set on the
record's version, the lease of the process driving the tables. The record is the JSON of
app/tournaments/records.py; keys `P:t:{T}:...` share T's slot.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.store.redis.client import call_function, guard
from app.tournaments.records import TournamentRecord, from_json, to_json

log = logging.getLogger(__name__)

LIBRARY = Path(__file__).with_name("tournaments.lua")


class RedisTournamentStore:
    def __init__(
        self, client: Redis, *, prefix: str = "uno", ttl_seconds: int = 7 * 24 * 3600
    ) -> None:
        self.client = client
        self.prefix = prefix
        self._ttl_ms = max(1, ttl_seconds) * 1000

    async def start(self) -> None:
        try:
            await self._load_functions()
        except (RedisError, OSError) as exc:  # loaded by the first call that misses them
            log.warning("tournament functions not loaded yet: %s", type(exc).__name__)

    async def _load_functions(self) -> None:
        await self.client.function_load(LIBRARY.read_text(), replace=True)

    # --- keys -----------------------------------------------------------------------------

    def key(self, code: str, name: str) -> str:
        return f"{self.prefix}:t:{{{code}}}:{name}"

    @property
    def codes_key(self) -> str:
        return f"{self.prefix}:t:codes"

    @property
    def running_key(self) -> str:
        return f"{self.prefix}:t:running"

    def _keys(self, code: str) -> list[str]:
        return [self.key(code, "rec"), self.codes_key, self.running_key]

    # --- the TournamentStore interface ----------------------------------------------------

    async def create(self, record: TournamentRecord) -> bool:
        version = max(record.version, 1)
        created = await self._call(
            "uno_t_create",
            self._keys(record.code),
            [record.code, version, _blob(record), record.status, self._ttl_ms],
        )
        if created:
            record.version = version
        return bool(created)

    async def load(self, code: str) -> TournamentRecord | None:
        version, blob = await self._guard(self.client.hmget(self.key(code, "rec"), ["v", "b"]))
        if version is None or blob is None:
            return None
        return from_json(orjson.loads(blob), int(version))

    async def save(self, record: TournamentRecord, *, durable: bool = False) -> bool:
        ok, version = await self._call(
            "uno_t_save",
            self._keys(record.code),
            [record.code, record.version, _blob(record), record.status, self._ttl_ms],
        )
        if ok:
            record.version = int(version)
        return bool(ok)

    async def codes(self) -> list[str]:
        members = await self._guard(self.client.smembers(self.codes_key))
        return sorted(m.decode() for m in members)

    async def running(self) -> list[str]:
        members = await self._guard(self.client.smembers(self.running_key))
        return sorted(m.decode() for m in members)

    async def delete(self, code: str) -> None:
        await self._call("uno_t_delete", self._keys(code), [code])

    async def lease(self, code: str, owner: str, ms: int) -> bool:
        return bool(await self._call("uno_t_lease", [self.key(code, "lease")], [owner, ms]))

    async def release(self, code: str, owner: str) -> None:
        await self._call("uno_t_release", [self.key(code, "lease")], [owner])

    async def close(self) -> None:
        return None  # the client belongs to the rooms' cluster, which closes it

    # --- internals ------------------------------------------------------------------------

    async def _call(self, name: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        return await call_function(self.client, name, keys, args, self._load_functions)

    _guard = staticmethod(guard)


def _blob(record: TournamentRecord) -> bytes:
    return orjson.dumps(to_json(record))
