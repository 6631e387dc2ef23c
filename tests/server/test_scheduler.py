"""One scheduler per process: each wake-up fires once, replaced plans never fire."""

from __future__ import annotations

import asyncio
import time

import pytest

from app.rooms.scheduler import Scheduler, SteadyClock, wall_ms


async def _collect(fired: list[tuple[str, int]], room: str) -> None:
    fired.append((room, wall_ms()))


async def test_wakes_each_room_once_in_time_order() -> None:
    fired: list[tuple[str, int]] = []
    scheduler = Scheduler(lambda room: _collect(fired, room))
    await scheduler.start()
    try:
        now = wall_ms()
        scheduler.schedule("b", now + 150)
        scheduler.schedule("a", now + 20)
        scheduler.schedule("c", now + 40)
        scheduler.schedule("c", None)  # cancelled
        scheduler.schedule("d", now + 500)
        scheduler.schedule("d", now + 80)  # replaced by an earlier plan
        await asyncio.sleep(0.4)
        assert [room for room, _ in fired] == ["a", "d", "b"]
        for room, at in fired:
            assert at >= {"a": now + 20, "d": now + 80, "b": now + 150}[room]
        assert scheduler.pending() == 0
        await asyncio.sleep(0.3)  # the replaced plan for d (at +500) never fires
        assert [room for room, _ in fired] == ["a", "d", "b"]
    finally:
        await scheduler.stop()


async def test_a_later_plan_postpones_and_a_failure_does_not_stop_the_others() -> None:
    fired: list[str] = []

    async def wake(room: str) -> None:
        if room == "bad":
            raise RuntimeError("boom")
        fired.append(room)

    scheduler = Scheduler(wake)
    await scheduler.start()
    try:
        now = wall_ms()
        scheduler.schedule("late", now + 10)
        scheduler.schedule("late", now + 600)  # postponed: the first plan never fires
        scheduler.schedule("bad", now)
        scheduler.schedule("ok", now + 20)
        await asyncio.sleep(0.3)
        assert fired == ["ok"]
        await asyncio.sleep(0.6)
        assert fired == ["ok", "late"]
    finally:
        await scheduler.stop()


async def test_idle_scheduler_has_no_pending_work() -> None:
    scheduler = Scheduler(lambda room: _collect([], room))
    await scheduler.start()
    try:
        await asyncio.sleep(0.01)
        assert scheduler.pending() == 0
        assert len(asyncio.all_tasks()) <= 3  # this test, the scheduler, nothing per room
    finally:
        await scheduler.stop()


async def test_a_wall_clock_step_neither_fires_nor_stalls_a_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fired: list[tuple[str, int]] = []
    scheduler = Scheduler(lambda room: _collect(fired, room))  # the default clock
    await scheduler.start()
    try:
        scheduler.schedule("a", wall_ms() + 150)
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() + 3600)  # the clock jumps 1 h ahead
        # b's deadline leaves room for a loaded machine's late wakes before c's.
        scheduler.schedule("b", wall_ms() + 1200)  # wakes the scheduler after the step
        await asyncio.sleep(0.08)
        assert fired == []  # +1 h fired nothing early
        monkeypatch.setattr(time, "time", lambda: real() - 3600)  # and now 1 h behind
        scheduler.schedule("c", wall_ms() + 200)
        for _ in range(100):
            if len(fired) == 3:
                break
            await asyncio.sleep(0.05)
        assert [room for room, _ in fired] == ["a", "c", "b"]  # -1 h stalled nothing
    finally:
        await scheduler.stop()


def test_the_steady_clock_ignores_wall_steps_and_follows_the_monotonic_clock() -> None:
    wall = [1_800_000_000.0]
    mono = [50.0]
    clock = SteadyClock(wall=lambda: wall[0], monotonic=lambda: mono[0])
    start = clock()
    assert start == 1_800_000_000_000
    wall[0] += 3600
    assert clock() == start
    wall[0] -= 7200
    mono[0] += 1.5
    assert clock() == start + 1500
