"""A room that lost some of its keys in Redis but not its state hash (a Redis `maxmemory`
with an evicting policy removes keys one at a time, least recently used first; every room key
has an expiry, so `volatile-*` policies pick them too).

The state hash says the room exists at version V, but the snapshot of V is gone: no process
can read the room, and the restore from the database must not be refused because the hash is
still there (a valid token would meet 4401 `unauthorized` and the HTTP summary a 404 until
the hash expired, up to a day later)."""

from __future__ import annotations

import random

import pytest
from redis.asyncio import Redis

from app.bus.redis import RedisBus
from app.engine import actions as act
from app.rooms.checkpoints import Checkpointer
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.redis import RedisRoomStore

pytestmark = pytest.mark.redis


def _cmd(action: act.Action, command_id: str) -> Command:
    return Command(type(action).__name__.lower(), command_id, None, action)


def _process(redis_client: Redis, prefix: str, recorder: MemoryRecorder) -> RoomService:
    store = RedisRoomStore(redis_client, prefix=prefix)
    bus = RedisBus(redis_client, store.channel, store.versions)
    service = RoomService(
        AppSettings(database_url="memory://", uno_test_hooks=True),
        store,
        bus,
        recorder,
        rng=random.Random(11),
    )
    service.share(store)
    return service


@pytest.mark.parametrize("lost", [("snaps",), ("snaps", "snapv")])
async def test_a_room_whose_snapshot_was_evicted_comes_back_from_its_checkpoint(
    redis_client: Redis, prefix: str, lost: tuple[str, ...]
) -> None:
    recorder = MemoryRecorder()
    a = _process(redis_client, prefix, recorder)  # the process that played the room
    b = _process(redis_client, prefix, recorder)  # another one, holding nothing of it
    checkpoints = Checkpointer(a.store, recorder, a.clock, interval=3600)
    assert isinstance(a.store, RedisRoomStore)
    a.store.written = checkpoints.changed_rooms
    try:
        host = await a.create_room("Ann", {"turn_seconds": 0}, drop_departed=True)
        guest = await a.join(host.room, "Bob")
        room = host.room
        ann = Identity(host.player_id, "player", host.seat)
        assert (await a.submit(room, ann, _cmd(act.Start(), "s"))).version
        played = await a.submit(room, ann, _cmd(act.Chat("hi"), "c"))
        assert played.version is not None
        await checkpoints.flush()

        await redis_client.delete(*(f"{prefix}:{{{room}}}:{name}" for name in lost))
        assert await redis_client.exists(f"{prefix}:{{{room}}}:state")

        summary = await b.summary(room)  # was RoomError not_found: restored now
        assert summary["status"] == "playing"
        assert summary["version"] > played.version
        bob = Identity(guest.player_id, "player", guest.seat)
        assert await b.identify(room, guest.token) == bob  # was None: 4401 unauthorized
        again = await b.submit(room, bob, _cmd(act.Chat("back"), "back"))
        assert again.version is not None and again.version > played.version
    finally:
        await a.bus.close()
        await b.bus.close()
