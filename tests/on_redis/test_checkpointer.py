"""The checkpointer on the real Redis (app/rooms/checkpoints.py): a pass writes the rooms this
process changed since the last pass and only those; a pass the database refused keeps its
rooms for the next; a room whose keys are gone (expired, flushed) comes back from its newest
checkpoint mid-round, with the acknowledged moves up to it and versions above any it sent."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from redis.asyncio import Redis

from app import engine
from app.bus.redis import RedisBus
from app.engine import actions as act
from app.rooms.checkpoints import Checkpointer
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder, RoomCheckpoint
from app.store.redis import RedisRoomStore

from .conftest import count_calls, drop_prefix

pytestmark = pytest.mark.redis


class FlakyRecorder(MemoryRecorder):
    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.batches: list[list[str]] = []
        self.handed: list[RoomCheckpoint] = []

    async def checkpoint(self, checkpoints: Sequence[RoomCheckpoint]) -> None:
        if self.down:
            raise ConnectionError("database down")
        self.batches.append([cp.room for cp in checkpoints])
        self.handed += checkpoints
        await super().checkpoint(checkpoints)


def _cmd(action: act.Action, command_id: str) -> Command:
    return Command(type(action).__name__.lower(), command_id, None, action)


async def _service(
    redis_client: Redis, prefix: str, recorder: FlakyRecorder
) -> tuple[RoomService, Checkpointer]:
    store = RedisRoomStore(redis_client, prefix=prefix)
    bus = RedisBus(redis_client, store.channel, store.versions)
    service = RoomService(
        AppSettings(database_url="memory://", uno_test_hooks=True),
        store,
        bus,
        recorder,
        rng=random.Random(7),
    )
    service.share(store)
    checkpoints = Checkpointer(store, recorder, service.clock, interval=3600)
    store.written = checkpoints.changed_rooms
    return service, checkpoints


async def test_only_changed_rooms_are_written_and_a_failed_pass_is_retried(
    redis_client: Redis, prefix: str
) -> None:
    recorder = FlakyRecorder()
    service, checkpoints = await _service(redis_client, prefix, recorder)
    try:
        a = await service.create_room("Ann", {})
        b = await service.create_room("Bob", {})
        assert await checkpoints.flush() == 2
        assert await checkpoints.flush() == 0  # nothing changed since
        ann = Identity(a.player_id, "player", a.seat)
        assert (await service.submit(a.room, ann, _cmd(act.Chat("hi"), "c1"))).version
        recorder.down = True
        with pytest.raises(ConnectionError):
            await checkpoints.flush()
        recorder.down = False
        store = service.store
        assert isinstance(store, RedisRoomStore)
        reads = count_calls(store)
        assert await checkpoints.flush() == 1  # kept for the next pass
        assert reads == []  # the record this process wrote: no read of Redis
        assert recorder.batches[-1] == [a.room]
        stored = await recorder.latest_checkpoint(a.room)
        record = await service.store.load(a.room)
        assert stored is not None and record is not None and stored.version == record.version
        other = await recorder.latest_checkpoint(b.room)
        created = await service.store.load(b.room)
        assert other is not None and created is not None and other.version == created.version
    finally:
        await service.bus.close()


async def test_a_checkpoint_hands_on_the_state_its_commit_sent(
    redis_client: Redis, prefix: str
) -> None:
    """The state is not encoded again for the checkpoint: the recorder gets the very JSON the
    commit sent to Redis, which reads back as the room's state."""
    recorder = FlakyRecorder()
    service, checkpoints = await _service(redis_client, prefix, recorder)
    store = service.store
    assert isinstance(store, RedisRoomStore)
    sent: list[bytes] = []
    commit = store.commit_shared

    async def spy(*args: Any, **kwargs: Any) -> None:
        await commit(*args, **kwargs)
        sent.append(store._rooms[args[0]].blob)  # type: ignore[arg-type]

    store.commit_shared = spy  # type: ignore[method-assign]
    try:
        host = await service.create_room("Ann", {})
        ann = Identity(host.player_id, "player", host.seat)
        assert (await service.submit(host.room, ann, _cmd(act.Chat("hi"), "c1"))).version
        assert await checkpoints.flush() == 1
        handed = recorder.handed[-1].state
        assert isinstance(handed, bytes) and handed is sent[-1]
        record = await store.load(host.room)
        stored = await recorder.latest_checkpoint(host.room)
        assert record is not None and stored is not None
        assert stored.state == engine.state_to_json(record.state)
    finally:
        await service.bus.close()


async def test_a_room_gone_from_redis_comes_back_mid_round(
    redis_client: Redis, prefix: str
) -> None:
    recorder = FlakyRecorder()
    service, checkpoints = await _service(redis_client, prefix, recorder)
    try:
        host = await service.create_room("Ann", {"turn_seconds": 0})
        guest = await service.join(host.room, "Bob")
        room = host.room
        ann = Identity(host.player_id, "player", host.seat)
        bob = Identity(guest.player_id, "player", guest.seat)
        assert (await service.submit(room, ann, _cmd(act.Start(), "s"))).version
        for n in range(3):
            who = ann if n % 2 == 0 else bob
            assert (await service.submit(room, who, _cmd(act.Chat(f"m{n}"), f"m{n}"))).version
        before = await service.store.load(room)
        assert before is not None and before.state.status == "playing"
        await checkpoints.flush()
        lost = await service.submit(room, ann, _cmd(act.Chat("after"), "after"))
        assert lost.version is not None

        await drop_prefix(redis_client, prefix)  # the room's keys expired, or were flushed

        summary = await service.summary(room)  # restores the room
        assert summary["status"] == "playing"
        assert summary["version"] > lost.version  # above everything it sent
        after = await service.store.load(room)
        assert after is not None
        # The table is the checkpoint's: same hands, piles and turn.
        assert after.state.hands == before.state.hands
        assert after.state.draw_pile == before.state.draw_pile
        assert after.state.discard == before.state.discard
        assert after.state.turn == before.state.turn
        assert await service.identify(room, guest.token) == bob  # credentials kept
        again = await service.submit(room, bob, _cmd(act.Chat("back"), "back"))
        assert again.version is not None and again.version > lost.version
    finally:
        await service.bus.close()
