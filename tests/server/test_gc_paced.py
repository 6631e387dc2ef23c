"""`UNO_GC=paced`: collections by the clock, not by CPython's allocation counter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app import gc_tuning

REPO = Path(__file__).resolve().parents[2]

# In a fresh interpreter (the collector is process-wide): the mode applied inside a running loop,
# then 1.2 s of a loop that makes garbage-free survivors, the collections seen by generation.
RUN = """
import asyncio, gc, json, time
from app import gc_tuning

async def main():
    seen = []
    start = time.monotonic()
    mode = gc_tuning.after_start_up("paced")
    gc.callbacks.append(lambda phase, info: phase == "stop" and seen.append(info["generation"]))
    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    kept = []
    for _ in range(60):
        kept.append([{"n": i} for i in range(100)])  # survivors, too few for the counter
        await asyncio.sleep(0.02)
    return [mode, frozen, threshold, seen, gc.isenabled(), time.monotonic() - start]

print(json.dumps(asyncio.run(main())))
"""


def _run(code: str) -> list[object]:
    env = {k: v for k, v in os.environ.items() if k != gc_tuning.GC_ENV}
    env["PYTHONPATH"] = str(REPO)
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result: list[object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_paced_collects_the_young_generation_by_the_clock() -> None:
    mode, frozen, threshold, seen, enabled, elapsed = _run(RUN)
    assert mode == "paced" and enabled is True
    assert isinstance(frozen, int) and frozen > 1000  # start-up frozen
    assert threshold == list(gc_tuning.PACED_THRESHOLDS)
    # ~1.2 s (longer on a busy machine: measured) at one collection of the young and middle
    # generations per PACED_YOUNG_S, although the counter never reached its threshold.
    assert isinstance(elapsed, float) and elapsed >= 1.2
    expected = elapsed / gc_tuning.PACED_YOUNG_S
    assert isinstance(seen, list) and expected / 2 <= seen.count(1) <= expected + 2, seen
    assert set(seen) == {1}


def test_paced_without_a_loop_falls_back_to_the_tuned_thresholds() -> None:
    code = (
        "import gc, json; from app import gc_tuning; "
        "print(json.dumps([gc_tuning.after_start_up('paced'), gc.get_threshold()]))"
    )
    assert _run(code) == ["paced", list(gc_tuning.TUNED_THRESHOLDS)]
