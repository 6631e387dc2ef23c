"""The garbage collector of a serving process, set once start-up is done (`UNO_GC`).

Full collections walk every object the process holds, the rooms' histories included, and stop
the event loop while they run; docs/performance.md ("Garbage collector", "Compact history") has
the measurements that chose the default. Modes: `paced` (freeze what start-up allocated, then
collections by the clock rather than by CPython's counter; see `PACED_*`), `tuned` (freeze what
start-up allocated, then the thresholds below), `rolling` (freeze what survives every
collection: short pauses, but cyclic garbage that forms among survivors is never freed;
opt-in), `freeze` (freeze only), `default` (CPython's settings), `off` (no automatic
collection; for measurements only: cyclic garbage piles up).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os

log = logging.getLogger(__name__)

GC_ENV = "UNO_GC"
THRESHOLDS_ENV = "UNO_GC_THRESHOLDS"  # "a,b,c": the tuned mode's thresholds instead
MODES = ("paced", "tuned", "rolling", "freeze", "default", "off")
DEFAULT_MODE = "paced"  # docs/performance.md, "Compact history"
# Measured (docs/performance.md, "Garbage collector"): with CPython's (700, 10, 10), a server of
# 500 paced rooms spent 44-52% of its CPU collecting, and its full collections (2-3 in 30 s)
# took 650-870 ms of CPU each, walking every room's history again. Young collections every
# 50,000 net allocations (a move leaves ~15 objects alive in the history) with CPython's ratios
# above them: 13x less CPU in collections, no full collection in any 30 s window. The price: a
# young collection walks up to 50,000 live objects (140-270 ms of CPU on the busy machine).
TUNED_THRESHOLDS = (50_000, 20, 10)
# Why a young collection under `tuned` took 140-400 ms of CPU (docs/performance.md, "Compact
# history"): CPython starts one when allocations minus deallocations of tracked objects pass the
# first threshold, and a deallocation counts whatever generation the object lived in. A server in
# its steady state frees old objects about as fast as it makes new ones (a room's state from 8
# commits ago, the history's oldest events), so the counter creeps while the young generation
# itself grows by everything every move keeps: measured 12-35 young objects per unit of the
# counter, i.e. several hundred thousand objects walked by a "50,000" collection. `paced`
# collects by the clock instead: every PACED_YOUNG_S the young and middle generations together
# (`gc.collect(1)`), so a collection walks only what ~PACED_YOUNG_S of play kept alive, whatever
# the counter says, and what survives it goes straight to the old generation. Measured with a
# middle collection every 5 s instead: 75 ms of CPU each at 500 rooms (5 s of survivors: the
# states kept for 8 commits, the frames kept for 2). A collection costs ~120-170 µs of CPU per
# move it covers (500 and 2,000 rooms): at the design load's 500 moves/s, 0.25 s would be 15-21
# ms per collection, 0.1 s is 6-9 ms, for the same CPU in all.
PACED_YOUNG_S = 0.1
# Every this many ticks (~10 min) a full collection: the only one that frees cycles among
# long-lived objects (a closed socket's). It walks the whole heap, so it stays rare.
PACED_FULL_EVERY = 6000
# The counter's thresholds stay out of the way: the clock triggers every collection.
PACED_THRESHOLDS = (1_000_000, 1_000, 1_000)

_applied: str | None = None


def after_start_up(mode: str | None = None) -> str:
    """Apply the mode (the environment's, else the default) once per process; return it."""
    global _applied
    if _applied is not None:
        return _applied
    chosen = (mode or os.environ.get(GC_ENV) or DEFAULT_MODE).strip().lower()
    if chosen not in MODES:
        log.warning("%s=%r is not one of %s; using %s", GC_ENV, chosen, MODES, DEFAULT_MODE)
        chosen = DEFAULT_MODE
    if chosen == "off":
        gc.disable()
    elif chosen in ("paced", "tuned", "freeze", "rolling"):
        # Everything alive now lives as long as the process: move it out of the collector's
        # reach so no collection walks it again.
        gc.collect()
        gc.freeze()
        if chosen == "tuned":
            gc.set_threshold(*_thresholds())
        elif chosen == "paced":
            gc.set_threshold(*PACED_THRESHOLDS)
            if not _start_paced():
                log.warning("UNO_GC=paced needs a running event loop; using %s", TUNED_THRESHOLDS)
                gc.set_threshold(*TUNED_THRESHOLDS)
        elif chosen == "rolling":
            # What survives any collection is frozen at once, so no collection walks it again.
            # Measured much shorter pauses, but cycles among frozen objects are never freed:
            # it leaked ~11 KB per closed connection in a churn test. Opt-in only.
            gc.callbacks.append(_freeze_survivors)
    _applied = chosen
    return chosen


def _start_paced() -> bool:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    ticks = 0

    def tick() -> None:
        nonlocal ticks
        ticks += 1
        gc.collect(2 if ticks % PACED_FULL_EVERY == 0 else 1)
        loop.call_later(PACED_YOUNG_S, tick)

    loop.call_later(PACED_YOUNG_S, tick)
    return True


def _thresholds() -> tuple[int, int, int]:
    text = os.environ.get(THRESHOLDS_ENV, "")
    try:
        first, second, third = (int(part) for part in text.split(","))
    except ValueError:
        if text:
            log.warning(
                "%s=%r is not three integers; using %s", THRESHOLDS_ENV, text, TUNED_THRESHOLDS
            )
        return TUNED_THRESHOLDS
    return first, second, third


def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
    if phase == "stop":
        gc.freeze()
