"""Creating a room while Redis cannot be reached (down, cut off, or refusing writes at its
`maxmemory`) answers 503 `unavailable` like a join (docs/deploy.md "When Redis is
unreachable"), not 500 `internal` with a traceback in the error log."""

from __future__ import annotations

import random

import pytest
from redis.asyncio import Redis

from app.bus.redis import RedisBus
from app.rooms.service import RoomError, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.redis import RedisRoomStore, connect

pytestmark = pytest.mark.redis


def _service(client: Redis, prefix: str) -> RoomService:
    store = RedisRoomStore(client, prefix=prefix)
    service = RoomService(
        AppSettings(database_url="memory://"),
        store,
        RedisBus(client, store.channel, store.versions),
        MemoryRecorder(),
        rng=random.Random(1),
    )
    service.share(store)
    return service


@pytest.mark.parametrize("drop_departed", [True, False])  # over HTTP; a tournament's table
async def test_creating_a_room_without_redis_is_unavailable(
    redis_client: Redis, prefix: str, drop_departed: bool
) -> None:
    dead_client = connect("redis://127.0.0.1:1/0", timeout=0.3, wait=0.3)
    cut = _service(dead_client, prefix)
    try:
        with pytest.raises(RoomError) as refused:
            await cut.create_room("A", None, drop_departed=drop_departed)
        assert refused.value.code == "unavailable" and refused.value.status == 503
    finally:
        await dead_client.aclose()
