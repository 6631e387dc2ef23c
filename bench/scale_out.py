"""Scale-out (issue 10): the design load through Redis on several processes against one
process in memory, measured in the same run.

Runs of bench/load.py's paced mode (bench/load_paced.py), one after the other:
1. design load, one process, memory store: `--paced --rooms 2000 --players 4 --interval 4`;
2. the same on `--processes 2 --redis` (a private redis-server) with each room's sockets on
   one process, rooms spread over both (`--placement room`: as the balancer places them,
   docs/deploy/nginx.conf hashes a room's socket path);
3. the same with each room's seats spread over both processes (`--placement seat`: every move
   crosses Redis to reach someone; what a balancer without the hash, or a room whose sockets
   were re-hashed, costs);
4.-6. saturation: `--saturation-rooms` rooms (200) each sending its next move as soon as the
   previous one reached every seat (an interval of 1 ms: every tick is late, the rooms run
   flat out), on one process in memory and on two through Redis, both placements.

Prints each run's line and the ratios the issue sets goals for, per placement: p99 of the
design load on two processes (goal ≤ 35 ms), throughput at saturation 2 processes ÷ 1 (goal
≥ 0.6), server CPU per move at the design load 2 processes ÷ 1 (goal ≤ 1.2; Redis's own CPU
per move shown beside it, not in the ratio). `--pairs N` repeats the design load's pair
(memory, then Redis by room) N-1 more times, alternating, and also prints each pair's ratio
and their median: on a machine whose figures move ±25% between identical runs, one pair says
little. `--json` prints one JSON object last.

    .venv/bin/python bench/scale_out.py [--rooms 2000] [--saturation-rooms 200] [--pairs 3]
        [--json]

Talks only to 127.0.0.1; every run is bounded by bench/load.py's own timeouts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
RUN_TIMEOUT_S = 900


def _run(label: str, extra: list[str]) -> dict[str, Any]:
    command = [sys.executable, str(BENCH / "load.py"), "--json", *extra]
    print(f"# {label}: {' '.join(command[1:])}", flush=True)
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, cwd=BENCH.parent
    )
    lines = done.stdout.strip().splitlines()
    for line in lines[:-1]:
        print(f"  {line}")
    if not lines or not lines[-1].startswith("{"):
        print(done.stderr[-2000:], file=sys.stderr)
        raise SystemExit(f"{label}: bench/load.py failed ({done.returncode})")
    result: dict[str, Any] = json.loads(lines[-1])
    if done.returncode != 0:  # it measured, but some rooms failed (they are reported)
        print(f"  ({label}: bench/load.py exited {done.returncode}: {result.get('failures')})")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=2000, help="design-load rooms (2000)")
    parser.add_argument("--saturation-rooms", type=int, default=200, help="rooms flat out")
    parser.add_argument("--window", type=float, default=30.0, help="measured seconds per run")
    parser.add_argument("--pairs", type=int, default=1, help="design-load pairs, alternating (1)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()
    paced = ["--paced", "--players", "4", "--window", str(args.window)]
    design = [*paced, "--rooms", str(args.rooms), "--interval", "4"]
    flat = [*paced, "--rooms", str(args.saturation_rooms), "--interval", "0.001"]
    flat += ["--warmup", "5"]
    two = ["--processes", "2", "--redis"]
    placements = ("room", "seat")
    runs = {"design_memory_1": _run("design load, 1 process, memory", design)}
    for placement in placements:
        runs[f"design_redis_2_{placement}"] = _run(
            f"design load, 2 processes, Redis, placement by {placement}",
            [*design, *two, "--placement", placement],
        )
    runs["saturation_memory_1"] = _run("saturation, 1 process, memory", flat)
    for placement in placements:
        runs[f"saturation_redis_2_{placement}"] = _run(
            f"saturation, 2 processes, Redis, placement by {placement}",
            [*flat, *two, "--placement", placement],
        )
    pairs = [(runs["design_memory_1"], runs["design_redis_2_room"])]
    for n in range(2, args.pairs + 1):
        memory = _run(f"design load, 1 process, memory (pair {n})", design)
        redis = _run(
            f"design load, 2 processes, Redis, placement by room (pair {n})",
            [*design, *two, "--placement", "room"],
        )
        pairs.append((memory, redis))
    d1, s1 = runs["design_memory_1"], runs["saturation_memory_1"]
    summary: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs",
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "design_p99_ms_memory_1": d1["p99_ms"],
        "design_cpu_ms_per_move_memory_1": d1["cpu_ms_per_move"],
        "saturation_moves_per_s_memory_1": s1["moves_per_s"],
        "saturation_p99_ms_memory_1": s1["p99_ms"],
        "other_cpu_pct": [r["other_cpu_pct"] for r in runs.values()],
        "errors": {k: r["errors"] for k, r in runs.items() if r["errors"]},
    }
    print(
        f"design load ({args.rooms} rooms, 4 seats, a move per room every 4 s), 1 process in "
        f"memory: p99 {d1['p99_ms']} ms, server CPU per move {d1['cpu_ms_per_move']} ms; "
        f"saturation ({args.saturation_rooms} rooms flat out): {s1['moves_per_s']} moves/s"
    )
    for placement in placements:
        d2 = runs[f"design_redis_2_{placement}"]
        s2 = runs[f"saturation_redis_2_{placement}"]
        figures = {
            "design_p99_ms": d2["p99_ms"],
            "design_p50_ms": d2["p50_ms"],
            "design_moves_per_s": d2["moves_per_s"],
            "design_stall_ms": d2["stall_max_ms"],
            "design_cpu_ms_per_move": d2["cpu_ms_per_move"],
            "design_redis_cpu_ms_per_move": d2["redis_cpu_ms_per_move"],
            "cpu_per_move_ratio": round(d2["cpu_ms_per_move"] / d1["cpu_ms_per_move"], 2),
            "saturation_moves_per_s": s2["moves_per_s"],
            "saturation_ratio": round(s2["moves_per_s"] / s1["moves_per_s"], 2),
            "saturation_p99_ms": s2["p99_ms"],
            "saturation_cpu_ms_per_move": s2["cpu_ms_per_move"],
        }
        summary[f"redis_2_{placement}"] = figures
        print(
            f"2 processes through Redis, placement by {placement}: design p99 "
            f"{figures['design_p99_ms']} ms (goal ≤ 35), server CPU per move "
            f"{figures['design_cpu_ms_per_move']} ms, ratio {figures['cpu_per_move_ratio']} "
            f"(goal ≤ 1.2; Redis itself {figures['design_redis_cpu_ms_per_move']} ms per move); "
            f"saturation {figures['saturation_moves_per_s']} moves/s, ratio "
            f"{figures['saturation_ratio']} (goal ≥ 0.6)"
        )
    if len(pairs) > 1:
        ratios = [round(r["cpu_ms_per_move"] / m["cpu_ms_per_move"], 2) for m, r in pairs]
        p99s = [r["p99_ms"] for _, r in pairs]
        summary["pairs"] = [
            {
                "memory_cpu_ms_per_move": m["cpu_ms_per_move"],
                "redis_cpu_ms_per_move": r["cpu_ms_per_move"],
                "cpu_per_move_ratio": ratio,
                "redis_p99_ms": r["p99_ms"],
            }
            for (m, r), ratio in zip(pairs, ratios, strict=True)
        ]
        summary["median_cpu_per_move_ratio"] = statistics.median(ratios)
        summary["median_design_p99_ms"] = statistics.median(p99s)
        print(
            f"{len(pairs)} design-load pairs (memory, then Redis by room), CPU per move ratios "
            f"{', '.join(str(x) for x in ratios)}: median {statistics.median(ratios)} "
            f"(goal ≤ 1.2); p99 through Redis {', '.join(str(x) for x in p99s)} ms: median "
            f"{statistics.median(p99s)} (goal ≤ 35)"
        )
    if args.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
