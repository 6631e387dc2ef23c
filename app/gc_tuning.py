"""The garbage collector of a serving process, set once start-up is done (`UNO_GC`).

Full collections walk every object the process holds, the rooms' histories included, and stop
the event loop while they run; docs/performance.md ("Garbage collector") has the measurements
that chose the default. Modes: `tuned` (freeze what start-up allocated, then the thresholds
below), `rolling` (freeze what survives every collection: short pauses, but cyclic garbage
that forms among survivors is never freed; opt-in), `freeze` (freeze only), `default` (CPython's
settings), `off` (no automatic collection; for measurements only: cyclic garbage piles up).
"""

from __future__ import annotations

import gc
import logging
import os

log = logging.getLogger(__name__)

GC_ENV = "UNO_GC"
THRESHOLDS_ENV = "UNO_GC_THRESHOLDS"  # "a,b,c": the tuned mode's thresholds instead
MODES = ("tuned", "rolling", "freeze", "default", "off")
DEFAULT_MODE = "tuned"
# Measured (docs/performance.md, "Garbage collector"): with CPython's (700, 10, 10), a server of
# 500 paced rooms spent 44-52% of its CPU collecting, and its full collections (2-3 in 30 s)
# took 650-870 ms of CPU each, walking every room's history again. Young collections every
# 50,000 net allocations (a move leaves ~15 objects alive in the history) with CPython's ratios
# above them: 13x less CPU in collections, no full collection in any 30 s window. The price: a
# young collection walks up to 50,000 live objects (140-270 ms of CPU on the busy machine).
TUNED_THRESHOLDS = (50_000, 20, 10)

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
    elif chosen in ("tuned", "freeze", "rolling"):
        # Everything alive now lives as long as the process: move it out of the collector's
        # reach so no collection walks it again.
        gc.collect()
        gc.freeze()
        if chosen == "tuned":
            gc.set_threshold(*_thresholds())
        elif chosen == "rolling":
            # What survives any collection is frozen at once, so no collection walks it again.
            # Measured much shorter pauses, but cycles among frozen objects are never freed:
            # it leaked ~11 KB per closed connection in a churn test. Opt-in only.
            gc.callbacks.append(_freeze_survivors)
    _applied = chosen
    return chosen


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
