"""A socket that closes (or opens) while Redis cannot be reached, on a process that lives on.

Its `connected=false` could not be committed, nor its entry removed from the process's seat
set in Redis; nothing tried again, so once Redis answered the seat still showed connected,
for as long as the process lived (the set kept saying a live process held it, so even a
commit that reached Redis once it answered again found the seat held): a host who
left was never replaced, a lobby seat never dropped. Presence now settles such seats at its
next refresh once Redis answers, to what this process holds of them then."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from app.bus.redis import RedisBus
from app.rooms.presence import Presence
from app.rooms.service import RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.redis import RedisRoomStore
from app.store.shared import StoreUnavailable
from tests.fake_clock import Clock

pytestmark = pytest.mark.redis


@pytest.fixture
async def proc(redis_client: Redis, prefix: str) -> AsyncIterator[tuple[RoomService, Presence]]:
    clock = Clock()
    store = RedisRoomStore(redis_client, prefix=prefix)
    bus = RedisBus(redis_client, store.channel, store.versions)
    service = RoomService(
        AppSettings(database_url="memory://"), store, bus, MemoryRecorder(), clock=clock
    )
    service.rng = random.Random(3)
    service.share(store)
    presence = Presence(redis_client, prefix, clock, lease_ms=10_000, process_id="p0")
    presence.service = service
    service.presence = presence
    service.restorer.held = presence.held
    await presence.renew()
    yield service, presence
    await bus.close()


class _Outage:
    """Redis unreachable for the room store and the presence records, until `end`."""

    def __init__(self, service: RoomService, presence: Presence, *, store: bool = True) -> None:
        self._undo: list[tuple[Any, str, Any]] = []

        async def unreachable(*args: Any, **kwargs: Any) -> Any:
            raise StoreUnavailable("ConnectionError: Redis unreachable")

        async def refused(*args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("Redis unreachable")

        fakes = [(presence.client, "sadd", refused), (presence.client, "srem", refused)]
        if store:  # else Redis answers again by the time the seat's commit is tried
            fakes.append((service.store, "load", unreachable))
        for target, name, fake in fakes:
            self._undo.append((target, name, target.__dict__.get(name)))
            setattr(target, name, fake)

    def end(self) -> None:
        for target, name, old in self._undo:
            if old is None:
                delattr(target, name)
            else:
                setattr(target, name, old)


async def _connected(service: RoomService, room: str) -> list[bool]:
    record = await service.store.load(room)
    assert record is not None
    return [seat.connected for seat in record.state.seats]


@pytest.mark.parametrize("store", [True, False])
async def test_a_seat_whose_socket_closed_during_an_outage_is_disconnected_after_it(
    proc: tuple[RoomService, Presence], store: bool
) -> None:
    service, presence = proc
    host = await service.create_room("Ann", {}, drop_departed=True)
    guest = await service.join(host.room, "Bob")
    for member in (host.player_id, guest.player_id):
        await service.set_connected(host.room, member, True)
    assert await _connected(service, host.room) == [True, True]

    outage = _Outage(service, presence, store=store)
    await service.set_connected(host.room, guest.player_id, False)  # Bob's socket closes
    outage.end()

    await presence.renew()
    await presence.settle()
    assert await _connected(service, host.room) == [True, False]
    assert not await presence.held(host.room, guest.player_id)
    await presence.settle()  # settled once: nothing more
    assert await _connected(service, host.room) == [True, False]


async def test_a_seat_whose_socket_opened_during_an_outage_is_connected_after_it(
    proc: tuple[RoomService, Presence],
) -> None:
    service, presence = proc
    host = await service.create_room("Ann", {}, drop_departed=True)
    await service.set_connected(host.room, host.player_id, True)
    guest = await service.join(host.room, "Bob")
    assert await _connected(service, host.room) == [True, False]

    outage = _Outage(service, presence)
    await service.set_connected(host.room, guest.player_id, True)  # Bob's socket opened
    outage.end()

    await presence.renew()
    await presence.settle()
    assert await _connected(service, host.room) == [True, True]
    assert await presence.held(host.room, guest.player_id)
