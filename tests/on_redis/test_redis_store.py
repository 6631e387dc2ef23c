"""RedisRoomStore on the real Redis: the commit function's compare-and-set, duplicate
command ids across processes (two store objects with their own caches), the bounded
history, the states of recent commits, the wake-up index and the round stream."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from app.engine import new_table, parse_settings
from app.engine.events import Event
from app.store.redis import RedisRoomStore
from app.store.redis import rooms as redis_rooms
from app.store.rooms import STATES_KEPT, Commit, Member, RoomRecord
from app.store.shared import CommitConflict, DuplicateCommand, applying

from .conftest import count_calls

pytestmark = pytest.mark.redis


def _record(room: str = "r1", version: int = 0) -> RoomRecord:
    state = new_table(room, parse_settings({}))
    state.version = version
    record = RoomRecord(code=room, state=state, created_at=5)
    record.add_member("tok", Member("p1", "player", "Ayşe"))
    return record


def _events(first: int, last: int) -> list[Event]:
    return [Event("chat", v, {"text": str(v)}, {0: {"secret": v}}) for v in range(first, last + 1)]


def _advance(record: RoomRecord, version: int) -> None:
    record.state = record.state.clone()
    record.state.version = version


async def test_create_load_and_compare_and_set(store: RedisRoomStore, prefix: str) -> None:
    record = _record()
    assert await store.create(record, [])
    assert not await store.create(_record(), [])
    other = RedisRoomStore(store.client, prefix=prefix)  # a second process: its own caches
    loaded = await other.load("r1")
    assert loaded is not None and loaded.version == 0 and loaded.created_at == 5
    assert loaded.member("tok") == Member("p1", "player", "Ayşe")
    assert loaded.state.room == "r1" and loaded.state is not record.state

    mine = await store.load("r1")
    theirs = await other.load("r1")
    assert mine is not None and theirs is not None
    _advance(mine, 2)
    _advance(theirs, 1)
    assert await store.commit("r1", 0, mine, _events(1, 2))
    with pytest.raises(CommitConflict):  # the same version, read before the first commit
        await other.commit_shared("r1", 0, theirs, _events(1, 1), wake_at=None)
    fresh = await other.load("r1")
    assert fresh is not None and fresh.version == 2
    events = await other.events_since("r1", 0)
    assert [(e.version, e.public, e.private) for e in events or []] == [
        (1, {"text": "1"}, {0: {"secret": 1}}),
        (2, {"text": "2"}, {0: {"secret": 2}}),
    ]
    assert await other.load("nope") is None


async def test_a_commit_without_events_is_still_compare_and_set(store: RedisRoomStore) -> None:
    await store.create(_record(), [])
    a = await store.load("r1")
    b = await store.load("r1")
    assert a is not None and b is not None
    a.add_member("t2", Member("s_1", "spectator", "Watcher 1"))
    b.add_member("t3", Member("s_2", "spectator", "Watcher 2"))
    assert await store.commit("r1", 0, a, [])
    assert not await store.commit("r1", 0, b, [])  # would drop watcher 1
    again = await store.load("r1")
    assert again is not None and again.member("t2") is not None


async def test_a_command_id_applies_once_across_processes(
    store: RedisRoomStore, prefix: str
) -> None:
    await store.create(_record(), [])
    other = RedisRoomStore(store.client, prefix=prefix)
    with applying("p1", "c1"):
        first = await store.load("r1")
        assert first is not None and first.known_ack("p1", "c1") is None
        _advance(first, 1)
        first.remember_ack("p1", "c1", 1)
        await store.commit_shared("r1", 0, first, _events(1, 1), wake_at=None)
    with applying("p1", "c1"):
        resent = await other.load("r1")
        assert resent is not None and resent.known_ack("p1", "c1") == 1
    # A resend that raced the first commit: refused with the recorded ack's version.
    late = _record()
    late.remember_ack("p1", "c1", 7)
    with pytest.raises(DuplicateCommand) as dup:
        await other.commit_shared("r1", 1, late, _events(2, 2), wake_at=None)
    assert dup.value.version == 1
    # The loaded ack is not a new one: committing the record that carries it is fine.
    with applying("p1", "c1"):
        again = await other.load("r1")
        assert again is not None
        _advance(again, 2)
        await other.commit_shared("r1", 1, again, _events(2, 2), wake_at=None)


async def test_history_is_trimmed_and_keeps_recent_states(store: RedisRoomStore) -> None:
    record = _record()
    await store.create(record, [])
    for v in range(1, 101):  # one event per commit; the store keeps ~64 events
        loaded = await store.load("r1")
        assert loaded is not None
        _advance(loaded, v)
        await store.commit_shared("r1", v - 1, loaded, _events(v, v), wake_at=None)
    assert await store.events_since("r1", 10) is None
    tail = await store.commits_since("r1", 90)
    assert tail is not None and [c.last for c in tail] == list(range(91, 101))
    newest = tail[-STATES_KEPT:]
    assert all(c.state is not None and c.state.version == c.last for c in newest)
    assert await store.commits_since("r1", 100) == []
    assert await store.commits_since("r1", 101) is None
    fresh = RedisRoomStore(store.client, prefix=store.prefix, history_limit=64)
    again = await fresh.commits_since("r1", 60)
    assert again is not None and again[0].first == 61
    kept = [c for c in again if c.state is not None]
    assert [c.last for c in kept] == list(range(101 - STATES_KEPT, 101))
    assert (await fresh.state_at("r1", 99)) is not None
    assert (await fresh.state_at("r1", 99)).version == 99  # type: ignore[union-attr]
    assert await fresh.state_at("r1", 50) is None


async def test_wake_index_claims_each_due_room_once(store: RedisRoomStore, prefix: str) -> None:
    await store.create(_record("a"), [])
    await store.create(_record("b"), [])
    loaded = await store.load("a")
    assert loaded is not None
    _advance(loaded, 1)
    await store.commit_shared("a", 0, loaded, _events(1, 1), wake_at=1_000)
    await store.reschedule("b", 0, 2_000)
    await store.reschedule("b", 5, 100)  # not at version 5: ignored
    other = RedisRoomStore(store.client, prefix=prefix)
    got = await asyncio.gather(*(s.claim_due(1_500, 5_000, 10) for s in (store, other)))
    assert sorted(got[0] + got[1]) == ["a"]
    assert await store.claim_due(2_500, 5_000, 10) == ["b"]
    assert await store.claim_due(2_500, 5_000, 10) == []
    assert await store.claim_due(6_600, 5_000, 10) == ["a"]  # the claimer died: claimed again
    await store.delete("a")
    assert await store.claim_due(99_999, 5_000, 10) == ["b"]  # a gone room is dropped


async def test_commit_publishes_and_queues_rounds(
    store: RedisRoomStore, redis_client: Redis
) -> None:
    await store.create(_record(), [])
    pubsub = redis_client.pubsub()
    await pubsub.subscribe(store.channel("r1"))
    loaded = await store.load("r1")
    assert loaded is not None
    _advance(loaded, 3)
    await store.commit_shared("r1", 0, loaded, _events(1, 3), wake_at=None, rounds=[b"R1"])
    notice = await _notice(pubsub)
    await pubsub.aclose()
    head, _, body = notice.partition(b"\n")
    assert orjson.loads(head) == {"room": "r1", "version": 3}
    carried = orjson.loads(body)  # the commit, for the other processes (see below)
    assert carried["rev"] == 2 and carried["state"]["version"] == 3
    assert [e["version"] for e in carried["events"]] == [1, 2, 3]
    entries = await redis_client.xrange(store.rounds_key)
    assert [e[1] for e in entries] == [{b"r": b"R1"}]
    assert await store.versions(["r1", "zz"]) == [3, 0]


async def test_versions_of_many_rooms_come_in_order_across_calls(
    store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watchdog's check: one function call per VERSIONS_PER_CALL rooms, answers in the
    order asked, 0 for a room that is gone."""
    monkeypatch.setattr(redis_rooms, "VERSIONS_PER_CALL", 4)
    for i in range(6):
        assert await store.create(_record(f"v{i}", version=i + 1), [])
    asked = ["v5", "gone", "v0", "v3", "v1", "v4", "v2", "nope", "v5"]
    assert await store.versions(asked) == [6, 0, 1, 4, 2, 5, 3, 0, 6]
    assert await store.versions([]) == []


