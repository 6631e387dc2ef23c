"""Several RoomServices ("processes": each with its own store object and caches) sharing
one Redis: commands applied by any of them, conflicts re-validated, a resent id applied once,
timers fired once whoever claims them, rounds recorded once."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from e2e.harness import deal_order
from redis.asyncio import Redis

from app.bus.redis import RedisBus
from app.engine import actions as act
from app.rooms.commands import Command
from app.rooms.round_stream import RoundStreamConsumer
from app.rooms.service import Identity, RoomService
from app.rooms.wakeups import WakePoller
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder, RoundRecord
from app.store.redis import RedisRoomStore
from tests.fake_clock import Clock

from .conftest import count_calls

pytestmark = pytest.mark.redis


class CountingRecorder(MemoryRecorder):
    """The match database: counts every round handed to it (a duplicate is a bug here)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[RoundRecord] = []

    async def round_completed(self, record: RoundRecord) -> None:
        self.calls.append(record)
        await super().round_completed(record)


@dataclass
class Proc:
    service: RoomService
    store: RedisRoomStore
    poller: WakePoller
    rounds: RoundStreamConsumer
    bus: RedisBus
    hearing: bool  # subscribed to the rooms' notices, as a process holding their sockets

    async def listen(self, stack: contextlib.AsyncExitStack, room: str) -> None:
        """Subscribe to `room` (a socket of it here), its notices drained as the hub does."""
        notices = await stack.enter_async_context(self.bus.subscribe(room))

        async def drain() -> None:
            async for _ in notices:
                pass

        task = asyncio.create_task(drain())
        stack.callback(task.cancel)


# Both as processes that hold no socket of the room (every load reads Redis) and as ones
# that hear its notices (commits taken from them, commands applied on the newest record).
@pytest.fixture(params=[False, True], ids=["deaf", "hearing"])
async def procs(
    redis_client: Redis, prefix: str, request: pytest.FixtureRequest
) -> AsyncIterator[list[Proc]]:
    clock = Clock()
    database = CountingRecorder()
    out: list[Proc] = []
    hearing: bool = request.param
    for i in range(3):
        store = RedisRoomStore(redis_client, prefix=prefix)
        bus = RedisBus(redis_client, store.channel, store.versions, heard=store.heard)
        if hearing:
            store.listening, store.announce = bus.listening, bus.local
        service = RoomService(
            AppSettings(database_url="memory://", uno_test_hooks=True),
            store,
            bus,
            database,
            clock=clock,
            rng=random.Random(i),
        )
        service.share(store)
        poller = WakePoller(store, service.wake, clock, lease_ms=5000)
        consumer = RoundStreamConsumer(
            redis_client, store.rounds_key, database, name=f"c{i}", claim_idle_ms=200
        )
        await consumer.ensure_group()
        out.append(Proc(service, store, poller, consumer, bus, hearing))
    async with contextlib.AsyncExitStack() as stack:
        _stacks[id(out)] = stack
        yield out
        del _stacks[id(out)]
    for p in out:
        await p.service.bus.close()


_stacks: dict[int, contextlib.AsyncExitStack] = {}


def _cmd(action: act.Action, command_id: str, at: int | None = None) -> Command:
    return Command(type(action).__name__.lower(), command_id, at, action)


async def _table(
    procs: list[Proc], hands: list[list[str]], top: str, settings: dict[str, Any]
) -> tuple[str, list[Identity], list[list[int]]]:
    """A room created on process 0, joined on the others, dealt `hands` (seat 0 starts)."""
    a = procs[0].service
    host = await a.create_room("P0", settings)
    for proc in procs:
        if proc.hearing:
            await proc.listen(_stacks[id(procs)], host.room)
    people = [Identity(host.player_id, "player", 0)]
    for i in range(1, len(hands)):
        joined = await procs[i % len(procs)].service.join(host.room, f"P{i}")
        people.append(Identity(joined.player_id, "player", joined.seat))
    cards = (await procs[1].service.deck(host.room))["cards"]
    order, ids, _ = deal_order(cards, hands, top, dealer=len(hands) - 1)
    hooks = act.ChangeSettings({"dealer": len(hands) - 1, "deck_order": order})
    assert (await procs[2].service.submit(host.room, people[0], _cmd(hooks, "h"))).version
    assert (await procs[1].service.submit(host.room, people[0], _cmd(act.Start(), "s"))).version
    return host.room, people, ids


