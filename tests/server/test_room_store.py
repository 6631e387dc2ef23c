"""The memory room store: compare-and-set commits and the bounded history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine import new_table, parse_settings
from app.engine.events import Event
from app.store.rooms import STATES_KEPT, Member, MemoryRoomStore, RoomRecord, token_digest

if TYPE_CHECKING:
    from app.rooms.service import RoomService


def _record(version: int = 0) -> RoomRecord:
    state = new_table("r1", parse_settings({}))
    state.version = version
    return RoomRecord(code="r1", state=state, created_at=0)


def _events(first: int, last: int) -> list[Event]:
    return [Event("chat", v, {"text": str(v)}) for v in range(first, last + 1)]


async def _commit(store: MemoryRoomStore, record: RoomRecord, first: int, last: int) -> None:
    """Commit events first..last as one commit, each holding the state after it (as the
    engine traces them), the record's state being the one after the last."""
    expected = record.state.version
    events = _events(first, last)
    for event in events:
        event.after = record.state.clone()
        event.after.version = event.version
    record.state = events[-1].after
    assert await store.commit("r1", expected, record, events)


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


async def test_the_history_keeps_commit_boundaries() -> None:
    store = MemoryRoomStore(history_limit=100)
    record = _record()
    await store.create(record, [])
    await _commit(store, record, 1, 3)  # a move of three events
    await _commit(store, record, 4, 4)
    await _commit(store, record, 5, 6)
    commits = await store.commits_since("r1", 0)
    assert commits is not None
    assert [[e.version for e in c.events] for c in commits] == [[1, 2, 3], [4], [5, 6]]
    assert [(c.first, c.last) for c in commits] == [(1, 3), (4, 4), (5, 6)]
    after_first = await store.commits_since("r1", 3)
    assert after_first is not None and [c.first for c in after_first] == [4, 5]
    assert await store.commits_since("r1", 6) == []
    assert await store.commits_since("r1", 7) is None  # ahead of the room
    assert await store.commits_since("r1", -1) is None
    assert await store.commits_since("nope", 0) is None
    # No event in the history holds a state: a view is only built of a commit's end.
    assert all(e.after is None for c in commits for e in c.events)


async def test_states_are_kept_for_commit_ends_of_the_newest_commits_only() -> None:
    store = MemoryRoomStore(history_limit=1000)
    record = _record()
    await store.create(record, [])
    total = STATES_KEPT + 4
    for k in range(total):  # commits of two events: ends at 2, 4, ..., 2 * total
        await _commit(store, record, 2 * k + 1, 2 * k + 2)
    current = 2 * total
    state = await store.state_at("r1", current)
    assert state is record.state and state.version == current
    newest = [current - 2 * k for k in range(STATES_KEPT)]
    for version in newest:
        kept = await store.state_at("r1", version)
        assert kept is not None and kept.version == version, version
    assert await store.state_at("r1", current - 1) is None  # inside a commit: never a view
    assert await store.state_at("r1", current - 2 * STATES_KEPT) is None  # too old
    assert await store.state_at("r1", 2) is None
    assert await store.state_at("nope", 2) is None
    # The old commits' events are still there for a resume, without their states.
    commits = await store.commits_since("r1", 0)
    assert commits is not None and len(commits) == total
    assert all(c.state is None for c in commits[:-STATES_KEPT])
    assert all(c.state is not None for c in commits[-STATES_KEPT:])


async def test_history_is_bounded_by_events_and_never_splits_a_commit() -> None:
    store = MemoryRoomStore(history_limit=5)
    record = _record()
    await store.create(record, [])
    for first in (1, 4, 7, 10):  # four commits of three events
        await _commit(store, record, first, first + 2)
    # Five events at most, in whole commits: only the last commit fits.
    assert await store.events_since("r1", 6) is None
    assert await store.commits_since("r1", 6) is None
    assert [e.version for e in await store.events_since("r1", 9) or []] == [10, 11, 12]
    assert [e.version for e in await store.events_since("r1", 11) or []] == [12]
    # One commit larger than the whole limit is kept whole: a client gets whole commits.
    await _commit(store, record, 13, 20)
    assert [e.version for e in await store.events_since("r1", 12) or []] == list(range(13, 21))
    assert await store.events_since("r1", 9) is None


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