async def test_a_member_added_between_commits_reaches_another_process(
    store: RedisRoomStore, redis_client: Redis, prefix: str
) -> None:
    """A commit re-sends the members only when they changed (the meta it encoded last time
    otherwise): a join, and a match id set, must still reach a process that reads the room."""
    await store.create(_record(), [])
    loaded = await store.load("r1")
    assert loaded is not None
    _advance(loaded, 1)
    await store.commit_shared("r1", 0, loaded, _events(1, 1), wake_at=None)  # unchanged meta
    again = store.held("r1")
    assert again is not None
    again.origin = loaded.origin
    again.add_member("tok2", Member("p2", "player", "Bob"))
    again.match_id = "m1"
    _advance(again, 2)
    await store.commit_shared("r1", 1, again, _events(2, 2), wake_at=None)
    other = RedisRoomStore(redis_client, prefix=prefix, history_limit=64)
    seen = await other.load("r1")
    assert seen is not None and seen.version == 2 and seen.match_id == "m1"
    assert {m.member_id: m.name for m in seen.members.values()} == {"p1": "Ayşe", "p2": "Bob"}
    assert seen.created_at == 5


async def test_the_rooms_kept_decoded_follow_the_connection_limit(
    redis_client: Redis, prefix: str
) -> None:
    """A process keeps the newest record of as many rooms as it may hold sockets of: past
    the cache, a command would read its room back from Redis each time."""
    small = RedisRoomStore(redis_client, prefix=prefix, rooms_cached=2)
    for room in ("c0", "c1", "c2"):
        assert await small.create(_record(room), [])
    assert small.held("c0") is None  # the oldest went out
    assert small.held("c1") is not None and small.held("c2") is not None

    from app.main import create_app
    from app.settings import AppSettings

    url = redis_client.connection_pool.connection_kwargs
    app = create_app(
        AppSettings(
            database_url=None,
            redis_url=f"redis://{url.get('host', '127.0.0.1')}:{url.get('port', 6379)}/0",
            redis_prefix=prefix,
            max_connections=20_000,
        )
    )
    store = app.state.rooms.shared.store
    for room in range(20_000):
        store._entry(str(room))
    assert "0" in store._rooms  # all 20,000 kept: none evicted
    store._entry("one more")
    assert "0" not in store._rooms and "1" in store._rooms  # the least recently written goes
    await store.close()