async def _history(store: RedisRoomStore, room: str) -> list[int]:
    events = await store.events_since(room, 0)
    assert events is not None
    return [e.version for e in events]


async def test_commands_from_every_process_make_one_history(procs: list[Proc]) -> None:
    room, people, _ids = await _table(procs, [["red 1"], ["red 2"]], "red 5", {})
    outcomes = []
    for n in range(12):  # chats from both players, through all three processes in turn
        proc = procs[n % 3]
        outcomes.append(
            await proc.service.submit(room, people[n % 2], _cmd(act.Chat(f"m{n}"), f"c{n}"))
        )
    assert all(o.version is not None for o in outcomes)
    versions = await _history(procs[2].store, room)
    assert versions == list(range(1, versions[-1] + 1))
    record = await procs[0].store.load(room)
    assert record is not None and record.version == versions[-1] == outcomes[-1].version


async def test_racing_commands_all_apply_once(procs: list[Proc]) -> None:
    room, people, _ids = await _table(procs, [["red 1"], ["red 2"]], "red 5", {})
    before = (await procs[0].store.load(room)).version  # type: ignore[union-attr]
    jobs = [
        procs[n % 3].service.submit(room, people[n % 2], _cmd(act.Chat(f"x{n}"), f"x{n}"))
        for n in range(30)
    ]
    outcomes = await asyncio.gather(*jobs)
    assert all(o.version is not None for o in outcomes), outcomes
    assert sorted(o.version for o in outcomes) == list(range(before + 1, before + 31))  # type: ignore[type-var]
    events = await procs[1].store.events_since(room, before)
    assert events is not None
    assert sorted(e.public["text"] for e in events) == sorted(f"x{n}" for n in range(30))
    assert sum(p.service.shared.conflicts for p in procs) > 0  # type: ignore[union-attr]


async def test_a_resent_id_applies_once_across_processes(procs: list[Proc]) -> None:
    room, people, ids = await _table(procs, [["red 1", "red 3"], ["red 2"]], "red 5", {})
    play = _cmd(act.Play(ids[0][0]), "p1")
    first = await procs[0].service.submit(room, people[0], play)
    again = await asyncio.gather(*(p.service.submit(room, people[0], play) for p in procs))
    assert first.version is not None and all(o == first for o in again)
    events = await procs[2].store.events_since(room, 0)
    assert events is not None
    assert sum(1 for e in events if e.kind == "card_played") == 1


async def test_a_resent_false_catch_costs_its_penalty_once_across_processes(
    procs: list[Proc],
) -> None:
    """A false catch is refused yet commits the catcher's penalty; a resend of its id, on any
    process, is not applied again. The service answers the refusal, or (a duplicate found by
    the commit function) the negative version it was remembered with, which the socket
    answers with the same refusal (app/transport/ws.py)."""
    settings = {"false_catch_penalty": 2, "turn_seconds": 0}
    room, people, _ids = await _table(procs, [["red 1"], ["red 2"]], "red 5", settings)
    catch = _cmd(act.Catch(0), "fc")
    first = await procs[0].service.submit(room, people[1], catch)
    assert first.code == "not_catchable" and first.version is None
    for proc in procs:
        again = await proc.service.submit(room, people[1], catch)
        assert again.code == "not_catchable" or (again.version or 0) < 0, again
    events = await procs[2].store.events_since(room, 0)
    assert events is not None
    assert sum(1 for e in events if e.kind == "false_catch") == 1


SKIPS = ["red skip", "red skip", "green skip", "green skip", "blue skip", "blue skip", "blue 1"]


