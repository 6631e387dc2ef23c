"""bench/load.py --cprofile-window: put on a UNO server's PYTHONPATH, this makes the server
profile itself between two signals, in CPU time (time.process_time), so that functions of two
runs compare by what they cost, not by how long they waited for a CPU.

SIGUSR1 starts a cProfile of the main thread (the event loop's), SIGUSR2 stops it and writes
`$UNO_BENCH_CPROFILE.<pid>.prof`. Only with UNO_BENCH_CPROFILE set; the app is not changed.
Python runs signal handlers in the main thread, so the profiler is enabled there.
"""

from __future__ import annotations

import os

if os.environ.get("UNO_BENCH_CPROFILE"):
    import cProfile
    import signal
    import time
    from types import FrameType

    _running: list[cProfile.Profile] = []

    def _start(signum: int, frame: FrameType | None) -> None:
        if not _running:
            profiler = cProfile.Profile(time.process_time)
            _running.append(profiler)
            profiler.enable()

    def _stop(signum: int, frame: FrameType | None) -> None:
        if _running:
            profiler = _running.pop()
            profiler.disable()
            profiler.dump_stats(f"{os.environ['UNO_BENCH_CPROFILE']}.{os.getpid()}.prof")

    signal.signal(signal.SIGUSR1, _start)
    signal.signal(signal.SIGUSR2, _stop)
