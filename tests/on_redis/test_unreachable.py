"""A process cut off from Redis stops acknowledging: commands are answered `unavailable`
(retryable, nothing applied), joins 503, the health probes say so; once Redis answers again the
resent command applies once."""

from __future__ import annotations

import random

import pytest
from redis.asyncio import Redis

from app.bus.redis import RedisBus
from app.engine import actions as act
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomError, RoomService
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


async def test_commands_wait_for_redis_and_apply_once(redis_client: Redis, prefix: str) -> None:
    live = _service(redis_client, prefix)
    host = await live.create_room("A", None)
    who = Identity(host.player_id, "player", 0)
    chat = Command("chat", "c1", None, act.Chat("hi"))

    # The same rooms through a client whose Redis does not answer (a closed port).
    dead_client = connect("redis://127.0.0.1:1/0", timeout=0.3, wait=0.3)
    cut = _service(dead_client, prefix)
    outcome = await cut.submit(host.room, who, chat)
    assert outcome.code == "unavailable" and outcome.version is None
    with pytest.raises(RoomError) as refused:
        await cut.join(host.room, "B")
    assert refused.value.status == 503
    with pytest.raises(RoomError) as hello:  # a hello: the socket is told to come back
        await cut.identify(host.room, host.token)
    assert hello.value.code == "unavailable" and hello.value.status == 503
    assert not await cut.store.healthy() and not await cut.bus.healthy()
    await dead_client.aclose()

    before = await live.store.load(host.room)
    assert before is not None
    first = await live.submit(host.room, who, chat)  # the client resends once Redis is back
    again = await live.submit(host.room, who, chat)
    assert first.version == before.version + 1 and again == first
    events = await live.store.events_since(host.room, before.version)
    assert events is not None and [e.kind for e in events] == ["chat"]
    await live.bus.close()
