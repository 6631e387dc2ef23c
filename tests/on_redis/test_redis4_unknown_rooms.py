"""Looking up a room that does not exist (a stranger's `GET /api/rooms/<anything>` or a
socket's `hello` to a made-up code; GETs have no rate limit) must not take a place in the
process's cache of decoded rooms: each such look-up pushed out the least recently written
real room, whose next command or frame then read its state back from Redis and decoded it."""

from __future__ import annotations

import secrets

import pytest
from redis.asyncio import Redis

from app.engine import new_table, parse_settings
from app.store.redis import RedisRoomStore
from app.store.rooms import RoomRecord

pytestmark = pytest.mark.redis


async def test_unknown_rooms_take_no_place_in_the_cache(redis_client: Redis, prefix: str) -> None:
    store = RedisRoomStore(redis_client, prefix=prefix, rooms_cached=2)
    for room in ("c0", "c1"):
        state = new_table(room, parse_settings({}))
        assert await store.create(RoomRecord(code=room, state=state, created_at=1), [])
    for _ in range(10):
        assert await store.load(secrets.token_urlsafe(16)) is None
    assert store.held("c0") is not None and store.held("c1") is not None
    assert set(store._rooms) == {"c0", "c1"}
