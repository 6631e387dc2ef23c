"""A move racing its deadline has one outcome (issue 11: timer races within +/-50 ms of each
deadline). On the room service with an injected clock, the command lands 50 ms and 1 ms
before, at, 1 ms and 50 ms after the turn, challenge and UNO-window deadlines: before, the
move is applied and the timer never fires; at or after, the timer fires once and the move is
refused. Never both, never neither, and a wake-up afterwards fires nothing more."""

from __future__ import annotations

import random
from typing import Any

import pytest
from e2e.harness import deal_order

from app import engine
from app.bus.memory import MemoryBus
from app.engine import actions as act
from app.rooms.commands import Command
from app.rooms.service import Identity, Outcome, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.rooms import MemoryRoomStore
from tests.fake_clock import Clock

OFFSETS = [-50, -1, 0, 1, 50]


class Table:
    def __init__(self, service: RoomService, clock: Clock, room: str, people: list[Identity]):
        self.service, self.clock, self.room, self.people = service, clock, room, people
        self.serial = 0

    async def act(self, seat: int, action: act.Action) -> Outcome:
        self.serial += 1
        version = (await self.state()).version
        command = Command(type(action).__name__, f"c{self.serial}", version, action)
        return await self.service.submit(self.room, self.people[seat], command)

    async def state(self) -> Any:
        record = await self.service.store.load(self.room)
        assert record is not None
        return record.state

    async def deadline(self, kind: str) -> int:
        found = [d.at for d in engine.deadlines(await self.state()) if d.kind == kind]
        assert len(found) == 1, kind
        return found[0]

    async def expired(self, since: int) -> list[str]:
        events = await self.service.store.events_since(self.room, since) or []
        return [e.public["timer"] for e in events if e.kind == "timer_expired"]


async def _table(settings: dict[str, Any], hands: list[list[str]]) -> tuple[Table, list[int]]:
    clock = Clock()
    service = RoomService(
        AppSettings(database_url="memory://", uno_test_hooks=True),
        MemoryRoomStore(),
        MemoryBus(),
        MemoryRecorder(),
        clock=clock,
        rng=random.Random(5),
    )
    host = await service.create_room("A", settings)
    guest = await service.join(host.room, "B")
    people = [Identity(host.player_id, "player", 0), Identity(guest.player_id, "player", 1)]
    table = Table(service, clock, host.room, people)
    order, ids, _ = deal_order((await service.deck(host.room))["cards"], hands, "red 5", dealer=1)
    hooks = act.ChangeSettings({"dealer": 1, "deck_order": order})
    assert (await table.act(0, hooks)).version is not None
    assert (await table.act(0, act.Start())).version is not None
    return table, ids[0]


async def _race(table: Table, kind: str, offset: int, seat: int, action: act.Action) -> None:
    at = await table.deadline(kind)
    before = (await table.state()).version
    table.clock.now = at + offset
    outcome = await table.act(seat, action)
    fired = await table.expired(before)
    if offset < 0:
        assert outcome.version is not None, outcome  # in time: applied ...
        assert kind not in fired  # ... and its timer is gone
    else:
        assert fired.count(kind) == 1  # the timer first, once ...
        assert outcome.version is None and outcome.code is not None  # ... the move refused
    settled = (await table.state()).version
    await table.service.wake(table.room)  # the scheduler's own wake-up changes nothing more
    assert (await table.expired(before)).count(kind) == fired.count(kind)
    assert (await table.state()).version >= settled


@pytest.mark.parametrize("offset", OFFSETS)
async def test_a_play_racing_the_turn_deadline(offset: int) -> None:
    table, mine = await _table({"turn_seconds": 5}, [["red 1"], ["blue 2"]])
    await _race(table, "turn", offset, 0, act.Play(mine[0]))


@pytest.mark.parametrize("offset", OFFSETS)
async def test_a_challenge_racing_its_deadline(offset: int) -> None:
    settings = {"turn_seconds": 0, "challenge_seconds": 3}
    table, mine = await _table(settings, [["wild_draw4"], ["blue 2"]])
    assert (await table.act(0, act.Play(mine[0], color="green"))).version is not None
    await _race(table, "challenge", offset, 1, act.Challenge())


@pytest.mark.parametrize("offset", OFFSETS)
async def test_a_catch_racing_the_uno_window(offset: int) -> None:
    settings = {"turn_seconds": 0, "uno_window_ms": 500}
    hands = [["red 3", "red 4", "red 6", "red 7", "red 8", "red 9", "red 1"], ["blue 2"]]
    table, mine = await _table(settings, hands)
    for card in mine[:6]:  # down to one card without declaring; the other seat only draws
        assert (await table.act(0, act.Play(card))).version is not None
        if card == mine[5]:
            break
        assert (await table.act(1, act.Draw())).version is not None
        if any(isinstance(a, act.Pass) for a in engine.legal_actions(await table.state(), 1)):
            assert (await table.act(1, act.Pass())).version is not None
    await _race(table, "uno", offset, 1, act.Catch(0))
