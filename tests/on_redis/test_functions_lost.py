"""A Redis that lost its functions (restarted without its AOF, or FUNCTION FLUSH) gets them
loaded again by the first call that misses them; a flushed Redis answers "no such room" (the
rooms then come back from their database checkpoints), not an error. On a private
redis-server: the machine's shared Redis is never flushed."""

from __future__ import annotations

from pathlib import Path

import pytest
from cluster.harness import PrivateRedis

from app.engine import new_table, parse_settings
from app.engine.events import Event
from app.store.redis import RedisRoomStore, connect, load_functions
from app.store.rooms import RoomRecord

pytestmark = pytest.mark.redis


async def test_functions_are_loaded_again(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    await redis.start()
    client = connect(redis.url, timeout=2.0)
    try:
        await load_functions(client)
        store = RedisRoomStore(client, prefix="f")
        state = new_table("R1", parse_settings({}))
        assert await store.create(RoomRecord(code="R1", state=state, created_at=0), [])

        await client.function_flush()
        other = RedisRoomStore(client, prefix="f")  # no cached record: it must ask Redis
        loaded = await other.load("R1")
        assert loaded is not None and loaded.state.version == state.version
        assert await client.function_list()  # loaded again

        loaded.state = loaded.state.clone()
        loaded.state.version += 1
        await client.function_flush()
        await other.commit_shared(
            "R1", state.version, loaded, [Event("chat", loaded.state.version)], wake_at=None
        )
        assert await client.hget(store.key("R1", "state"), "v") == str(state.version + 1).encode()

        await client.function_flush()
        assert await client.flushall()
        assert await RedisRoomStore(client, prefix="f").load("R1") is None
    finally:
        await client.aclose()
        redis.kill()