async def _notice(pubsub: PubSub) -> bytes:
    for _ in range(50):
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
        if message is not None:
            data: bytes = message["data"]
            return data
    raise AssertionError("no notice")


async def test_another_process_takes_the_commit_from_its_notice(
    store: RedisRoomStore, redis_client: Redis, prefix: str
) -> None:
    """A process that hears a room's notices serves the commits they carried without reading
    Redis; one that missed a notice, or does not listen to the room, reads them."""
    await store.create(_record(), [])
    other = RedisRoomStore(redis_client, prefix=prefix)
    reads = count_calls(other)
    pubsub = redis_client.pubsub()
    await pubsub.subscribe(store.channel("r1"))
    heard: list[bytes] = []
    for first, last in ((1, 2), (3, 3), (4, 5)):
        loaded = await store.load("r1")
        assert loaded is not None
        _advance(loaded, last)
        await store.commit_shared("r1", first - 1, loaded, _events(first, last), wake_at=None)
        heard.append(await _notice(pubsub))
    await pubsub.aclose()

    def hear(store: RedisRoomStore, notice: bytes) -> None:
        head, _, body = notice.partition(b"\n")
        store.heard("r1", orjson.loads(head)["version"], body)

    other.listening = lambda room: True
    hear(other, heard[0])
    hear(other, heard[1])
    commits = await other.commits_since("r1", 0)
    assert commits is not None and [(c.first, c.last) for c in commits] == [(1, 2), (3, 3)]
    assert commits[-1].state is not None and commits[-1].state.version == 3
    assert [e.private for e in commits[0].events] == [{0: {"secret": 1}}, {0: {"secret": 2}}]
    assert await other.commits_since("r1", 3) == []
    assert reads == []
    # The notice's state, members and write counter are the room's newest: the load's
    # answer carries no record, the one taken from the notice is used.
    hear(other, heard[2])
    newest = await other.commits_since("r1", 3)
    assert newest is not None and newest[-1].state is not None
    record = await other.load("r1")
    assert record is not None and record.state is newest[-1].state
    assert [m.name for m in record.members.values()] == ["Ayşe"]
    assert reads == ["uno_load"]
    # A notice that arrives without the commits before it: the gap is read from Redis.
    other.heard("r1", 6)  # announced, not carried (a watchdog's repair, say)
    assert await other.commits_since("r1", 5) == []
    assert reads == ["uno_load", "uno_since"]
    # A process not listening to the room: what it holds proves nothing, it reads.
    deaf = RedisRoomStore(redis_client, prefix=prefix)
    hear(deaf, heard[0])
    hear(deaf, heard[1])
    deaf_reads = await deaf.commits_since("r1", 0)
    assert deaf_reads is not None and deaf_reads[-1].last == 5


