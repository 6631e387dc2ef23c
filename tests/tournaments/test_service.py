"""The tournament service in-process, on a fake clock: seating follows the injected rng, and
idle tournaments that are not running are forgotten."""

from __future__ import annotations

import random

from app.bus.memory import MemoryBus
from app.rooms.service import RoomService
from app.rooms.tables import RoomTables
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.rooms import MemoryRoomStore
from app.tournaments.service import TournamentService
from app.tournaments.store import MemoryTournamentStore
from tests.fake_clock import Clock


def services(seed: int) -> tuple[TournamentService, MemoryTournamentStore, Clock]:
    clock = Clock()
    rooms = RoomService(
        AppSettings(database_url="memory://", room_idle_seconds=3600),
        MemoryRoomStore(),
        MemoryBus(),
        MemoryRecorder(),
        clock=clock,
        rng=random.Random(seed),
    )
    store = MemoryTournamentStore()
    cups = TournamentService(RoomTables(rooms), store, rng=random.Random(seed), clock=clock)
    return cups, store, clock


BODY = {"name": "Cup", "host_name": "Host", "table_size": 3, "format": "swiss", "rounds": 2}
NAMES = [f"P{i}" for i in range(10)]


async def seating(seed: int) -> list[list[str]]:
    cups, _, _ = services(seed)
    try:
        created = await cups.create(BODY)
        for name in NAMES:
            await cups.register(created.code, name)
        body = await cups.start(created.code, f"Bearer {created.token}")
        names = {e["entrant_id"]: e["name"] for e in body["entrants"]}
        return [[names[e] for e in t["seats"]] for t in body["rounds"][0]["tables"]]
    finally:
        await cups.stop()


async def test_seating_follows_the_injected_rng() -> None:
    first = await seating(11)
    assert first == await seating(11)
    assert first != await seating(12)
    assert [len(t) for t in first] == [3, 3, 2, 2]
    assert sorted(n for t in first for n in t) == sorted(NAMES)


async def test_idle_tournaments_not_running_are_forgotten() -> None:
    cups, store, clock = services(1)
    try:
        idle = await cups.create(BODY)
        running = await cups.create(BODY)
        for name in ("Ana", "Bo"):
            await cups.register(running.code, name)
        await cups.start(running.code, f"Bearer {running.token}")
        clock.now += 1800 * 1000
        fresh = await cups.create(BODY)
        assert await cups.sweep() == 0
        clock.now += 1801 * 1000
        assert await cups.sweep() == 1  # the idle registration, not the fresh one yet
        assert await store.load(idle.code) is None
        assert await store.load(running.code) is not None  # running: kept
        assert await store.load(fresh.code) is not None
    finally:
        await cups.stop()
