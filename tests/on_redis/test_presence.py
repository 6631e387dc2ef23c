"""Seat presence on the real Redis (app/rooms/presence.py): a seat with sockets on two
processes stays connected when one of them closes; a dead process's seats are marked
disconnected once, whichever survivors reap it, except a seat a live process holds again."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from app.bus.redis import RedisBus
from app.rooms.presence import Presence
from app.rooms.service import RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.redis import RedisRoomStore
from tests.fake_clock import Clock

pytestmark = pytest.mark.redis

LEASE_MS = 1000


@pytest.fixture
async def procs(
    redis_client: Redis, prefix: str
) -> AsyncIterator[tuple[Clock, list[tuple[RoomService, Presence]]]]:
    clock = Clock()
    recorder = MemoryRecorder()
    out = []
    for i in range(3):
        store = RedisRoomStore(redis_client, prefix=prefix)
        bus = RedisBus(redis_client, store.channel, store.versions)
        service = RoomService(
            AppSettings(database_url="memory://"),
            store,
            bus,
            recorder,
            clock=clock,
            rng=random.Random(i),
        )
        service.share(store)
        presence = Presence(redis_client, prefix, clock, lease_ms=LEASE_MS, process_id=f"p{i}")
        presence.service = service
        service.presence = presence
        service.restorer.held = presence.held
        await presence.renew()
        out.append((service, presence))
    yield clock, out
    for service, _ in out:
        await service.bus.close()


async def _connected(service: RoomService, room: str) -> list[bool]:
    record = await service.store.load(room)
    assert record is not None
    return [seat.connected for seat in record.state.seats]


async def test_a_seat_held_elsewhere_stays_connected(
    procs: tuple[Clock, list[tuple[RoomService, Presence]]],
) -> None:
    _, [(a, _pa), (b, _pb), _] = procs
    host = await a.create_room("Ann", {})
    await a.set_connected(host.room, host.player_id, True)  # a socket on process 0
    await b.set_connected(host.room, host.player_id, True)  # another tab, on process 1
    await a.set_connected(host.room, host.player_id, False)  # the first one closes
    assert (await _connected(a, host.room))[0] is True
    await b.set_connected(host.room, host.player_id, False)  # the last one closes
    assert (await _connected(a, host.room))[0] is False


async def test_a_dead_process_seats_are_marked_disconnected_once(
    procs: tuple[Clock, list[tuple[RoomService, Presence]]],
) -> None:
    clock, [(a, dead), (b, pb), (c, pc)] = procs
    host = await a.create_room("Ann", {})
    guest = await a.join(host.room, "Bob")
    for member in (host.player_id, guest.player_id):
        await a.set_connected(host.room, member, True)  # both sockets on process 0
    # Bob comes back through process 2 before the lease runs out; process 0 never says more.
    await c.set_connected(host.room, guest.player_id, True)
    assert await pb.reap() == 0  # the lease still runs
    clock.now += LEASE_MS + 1
    await pb.renew()
    await pc.renew()
    before = (await b.store.load(host.room)).version  # type: ignore[union-attr]
    assert await pb.reap() + await pc.reap() == 1
    assert await _connected(b, host.room) == [False, True]
    assert (await b.store.load(host.room)).version == before + 1  # type: ignore[union-attr]
    # Reaped: the lease and the seats are gone, so nobody reaps it again.
    assert await pb.reap() == 0 and await pc.reap() == 0
    assert not await dead.held(host.room, host.player_id)