async def test_every_key_of_a_room_keeps_an_expiry_refreshed_now_and_then(
    redis_client: Redis, prefix: str
) -> None:
    """A commit refreshes the room's expiries once a tenth of the TTL has passed (one PTTL
    instead of six PEXPIREs otherwise), and always gives one to a key it created."""
    store = RedisRoomStore(redis_client, prefix=prefix, idle_ttl_seconds=100)
    names = ["state", "events", "snaps", "snapv", "cmds", "cmdq"]

    async def ttls() -> dict[str, int]:
        return {name: await redis_client.pttl(store.key("r1", name)) for name in names}

    await store.create(_record(), [])  # no events yet, no ack: neither key exists
    assert (await ttls())["events"] == -2 and (await ttls())["cmds"] == -2
    with applying("p1", "c1"):
        first = await store.load("r1")
        assert first is not None
        _advance(first, 1)
        first.remember_ack("p1", "c1", 1)
        await store.commit_shared("r1", 0, first, _events(1, 1), wake_at=None)
    assert all(90_000 < ttl <= 100_000 for ttl in (await ttls()).values())  # created: given
    for name in names:  # as if 5 s had passed: not a tenth of the TTL, nothing refreshed
        await redis_client.pexpire(store.key("r1", name), 95_000)
    second = await store.load("r1")
    assert second is not None
    _advance(second, 2)
    await store.commit_shared("r1", 1, second, _events(2, 2), wake_at=None)
    assert all(ttl <= 95_000 for ttl in (await ttls()).values())
    for name in names:  # as if 20 s had passed: every key refreshed
        await redis_client.pexpire(store.key("r1", name), 80_000)
    third = await store.load("r1")
    assert third is not None
    _advance(third, 3)
    await store.commit_shared("r1", 2, third, _events(3, 3), wake_at=None)
    assert all(95_000 < ttl <= 100_000 for ttl in (await ttls()).values())


