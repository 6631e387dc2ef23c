"""A benchmark probe of event-loop stalls: off unless `UNO_LOOP_PROBE` names a file.

A task sleeps 10 ms again and again and records how late it wakes: a late wake is time the loop
spent on something else (a long callback, a garbage collection, a burst of frames). Once a second
it appends one JSON line to the file: the wall time, the longest lateness of that second, the
wakes, and the garbage collections of that second (count and longest pause per generation), so
`bench/load.py` reads the worst stall of its measured window and what caused the longest ones.
Nothing of a room or a player is written.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import time
from pathlib import Path
from typing import Any

PROBE_ENV = "UNO_LOOP_PROBE"
SLEEP_S = 0.010
REPORT_S = 1.0


class LoopProbe:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._late_max = 0.0
        self._wakes = 0
        self._gc_started = 0.0
        self._gc_started_cpu = 0.0
        self._gc_count = [0, 0, 0]
        self._gc_max = [0.0, 0.0, 0.0]
        # CPU time as well as wall time: on a shared machine a collection can be preempted,
        # and its wall time then says more about the neighbours than about the heap.
        self._gc_cpu_max = [0.0, 0.0, 0.0]
        self._gc_cpu_total = 0.0
        self._gc_collected = 0  # cyclic garbage freed: what the collections were for

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            self._gc_started_cpu = time.thread_time()
            return
        generation = info.get("generation", 2)
        pause = time.perf_counter() - self._gc_started
        cpu = time.thread_time() - self._gc_started_cpu
        self._gc_count[generation] += 1
        self._gc_max[generation] = max(self._gc_max[generation], pause)
        self._gc_cpu_max[generation] = max(self._gc_cpu_max[generation], cpu)
        self._gc_cpu_total += cpu
        self._gc_collected += info.get("collected", 0)

    def _report(self, out: Any) -> None:
        line = {
            "t": round(time.time(), 3),
            "late_max_ms": round(self._late_max * 1000, 3),
            "wakes": self._wakes,
            "gc_count": self._gc_count,
            "gc_max_ms": [round(p * 1000, 3) for p in self._gc_max],
            "gc_cpu_max_ms": [round(p * 1000, 3) for p in self._gc_cpu_max],
            "gc_cpu_ms": round(self._gc_cpu_total * 1000, 3),
            "gc_collected": self._gc_collected,
        }
        out.write(json.dumps(line) + "\n")
        out.flush()
        self._late_max, self._wakes = 0.0, 0
        self._gc_count, self._gc_max = [0, 0, 0], [0.0, 0.0, 0.0]
        self._gc_cpu_max, self._gc_cpu_total = [0.0, 0.0, 0.0], 0.0
        self._gc_collected = 0

    async def run(self) -> None:
        gc.callbacks.append(self._on_gc)
        try:
            with self.path.open("a", encoding="utf-8") as out:
                next_report = time.perf_counter() + REPORT_S
                while True:
                    before = time.perf_counter()
                    await asyncio.sleep(SLEEP_S)
                    now = time.perf_counter()
                    self._late_max = max(self._late_max, now - before - SLEEP_S)
                    self._wakes += 1
                    if now >= next_report:
                        self._report(out)
                        next_report = now + REPORT_S
        finally:
            gc.callbacks.remove(self._on_gc)


def start_if_enabled() -> asyncio.Task[None] | None:
    """Start the probe on the running loop when the environment asks for it."""
    target = os.environ.get(PROBE_ENV, "")
    if not target:
        return None
    return asyncio.create_task(LoopProbe(Path(target)).run(), name="loop-probe")
