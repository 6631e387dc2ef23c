"""The Redis tournament store on the real Redis: the store contract (the checks the memory
store passes too), keys under the tournament's hash tag, two processes' stores (separate
clients) deciding one compare-and-set, the functions reloaded when Redis lost them, and the
database copy bringing back a tournament Redis lost."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis

from app.store.redis.tournaments import RedisTournamentStore
from app.store.sql.engine import make_engine
from app.store.sql.migrate import upgrade_to_head
from app.store.sql.tournaments import SqlTournamentArchive
from app.tournaments.archive import ArchivedStore
from app.tournaments.records import to_json
from app.tournaments.store import TournamentStore
from tests.tournaments.store_contract import CONTRACT, record, running

from .conftest import redis_or_skip

pytestmark = pytest.mark.redis


@pytest.mark.parametrize("check", CONTRACT, ids=lambda c: c.__name__)
async def test_redis_store(
    check: Callable[[TournamentStore], Awaitable[None]], redis_client: Redis, prefix: str
) -> None:
    await check(RedisTournamentStore(redis_client, prefix=prefix))


async def test_keys_share_the_tournaments_slot(redis_client: Redis, prefix: str) -> None:
    store = RedisTournamentStore(redis_client, prefix=prefix, ttl_seconds=60)
    r = running()
    assert await store.create(r)
    assert await store.lease(r.code, "me", 1000)
    keys = sorted([k.decode() async for k in redis_client.scan_iter(match=f"{prefix}:t:*")])
    assert keys == sorted(
        [
            f"{prefix}:t:{{{r.code}}}:rec",
            f"{prefix}:t:{{{r.code}}}:lease",
            f"{prefix}:t:codes",
            f"{prefix}:t:running",
        ]
    )
    ttl = await redis_client.pttl(f"{prefix}:t:{{{r.code}}}:rec")
    assert 0 < ttl <= 60_000  # a record nobody writes expires (the database keeps a copy)


async def test_two_processes_one_winner(redis_client: Redis, prefix: str) -> None:
    other_client = await redis_or_skip(prefix + "-other")
    try:
        here = RedisTournamentStore(redis_client, prefix=prefix)
        there = RedisTournamentStore(other_client, prefix=prefix)
        r = record()
        assert await here.create(r)
        for _ in range(20):
            a, b = await asyncio.gather(here.load(r.code), there.load(r.code))
            assert a is not None and b is not None and a.version == b.version
            a.name, b.name = "A", "B"
            won = await asyncio.gather(here.save(a), there.save(b))
            assert sorted(won) == [False, True]  # exactly one of the two advances it
        final = await here.load(r.code)
        assert final is not None and final.version == 21
    finally:
        await other_client.aclose()


async def test_functions_reloaded_after_redis_lost_them(redis_client: Redis, prefix: str) -> None:
    store = RedisTournamentStore(redis_client, prefix=prefix)
    r = record()
    assert await store.create(r)
    await redis_client.function_delete("uno_tournaments")
    r.name = "After"
    assert await store.save(r)  # loaded again, then applied once
    loaded = await store.load(r.code)
    assert loaded is not None and loaded.name == "After" and loaded.version == 2


async def test_a_tournament_redis_lost_comes_back_from_the_database(
    redis_client: Redis, prefix: str, tmp_path: Path
) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    await upgrade_to_head(engine)
    try:
        archive = SqlTournamentArchive(engine)
        store = ArchivedStore(RedisTournamentStore(redis_client, prefix=prefix), archive)
        r = running()
        assert await store.create(r)
        assert await store.save(r, durable=True)  # a result: copied
        await redis_client.delete(f"{prefix}:t:{{{r.code}}}:rec")  # flushed, expired...
        assert r.code in await store.running()
        back = await store.load(r.code)
        assert back is not None and back.version == 2 and to_json(back) == to_json(r)
        assert r.code in await RedisTournamentStore(redis_client, prefix=prefix).running()
    finally:
        await engine.dispose()
