"""A seat's socket moving from one process to another while its old socket closes (Redis
mode, app/rooms/presence.py).

The closing process marks the seat disconnected unless a live process holds a socket of it,
checked inside its compare-and-set attempt. The new socket's process records itself, then
commits `connected=true`; but when the seat still shows connected (the old socket has not
closed yet) that commit has no events and used to write nothing, so a closing check made just
before the new process recorded itself was not undone by any conflict: the seat ended
disconnected while its player was connected elsewhere (in a lobby, dropped from its seat after
`lobby_drop_seconds`; in a round, its turns timed out until a bot covered it)."""

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


@pytest.fixture
async def procs(
    redis_client: Redis, prefix: str
) -> AsyncIterator[list[tuple[RoomService, Presence]]]:
    clock = Clock()
    recorder = MemoryRecorder()
    out = []
    for i in range(2):
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
        presence = Presence(redis_client, prefix, clock, lease_ms=10_000, process_id=f"p{i}")
        presence.service = service
        service.presence = presence
        service.restorer.held = presence.held
        await presence.renew()
        out.append((service, presence))
    yield out
    for service, _ in out:
        await service.bus.close()


@pytest.mark.parametrize("role", ["player", "spectator"])
async def test_a_socket_moving_as_the_old_one_closes_leaves_the_seat_connected(
    procs: list[tuple[RoomService, Presence]], role: str
) -> None:
    (a, pa), (b, _pb) = procs
    host = await a.create_room("Ann", {}, drop_departed=True)
    room = host.room
    member = host.player_id
    if role == "spectator":
        member, _token = await a.spectate(room, "Eve")
    await a.set_connected(room, member, True)  # its socket on process 0

    raced = False

    async def held_then_moved(room_: str, member_: str) -> bool:
        nonlocal raced
        found = await pa.held(room_, member_)
        if not raced:  # process 1 records the new socket right after the check
            raced = True
            await b.set_connected(room, member, True)
        return found

    # Process 0's socket closes (RoomService.set_connected(False), the check raced).
    await pa.holding(room, member, False)
    await a._set_connected(room, member, False, held_then_moved)

    record = await b.store.load(room)
    assert record is not None
    if role == "player":
        assert record.state.seats[0].connected is True
    else:
        assert member in record.state.spectators
