"""The room service on a fake clock, without the scheduler: what a command meets."""

from __future__ import annotations

import random
from typing import Any

import pytest
from e2e.harness import deal_order

from app.bus.memory import MemoryBus
from app.engine import actions as act
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomError, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.rooms import MemoryRoomStore
from tests.fake_clock import Clock


async def _room(settings: dict[str, Any]) -> tuple[RoomService, Clock, str, list[Identity]]:
    clock = Clock()
    service = RoomService(
        AppSettings(database_url="memory://", uno_test_hooks=True),
        MemoryRoomStore(),
        MemoryBus(),
        MemoryRecorder(),
        clock=clock,
        rng=random.Random(3),
    )
    host = await service.create_room("A", settings)
    guest = await service.join(host.room, "B")
    people = [
        Identity(host.player_id, "player", 0),
        Identity(guest.player_id, "player", 1),
    ]
    return service, clock, host.room, people


def _cmd(kind: str, action: act.Action, command_id: str, at: int | None = None) -> Command:
    return Command(kind, command_id, at, action)


async def test_a_late_command_meets_the_expired_turn_first() -> None:
    service, clock, room, (a, _b) = await _room({"turn_seconds": 5})
    cards = (await service.deck(room))["cards"]
    order, ids, _ = deal_order(cards, [["blue 1"], ["green 1"]], "red 5", dealer=1)
    hooks = act.ChangeSettings({"dealer": 1, "deck_order": order})
    assert (await service.submit(room, a, _cmd("settings", hooks, "h"))).version is not None
    started = await service.submit(room, a, _cmd("start", act.Start(), "s"))
    assert started.version is not None
    record = await service.store.load(room)
    assert record is not None and record.state.turn == 0
    card = ids[0][0]
    clock.now += 5_001  # the scheduler is not running: the command itself finds the deadline
    late = await service.submit(room, a, _cmd("play", act.Play(card), "late", at=started.version))
    assert late.code == "stale"
    events = await service.store.events_since(room, started.version)
    assert events is not None
    assert events[0].kind == "timer_expired" and events[0].public["timer"] == "turn"
    assert record.state.turn == 1


async def test_a_resent_id_is_answered_from_the_cache() -> None:
    service, _clock, room, (a, _b) = await _room({"turn_seconds": 0})
    first = await service.submit(room, a, _cmd("chat", act.Chat("hi"), "c1"))
    again = await service.submit(room, a, _cmd("chat", act.Chat("hi"), "c1"))
    assert first == again and first.version is not None
    record = await service.store.load(room)
    assert record is not None and record.version == first.version


async def test_refusals_change_nothing_and_spectators_cannot_act() -> None:
    service, _clock, room, (_a, b) = await _room({"turn_seconds": 0})
    record = await service.store.load(room)
    assert record is not None
    version = record.version
    refused = await service.submit(room, b, _cmd("start", act.Start(), "x"))
    assert refused.code == "not_host"
    watcher_id, _token = await service.spectate(room, "Eve")
    watcher = Identity(watcher_id, "spectator", None)
    assert (await service.submit(room, watcher, _cmd("start", act.Start(), "y"))).code == (
        "unauthorized"
    )
    assert record.version == version


async def test_an_unknown_room_leaves_no_lock_behind() -> None:
    service, _clock, room, _people = await _room({})
    before = len(service._locks)
    for _ in range(50):
        with pytest.raises(RoomError):
            await service.join("no-such-room", "X")
        with pytest.raises(RoomError):
            await service.spectate("no-such-room", "X")
    assert len(service._locks) == before
    await service.spectate(room, "W")  # a real room still works


async def test_retention_forgets_an_idle_rooms_records() -> None:
    service, clock, room, _people = await _room({})
    assert len(await service.recorder.room_members(room)) == 2
    assert await service.prune_records() == (0, 0)
    clock.now += int(service.config.room_retention_days * 86_400_000) + 1
    forgotten, _ = await service.prune_records()
    assert forgotten == 1
    assert await service.recorder.room_members(room) == []
    assert await service.recorder.version_ceiling(room) == 0