async def test_a_commit_nobody_made_leaves_the_rooms_expiry_as_it_is(
    redis_client: Redis, prefix: str
) -> None:
    """A timer's or a bot's commit (`used=False`) refreshes no expiry: an absent host's wait
    starting again every minute kept a table nobody came back to in Redis for ever. A key
    such a commit creates gets the room's remaining time, not a fresh TTL."""
    store = RedisRoomStore(redis_client, prefix=prefix, idle_ttl_seconds=100)
    names = ["state", "events", "snaps", "snapv", "cmds", "cmdq"]

    async def ttls() -> dict[str, int]:
        return {name: await redis_client.pttl(store.key("r1", name)) for name in names}

    await store.create(_record(), [])  # no events yet: the stream does not exist
    for name in names:  # as if an hour had passed since anyone did anything
        await redis_client.pexpire(store.key("r1", name), 50_000)
    first = await store.load("r1")
    assert first is not None
    _advance(first, 1)
    await store.commit_shared("r1", 0, first, _events(1, 1), wake_at=None, used=False)
    left = await ttls()
    assert left["cmds"] == left["cmdq"] == -2  # no ack: never created
    assert all(0 < left[name] <= 50_000 for name in names[:4]), left
    # A use (a command) refreshes them all.
    second = await store.load("r1")
    assert second is not None
    _advance(second, 2)
    await store.commit_shared("r1", 1, second, _events(2, 2), wake_at=None)
    refreshed = await ttls()
    assert all(90_000 < refreshed[name] <= 100_000 for name in names[:4]), refreshed


async def test_idle_rooms_expire(redis_client: Redis, prefix: str) -> None:
    store = RedisRoomStore(redis_client, prefix=prefix, idle_ttl_seconds=1)
    await store.create(_record(version=1), _events(1, 1))
    ttl = await redis_client.pttl(store.key("r1", "events"))
    assert 0 < ttl <= 1000
    await asyncio.sleep(1.2)
    assert await store.load("r1") is None


async def test_a_record_replaced_while_it_was_read_is_read_whole(store: RedisRoomStore) -> None:
    """A read sent with the record held (answered "unchanged", without meta or state) while
    a commit replaced that record here: the stored record is read whole, never lost (a
    member's socket that reconnected then was refused as unknown)."""
    await store.create(_record(), [])
    first = await store.load("r1")
    assert first is not None
    real = store._read_record
    sent: list[int] = []

    async def racing(entry: redis_rooms._Room, rev: int, ack_field: str) -> object:
        sent.append(rev)
        reply = await real(entry, rev, ack_field)
        if len(sent) == 1:  # this process commits while the read is on its way back
            _advance(first, 1)
            await store.commit_shared("r1", 0, first, _events(1, 1), wake_at=None)
        return reply

    store._read_record = racing  # type: ignore[method-assign]
    record = await store.load("r1")
    assert record is not None and record.version == 1
    assert record.member("tok") == Member("p1", "player", "Ayşe")
    assert sent == [1, 0]  # the held record's write counter, then a whole read


async def test_a_commit_is_sent_before_its_frames_are_prepared(
    store: RedisRoomStore, prefix: str
) -> None:
    """`prepare` (the hub building the sockets' frames) runs while the commit's reply is
    awaited, with the command already written to Redis, and gets the commit the history then
    holds; a commit that loses its compare-and-set is prepared but never kept."""
    await store.create(_record(), [])
    mine = await store.load("r1")
    assert mine is not None
    await store.commit_shared("r1", 0, mine, [], wake_at=None)  # the pipe's link is open now
    seen: list[tuple[str, int, int, bool]] = []
    prepared = []

    def prepare(room: str, commit: Commit) -> None:
        link = store._pipe._usable() if store._pipe is not None else None
        assert link is not None and not link._out, "the command is written before"
        seen.append((room, commit.first, commit.last, commit.state is mine.state))
        prepared.append(commit)

    store.prepare = prepare
    _advance(mine, 2)
    await store.commit_shared("r1", 0, mine, _events(1, 2), wake_at=None)
    assert seen == [("r1", 1, 2, True)]
    held = await store.commits_since("r1", 0)
    assert held is not None and held[-1] is prepared[0]

    other = RedisRoomStore(store.client, prefix=prefix)
    other.prepare = prepare
    stale = _record()
    _advance(stale, 3)
    with pytest.raises(CommitConflict):
        await other.commit_shared("r1", 0, stale, _events(1, 3), wake_at=None)
    assert len(prepared) == 2
    assert [c.last for c in await other.commits_since("r1", 0) or []] == [2]
