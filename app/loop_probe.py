"""A benchmark probe of event-loop stalls: off unless `UNO_LOOP_PROBE` names a file.

A task sleeps 10 ms again and again and records how late it wakes: a late wake is time the loop
spent on something else (a long callback, a garbage collection, a burst of frames). Once a second
it appends one JSON line to the file: the wall time, the longest lateness of that second, the
wakes, and the garbage collections of that second (count and longest pause per generation), so
`bench/load.py` reads the worst stall of its measured window and what caused the longest ones.
With `UNO_LOOP_PROBE_STACKS=1` a thread also looks every 2 ms whether the loop is late by more
than `STALL_S`, and if so notes where the loop's thread is (the innermost frames: file, function,
line), so the line says what the long stalls were doing. Nothing of a room or a player is written.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

PROBE_ENV = "UNO_LOOP_PROBE"
STACKS_ENV = "UNO_LOOP_PROBE_STACKS"
SLEEP_S = 0.010
REPORT_S = 1.0
STALL_S = 0.025  # a wake this much later than planned: where the loop is gets noted
STACK_DEPTH = 8


class StallSampler:
    """A thread noting where the loop's thread is while the loop is late (one note per 2 ms
    of a stall): the stacks that stalls spend their time in, counted per report."""

    def __init__(self, loop_thread: int) -> None:
        self.loop_thread = loop_thread
        self.due = time.perf_counter() + SLEEP_S  # the probe's next planned wake
        self.stacks: collections.Counter[str] = collections.Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="loop-stall-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(0.002):
            if time.perf_counter() - self.due < STALL_S:
                continue
            frame = sys._current_frames().get(self.loop_thread)
            where: list[str] = []
            while frame is not None and len(where) < STACK_DEPTH:
                code = frame.f_code
                where.append(f"{_short(code.co_filename)}:{code.co_name}:{frame.f_lineno}")
                frame = frame.f_back
            self.stacks[" < ".join(where) or "native"] += 1

    def take(self) -> list[tuple[str, int]]:
        top = self.stacks.most_common(5)
        self.stacks = collections.Counter()
        return top


def _short(filename: str) -> str:
    for marker in ("/app/", "/site-packages/", "/lib/python"):
        at = filename.rfind(marker)
        if at >= 0:
            return filename[at + 1 :]
    return filename


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
        self._sampler: StallSampler | None = None

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
        line: dict[str, Any] = {
            "t": round(time.time(), 3),
            "late_max_ms": round(self._late_max * 1000, 3),
            "wakes": self._wakes,
            "gc_count": self._gc_count,
            "gc_max_ms": [round(p * 1000, 3) for p in self._gc_max],
            "gc_cpu_max_ms": [round(p * 1000, 3) for p in self._gc_cpu_max],
            "gc_cpu_ms": round(self._gc_cpu_total * 1000, 3),
            "gc_collected": self._gc_collected,
        }
        if self._sampler is not None:
            line["stall_stacks"] = self._sampler.take()
        out.write(json.dumps(line) + "\n")
        out.flush()
        self._late_max, self._wakes = 0.0, 0
        self._gc_count, self._gc_max = [0, 0, 0], [0.0, 0.0, 0.0]
        self._gc_cpu_max, self._gc_cpu_total = [0.0, 0.0, 0.0], 0.0
        self._gc_collected = 0

    async def run(self, stacks: bool = False) -> None:
        gc.callbacks.append(self._on_gc)
        if stacks:
            self._sampler = StallSampler(threading.get_ident())
            self._sampler.start()
        try:
            with self.path.open("a", encoding="utf-8") as out:
                next_report = time.perf_counter() + REPORT_S
                while True:
                    before = time.perf_counter()
                    if self._sampler is not None:
                        self._sampler.due = before + SLEEP_S
                    await asyncio.sleep(SLEEP_S)
                    now = time.perf_counter()
                    self._late_max = max(self._late_max, now - before - SLEEP_S)
                    self._wakes += 1
                    if now >= next_report:
                        self._report(out)
                        next_report = now + REPORT_S
        finally:
            gc.callbacks.remove(self._on_gc)
            if self._sampler is not None:
                self._sampler.stop()


def start_if_enabled() -> asyncio.Task[None] | None:
    """Start the probe on the running loop when the environment asks for it."""
    target = os.environ.get(PROBE_ENV, "")
    if not target:
        return None
    stacks = os.environ.get(STACKS_ENV, "") == "1"
    return asyncio.create_task(LoopProbe(Path(target)).run(stacks), name="loop-probe")
