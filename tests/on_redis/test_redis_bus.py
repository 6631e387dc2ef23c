"""RedisBus on the real Redis: notices reach every process subscribed to the room, and a
pub/sub connection killed by the server (CLIENT KILL TYPE pubsub) is repaired by the
watchdog, which also fills in the notices published while it was dead."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from app.bus import notices
from app.bus.redis import RedisBus
from app.engine import new_table, parse_settings
from app.engine.events import Event
from app.store.redis import RedisRoomStore
from app.store.rooms import RoomRecord

from .conftest import kill_pubsub

pytestmark = pytest.mark.redis


async def _commit(store: RedisRoomStore, room: str, version: int) -> None:
    record = await store.load(room)
    assert record is not None
    record.state = record.state.clone()
    record.state.version = version
    events = [Event("chat", version)]
    await store.commit_shared(room, version - 1, record, events, wake_at=None)


async def _next(messages: AsyncIterator[bytes], timeout: float) -> int:
    """The next notice past version 0 (subscribing reports the current version once)."""
    while True:
        data = await asyncio.wait_for(anext(messages), timeout)
        parsed = notices.parse(data)
        assert parsed is not None
        version = parsed[0]
        if version > 0:
            return version


def _bus(store: RedisRoomStore, check: float = 0.5) -> RedisBus:
    return RedisBus(store.client, store.channel, store.versions, check_seconds=check)


async def _room(store: RedisRoomStore, room: str) -> None:
    state = new_table(room, parse_settings({}))
    assert await store.create(RoomRecord(code=room, state=state, created_at=0), [])


async def test_notices_reach_every_process(store: RedisRoomStore) -> None:
    await _room(store, "r1")
    buses = [_bus(store), _bus(store)]
    try:
        async with contextlib.AsyncExitStack() as stack:
            streams = [await stack.enter_async_context(b.subscribe("r1")) for b in buses]
            await _commit(store, "r1", 1)
            await _commit(store, "r1", 2)
            for messages in streams:
                seen = [await _next(messages, 2.0)]
                while seen[-1] < 2:
                    seen.append(await _next(messages, 2.0))
                assert seen[-1] == 2 and seen == sorted(seen)
    finally:
        for bus in buses:
            await bus.close()


async def test_a_killed_pubsub_connection_is_repaired(
    store: RedisRoomStore, redis_client: Redis
) -> None:
    await _room(store, "r1")
    bus = _bus(store, check=0.5)
    try:
        async with bus.subscribe("r1") as messages:
            await _commit(store, "r1", 1)
            assert await _next(messages, 2.0) == 1
            assert await kill_pubsub(redis_client, store.prefix) == 1
            await _commit(store, "r1", 2)  # its notice may go to the dead connection
            assert await _next(messages, 5.0) == 2
            # Repaired for good: later notices arrive by pub/sub again, at once.
            await asyncio.sleep(1.0)
            before = bus.repairs
            await _commit(store, "r1", 3)
            assert await _next(messages, 0.4) == 3
            assert bus.repairs == before
    finally:
        await bus.close()


async def _publishes(client: Redis) -> int:
    """PUBLISH calls Redis made so far (those from functions included)."""
    stats = await client.info("commandstats")
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


async def test_a_commit_heard_only_here_is_not_published(
    store: RedisRoomStore, redis_client: Redis
) -> None:
    """The committing process tells its own subscribers (`local`); the commit function
    publishes only when another process subscribes to the room, and then each subscriber
    hears of the version once."""
    await _room(store, "r1")
    here, there = _bus(store, check=30), _bus(store, check=30)
    store.listening, store.announce = here.listening, here.local
    try:
        async with here.subscribe("r1") as mine:
            published = await _publishes(redis_client)
            await _commit(store, "r1", 1)
            assert await _next(mine, 1.0) == 1
            await _commit(store, "r1", 2)
            assert await _next(mine, 1.0) == 2
            assert await _publishes(redis_client) == published  # nobody else to tell
            async with there.subscribe("r1") as theirs:
                assert await _next(theirs, 1.0) == 2  # the version when it subscribed
                await _commit(store, "r1", 3)
                assert await _next(mine, 1.0) == 3
                assert await _next(theirs, 1.0) == 3
                assert await _publishes(redis_client) == published + 1
                await asyncio.sleep(0.2)  # the published copy reached `here` too: not again
                with pytest.raises(TimeoutError):
                    await _next(mine, 0.3)
    finally:
        for bus in (here, there):
            await bus.close()
