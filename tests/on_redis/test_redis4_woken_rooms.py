"""What a process keeps of a room it only ran the timers of (Redis mode).

Every process claims any room's due wake-ups from the shared index, so a process runs the
timers and bot moves of rooms nobody used through it: `wake` leaves the room's lock, timers
tried, bot plan and version ceiling in its tables. The idle sweep forgot only the rooms it
had *used* (`_touched`), so these entries stayed for ever, one set per room ever woken here:
memory growing with the cluster's whole history of timed rooms."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from app.bus.redis import RedisBus
from app.engine import actions as act
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.redis import RedisRoomStore
from tests.fake_clock import Clock

pytestmark = pytest.mark.redis


def _process(redis_client: Redis, prefix: str, clock: Clock) -> tuple[RoomService, RedisBus]:
    store = RedisRoomStore(redis_client, prefix=prefix, idle_ttl_seconds=3600)
    bus = RedisBus(redis_client, store.channel, store.versions, heard=store.heard)
    config = AppSettings(
        database_url="memory://", uno_test_hooks=True, room_unused_seconds=60, room_idle_seconds=600
    )
    service = RoomService(config, store, bus, MemoryRecorder(), clock=clock)
    service.share(store)
    return service, bus


def _tables(service: RoomService, room: str) -> list[str]:
    tables = {
        "locks": service._locks,
        "bots": service._bots,
        "tried": service._tried,
        "touched": service._touched,
        "unopened": service._unopened,
        "ceilings": service.versions._ceilings,
    }
    return [name for name, table in tables.items() if room in table]


async def test_a_room_only_woken_here_is_forgotten_by_the_sweep(
    redis_client: Redis, prefix: str
) -> None:
    clock = Clock()
    a, bus_a = _process(redis_client, prefix, clock)  # where the players are
    b, bus_b = _process(redis_client, prefix, clock)  # whose poller claims the wake-ups
    try:
        host = await a.create_room("Ann", {"bot_delay_ms": 0}, drop_departed=True)
        room = host.room
        ann = Identity(host.player_id, "player", host.seat)
        cmd = Command("add_bot", "b", None, act.AddBot())
        assert (await a.submit(room, ann, cmd)).version
        assert (await a.submit(room, ann, Command("start", "s", None, act.Start()))).version
        for _ in range(6):  # turn timers and bot moves, run by process b
            clock.now += 31_000
            await b.wake(room)
        assert "ceilings" in _tables(b, room)  # b committed timers or bot moves
        assert "touched" not in _tables(b, room)  # nobody used the room through b

        await b.sweep()
        assert _tables(b, room) == []
        assert (await b.summary(room))["status"] in ("playing", "round_over", "match_over")
    finally:
        await bus_a.close()
        await bus_b.close()