def _service_on_a_clock(
    idle_seconds: int, **settings: int
) -> tuple[RoomService, MemoryRoomStore, list[int]]:
    """A room service on the memory store whose clock is the returned list's one value."""
    from app.bus.memory import MemoryBus
    from app.rooms.service import RoomService
    from app.settings import AppSettings
    from app.store.recorder import MemoryRecorder

    now = [1_000_000_000_000]
    store = MemoryRoomStore()
    service = RoomService(
        AppSettings(database_url="memory://", room_idle_seconds=idle_seconds, **settings),
        store,
        MemoryBus(),
        MemoryRecorder(),
        clock=lambda: now[0],
    )
    return service, store, now


async def test_idle_rooms_are_forgotten_unless_someone_is_connected() -> None:
    service, store, now = _service_on_a_clock(60)
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


async def test_a_room_whose_page_nobody_opened_is_forgotten_sooner() -> None:
    """A room made over HTTP and never opened by a socket (only a script does that: the web
    client opens its socket at once) is forgotten after `room_unused_seconds`, not
    `room_idle_seconds`; a room once opened, and a tournament's table, keep the long wait."""
    service, store, now = _service_on_a_clock(3600, room_unused_seconds=60)
    unopened = await service.create_room("A", None, drop_departed=True)
    opened = await service.create_room("B", None, drop_departed=True)
    table = await service.create_room("C", None)  # a tournament's: drop_departed False
    assert await service.identify(opened.room, opened.token) is not None
    now[0] += 30_000
    assert await service.sweep() == 0
    now[0] += 40_000
    assert await service.sweep() == 1
    assert await store.load(unopened.room) is None
    assert sorted(await store.rooms()) == sorted([opened.room, table.room])


async def test_rooms_made_over_http_are_capped_per_process() -> None:
    """Past `max_rooms` held, a room made over HTTP is refused 503 `unavailable` with a
    Retry-After (many addresses together cannot grow the process without bound); a
    tournament's table is not refused, and a forgotten room makes room again."""
    from app.rooms.service import RoomError

    service, store, _ = _service_on_a_clock(60, max_rooms=2)
    first = await service.create_room("A", None, drop_departed=True)
    await service.create_room("B", None, drop_departed=True)
    try:
        await service.create_room("C", None, drop_departed=True)
        raise AssertionError("a third room was made")
    except RoomError as exc:
        assert (exc.code, exc.status, exc.retry_after) == ("unavailable", 503, 60)
    await service.create_room("Table", None)  # a tournament's table
    assert len(await store.rooms()) == 3
    await store.delete(first.room)
    await store.delete((await store.rooms())[0])
    assert await service.create_room("D", None, drop_departed=True)


async def test_a_room_only_its_timers_change_is_forgotten_when_idle() -> None:
    """A timer's commit is no use of the room: the host of a room nobody joined is absent,
    nobody can take the role over, so the host timer expires every 60 s for ever; each
    expiry used to count as activity and the room never left memory."""
    service, store, now = _service_on_a_clock(600)
    abandoned = await service.create_room("A", None)
    created = await service.current_state(abandoned.room)
    assert created is not None
    for _ in range(11):
        now[0] += 61_000
        await service.wake(abandoned.room)
    state = await service.current_state(abandoned.room)
    assert state is not None and state.version > created.version  # the host timer expired
    assert await service.sweep() == 1
    assert await store.load(abandoned.room) is None


async def test_history_is_bounded_by_the_bytes_of_its_packed_commits() -> None:
    """A room whose events are large (a host changing long custom wild labels over and over)
    keeps at most `history_max_bytes` of them, in whole commits; the newest are never cut."""
    store = MemoryRoomStore(history_limit=1000, history_max_bytes=4096)
    record = _record()
    await store.create(record, [])
    for v in range(1, 101):
        expected = record.state.version
        event = Event("chat", v, {"text": "x" * 300}, {})
        event.after = record.state.clone()
        event.after.version = v
        record.state = event.after
        assert await store.commit("r1", expected, record, [event])
    first = 0
    while await store.commits_since("r1", first) is None:
        first += 1
    kept = await store.commits_since("r1", first)
    assert kept is not None and kept[-1].last == 100
    assert [c.last for c in kept] == list(range(first + 1, 101))  # whole commits, in order
    packed = sum(c.packed_bytes for c in kept)
    assert 3000 < packed <= 4096, packed  # ~330 bytes each: a dozen fit, not 100
    assert await store.events_since("r1", 50) is None  # gone: a resume from there gets a welcome
