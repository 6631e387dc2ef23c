"""The memory room store: compare-and-set commits and the bounded history."""

from __future__ import annotations

from app.engine import new_table, parse_settings
from app.engine.events import Event
from app.store.rooms import Member, MemoryRoomStore, RoomRecord, token_digest


def _record(version: int = 0) -> RoomRecord:
    state = new_table("r1", parse_settings({}))
    state.version = version
    return RoomRecord(code="r1", state=state, created_at=0)


def _events(first: int, last: int) -> list[Event]:
    return [Event("chat", v, {"text": str(v)}) for v in range(first, last + 1)]


async def test_commit_needs_the_expected_version() -> None:
    store = MemoryRoomStore(history_limit=10)
    record = _record()
    assert await store.create(record, [])
    assert not await store.create(_record(), [])
    record.state = record.state.clone()
    record.state.version = 3
    assert not await store.commit("r1", 2, record, _events(1, 3))
    assert await store.commit("r1", 0, record, _events(1, 3))
    assert [e.version for e in await store.events_since("r1", 0) or []] == [1, 2, 3]
    assert await store.events_since("r1", 3) == []
    assert await store.events_since("r1", 4) is None
    assert await store.events_since("nope", 0) is None


async def test_history_is_bounded() -> None:
    store = MemoryRoomStore(history_limit=5)
    record = _record()
    await store.create(record, [])
    record.state = record.state.clone()
    record.state.version = 12
    assert await store.commit("r1", 0, record, _events(1, 12))
    assert await store.events_since("r1", 6) is None  # 7 was evicted
    assert [e.version for e in await store.events_since("r1", 7) or []] == [8, 9, 10, 11, 12]
    assert [e.version for e in await store.events_since("r1", 10) or []] == [11, 12]


def test_tokens_are_kept_only_as_digests() -> None:
    record = _record()
    record.add_member("secret-token", Member("p1", "player", "Ayşe"))
    assert "secret-token" not in record.members
    assert token_digest("secret-token") in record.members
    assert record.member("secret-token") == Member("p1", "player", "Ayşe")
    assert record.member("other") is None


def test_ack_cache_is_bounded_per_member() -> None:
    record = _record()
    for i in range(300):
        record.remember_ack("p1", f"c{i}", i)
    assert record.known_ack("p1", "c299") == 299
    assert record.known_ack("p1", "c0") is None
    assert record.known_ack("p2", "c299") is None


async def test_idle_rooms_are_forgotten_unless_someone_is_connected() -> None:
    from app.bus.memory import MemoryBus
    from app.rooms.service import RoomService
    from app.settings import AppSettings
    from app.store.recorder import MemoryRecorder

    now = [1_000_000_000_000]
    store = MemoryRoomStore()
    service = RoomService(
        AppSettings(database_url="memory://", room_idle_seconds=60),
        store,
        MemoryBus(),
        MemoryRecorder(),
        clock=lambda: now[0],
    )
    idle = await service.create_room("A", None)
    watched = await service.create_room("B", None)
    service.has_sockets = lambda room: room == watched.room
    now[0] += 30_000
    busy = await service.create_room("C", None)
    assert await service.sweep() == 0
    now[0] += 40_000  # idle and watched are 70 s old, busy 40 s
    assert await service.sweep() == 1
    assert sorted(await store.rooms()) == sorted([watched.room, busy.room])
    assert await store.load(idle.room) is None
