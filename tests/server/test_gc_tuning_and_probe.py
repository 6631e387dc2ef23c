"""The serving process's collector settings (app/gc_tuning.py) and the bench's loop probe
(app/loop_probe.py). The collector is process-wide state, so each mode runs in a fresh
interpreter."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import gc_tuning
from app.loop_probe import PROBE_ENV, LoopProbe, start_if_enabled

REPO = Path(__file__).resolve().parents[2]

SHOW = (
    "import gc, json; from app import gc_tuning; mode = gc_tuning.after_start_up({mode!r}); "
    "again = gc_tuning.after_start_up('off'); "
    "print(json.dumps([mode, again, gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()]))"
)


def settle(mode: str | None, env: dict[str, str] | None = None) -> list[object]:
    environment = {k: v for k, v in os.environ.items() if k != gc_tuning.GC_ENV}
    environment.update(env or {})
    environment["PYTHONPATH"] = str(REPO)
    out = subprocess.run(
        [sys.executable, "-c", SHOW.format(mode=mode)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result: list[object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_tuned_freezes_start_up_and_sets_the_thresholds_once() -> None:
    mode, again, enabled, threshold, frozen = settle("tuned")
    assert (mode, again, enabled) == ("tuned", "tuned", True)  # a second call changes nothing
    assert threshold == list(gc_tuning.TUNED_THRESHOLDS)
    assert isinstance(frozen, int) and frozen > 1000  # the imported modules' objects


def test_the_thresholds_can_come_from_the_environment() -> None:
    env = {gc_tuning.GC_ENV: "tuned", gc_tuning.THRESHOLDS_ENV: "2000,10,100"}
    assert settle(None, env)[3] == [2000, 10, 100]
    env[gc_tuning.THRESHOLDS_ENV] = "2000,10"  # not three integers: the built-in ones
    assert settle(None, env)[3] == list(gc_tuning.TUNED_THRESHOLDS)


def test_rolling_freezes_what_survives_a_collection() -> None:
    code = (
        "import gc, json; from app import gc_tuning; gc_tuning.after_start_up('rolling'); "
        "before = gc.get_freeze_count(); keep = [[i] for i in range(5000)]; gc.collect(0); "
        "print(json.dumps([before, gc.get_freeze_count(), len(gc.get_objects(0))]))"
    )
    env = {k: v for k, v in os.environ.items() if k != gc_tuning.GC_ENV}
    env["PYTHONPATH"] = str(REPO)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    before, after, young = json.loads(out.stdout.strip().splitlines()[-1])
    assert after >= before + 5000  # the survivors went to the permanent generation
    assert young < 100


def test_freeze_keeps_cpython_thresholds() -> None:
    mode, _, enabled, threshold, frozen = settle("freeze")
    assert (mode, enabled) == ("freeze", True)
    assert threshold == [700, 10, 10]
    assert isinstance(frozen, int) and frozen > 1000


def test_default_and_off_and_the_environment() -> None:
    assert settle("default")[2:] == [True, [700, 10, 10], 0]
    assert settle("off")[2] is False
    assert settle(None, {gc_tuning.GC_ENV: "off"})[:3] == ["off", "off", False]
    # An unknown value falls back to the default mode rather than failing the start-up.
    assert settle(None, {gc_tuning.GC_ENV: "bogus"})[0] == gc_tuning.DEFAULT_MODE


def test_the_probe_is_off_without_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROBE_ENV, raising=False)
    assert start_if_enabled() is None


async def test_the_probe_reports_a_blocked_loop_and_collections(tmp_path: Path) -> None:
    target = tmp_path / "probe.jsonl"
    callbacks = len(gc.callbacks)
    task = asyncio.create_task(LoopProbe(target).run())
    await asyncio.sleep(0.05)
    time.sleep(0.08)  # blocks the loop: the probe wakes about 80 ms late
    gc.collect()
    await asyncio.sleep(1.2)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert lines, "one line a second"
    assert max(line["late_max_ms"] for line in lines) >= 60
    assert sum(line["gc_count"][2] for line in lines) >= 1
    assert set(lines[0]) == {
        "t",
        "late_max_ms",
        "wakes",
        "gc_count",
        "gc_max_ms",
        "gc_cpu_max_ms",
        "gc_cpu_ms",
        "gc_collected",
    }
    assert len(gc.callbacks) == callbacks  # the probe unhooked itself


def _stuck_in_a_long_callback() -> None:
    time.sleep(0.08)  # blocks the loop: the sampler finds the loop's thread here


async def test_the_probe_can_say_where_a_stall_spent_its_time(tmp_path: Path) -> None:
    target = tmp_path / "probe.jsonl"
    task = asyncio.create_task(LoopProbe(target).run(stacks=True))
    await asyncio.sleep(0.05)
    _stuck_in_a_long_callback()
    await asyncio.sleep(1.2)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    stacks = [stack for line in lines for stack, _count in line["stall_stacks"]]
    assert any("_stuck_in_a_long_callback" in stack for stack in stacks), stacks