async def test_simultaneous_catches_and_declarations_have_one_outcome(procs: list[Proc]) -> None:
    # Two players: each Skip lets seat 0 play again; after six it holds one card, undeclared.
    room, people, ids = await _table(procs, [SKIPS, ["yellow 2"]], "red 5", {"turn_seconds": 0})
    for n, card in enumerate(ids[0][:6]):
        outcome = await procs[n % 3].service.submit(room, people[0], _cmd(act.Play(card), f"p{n}"))
        assert outcome.version is not None, outcome
    before = await procs[0].store.load(room)
    assert before is not None and len(before.state.hands[0]) == 1
    jobs = []
    for n in range(10):  # five catches by seat 1, five declarations by seat 0, racing
        proc = procs[n % 3].service
        if n % 2:
            jobs.append(proc.submit(room, people[1], _cmd(act.Catch(0), f"k{n}")))
        else:
            jobs.append(proc.submit(room, people[0], _cmd(act.DeclareUno(), f"u{n}")))
    outcomes = await asyncio.gather(*jobs)
    events = await procs[1].store.events_since(room, before.version)
    assert events is not None
    caught = [e for e in events if e.kind == "uno_caught"]
    declared = [e for e in events if e.kind == "uno_declared"]
    catches_ok = [o for n, o in enumerate(outcomes) if n % 2 and o.version is not None]
    assert len(caught) == len(catches_ok) <= 1
    assert len(caught) + len(declared) == 1  # the first one wins; the rest are refused
    after = await procs[2].store.load(room)
    assert after is not None
    state = after.state
    assert len(state.hands[0]) == (3 if caught else 1)
    total = sum(len(h) for h in state.hands) + len(state.draw_pile) + len(state.discard)
    assert total == sum(len(h) for h in before.state.hands) + len(before.state.draw_pile) + len(
        before.state.discard
    )


async def test_a_turn_timer_fires_once_whoever_claims_it(procs: list[Proc]) -> None:
    room, _people, _ids = await _table(procs, [["red 1"], ["red 2"]], "red 5", {"turn_seconds": 5})
    clock = procs[0].service.clock
    assert isinstance(clock, Clock)
    wake = await procs[0].store.wake_of(room)
    assert wake == clock.now + 5000
    clock.now += 5001
    claimed = await asyncio.gather(*(p.poller.poll() for p in procs))
    assert sum(claimed) == 1
    for _ in range(100):  # the claimer's wake-up runs as a task
        events = await procs[0].store.events_since(room, 0)
        assert events is not None
        if any(e.kind == "timer_expired" for e in events):
            break
        await asyncio.sleep(0.02)
    # A second claim after the lease (as if the claimer had died before committing) finds
    # nothing due at the new version: still one expiry.
    clock.now += 5001
    await asyncio.gather(*(p.poller.poll() for p in procs))
    await asyncio.sleep(0.2)
    events = await procs[1].store.events_since(room, 0)
    assert events is not None
    expired = [e for e in events if e.kind == "timer_expired"]
    assert len(expired) == 2 and expired[0].public["timer"] == "turn"  # seat 0, then seat 1
    assert expired[0].version < expired[1].version


async def test_a_finished_round_is_recorded_once(procs: list[Proc]) -> None:
    # Two players: every Skip lets seat 0 play again, so its seven cards end the round.
    room, people, ids = await _table(procs, [SKIPS, ["yellow 2"]], "red 5", {"turn_seconds": 0})
    for n, card in enumerate(ids[0]):
        proc = procs[n % 3]
        outcome = await proc.service.submit(
            room, people[0], _cmd(act.Play(card, uno=(n == 5)), f"p{n}")
        )
        assert outcome.version is not None, outcome
    events = await procs[0].store.events_since(room, 0)
    assert events is not None and any(e.kind == "round_ended" for e in events)
    # Every process's consumer reads the stream; one of them takes the round.
    for _ in range(3):
        await asyncio.gather(*(p.rounds.step(block_ms=50) for p in procs))
    database = procs[0].service.recorder
    assert isinstance(database, CountingRecorder)
    assert len(database.calls) == 1
    record = database.calls[0]
    assert record.room == room and record.winner == 0 and record.number == 1


async def test_a_dead_consumers_rounds_are_claimed(procs: list[Proc], redis_client: Redis) -> None:
    room, people, ids = await _table(procs, [SKIPS, ["yellow 2"]], "red 5", {"turn_seconds": 0})
    for n, card in enumerate(ids[0]):
        await procs[0].service.submit(room, people[0], _cmd(act.Play(card, uno=(n == 5)), f"p{n}"))
    # A consumer reads the entry and dies before recording it (never acknowledged).
    dead = await redis_client.xreadgroup("recorders", "dead", {procs[0].store.rounds_key: ">"})
    assert dead and len(dead[0][1]) == 1
    await asyncio.sleep(0.3)  # longer than claim_idle_ms
    assert await procs[1].rounds.reclaim() == 1
    await procs[1].rounds.step(block_ms=50)
    database = procs[0].service.recorder
    assert isinstance(database, CountingRecorder)
    assert [r.room for r in database.calls] == [room]


@pytest.mark.parametrize("procs", [True], ids=["hearing"], indirect=True)
async def test_a_hearing_process_applies_commands_on_its_newest_record(
    procs: list[Proc],
) -> None:
    """A process that heard every commit applies a command without reading the room back;
    a refusal decided on that record is decided again on the stored one (a command applied
    elsewhere gets its ack, not an error), and a record made stale by a lost notice only
    costs a compare-and-set conflict."""
    assert procs[0].hearing
    room, people, ids = await _table(procs, [["red 1", "red 3", "blue 4"], ["red 2"]], "red 5", {})
    a, b = procs[0], procs[1]
    reads = count_calls(b.store)

    async def heard_everything() -> None:
        newest = (await a.store.load(room)).version  # type: ignore[union-attr]
        for _ in range(100):
            known = b.store.held_state(room)
            if known is not None and known.version == newest:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("process b never heard the commit")

    await heard_everything()
    chat = await b.service.submit(room, people[1], _cmd(act.Chat("hi"), "c1"))
    assert chat.version is not None and reads == ["uno_commit"]
    await heard_everything()
    # Seat 0's play applied on process a; resent through b, whose record now shows the card
    # gone (the engine refuses it): answered with the first ack, not applied twice.
    play = _cmd(act.Play(ids[0][0]), "p1")
    first = await a.service.submit(room, people[0], play)
    assert first.version is not None
    await heard_everything()
    reads.clear()
    assert await b.service.submit(room, people[0], play) == first
    assert reads == ["uno_load"]  # refused on b's record, re-decided on the stored one
    # A lost notice: b's newest record is stale; the command still applies (conflict, re-read).
    b_subscribers = b.bus._rooms.pop(room)  # a's next notice does not reach b (as if lost)
    seat1_chat = await a.service.submit(room, people[1], _cmd(act.Chat("lost"), "c2"))
    assert seat1_chat.version is not None
    await asyncio.sleep(0.1)
    b.bus._rooms[room] = b_subscribers
    reads.clear()
    conflicts = b.service.shared.conflicts  # type: ignore[union-attr]
    late = await b.service.submit(room, people[1], _cmd(act.Chat("after"), "c3"))
    assert late.version == seat1_chat.version + 1
    assert b.service.shared.conflicts == conflicts + 1  # type: ignore[union-attr]
    assert reads == ["uno_commit", "uno_load", "uno_commit"]
    events = await a.store.events_since(room, 0)
    assert events is not None
    assert sum(1 for e in events if e.kind == "card_played") == 1


async def test_a_room_nobody_opened_expires_soon_in_redis_and_is_not_kept_locally(
    redis_client: Redis, prefix: str
) -> None:
    """A room made over HTTP expires from Redis after `room_unused_seconds` unless someone
    uses it (a join, a socket: a commit someone made gives it the full TTL); a tournament's
    table gets the full TTL at once. And what a process keeps of each room it served goes
    once the room is idle: with rooms in Redis the sweep deletes nothing, and these tables
    used to grow with every room ever made."""
    clock = Clock()
    store = RedisRoomStore(redis_client, prefix=prefix, idle_ttl_seconds=3600)
    bus = RedisBus(redis_client, store.channel, store.versions, heard=store.heard)
    config = AppSettings(database_url="memory://", room_unused_seconds=60, room_idle_seconds=600)
    service = RoomService(config, store, bus, MemoryRecorder(), clock=clock)
    service.share(store)
    try:
        unopened = await service.create_room("A", None, drop_departed=True)
        joined = await service.create_room("B", None, drop_departed=True)
        table = await service.create_room("C", None)
        await service.join(joined.room, "Friend")

        async def ttl(room: str) -> int:
            return int(await redis_client.pttl(store.key(room, "state")))

        assert 0 < await ttl(unopened.room) <= 60_000
        assert 3_000_000 < await ttl(joined.room) <= 3_600_000
        assert 3_000_000 < await ttl(table.room) <= 3_600_000

        assert await service.sweep() == 0
        assert set(service._touched) == {unopened.room, joined.room, table.room}
        clock.now += 601_000
        await service.sweep()
        assert service._touched == {} and service._unopened == {}
        assert service._locks == {}
        # Still served (Redis holds them): the process's tables refill on use.
        assert (await service.summary(joined.room)) is not None
    finally:
        await bus.close()
