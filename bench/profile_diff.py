"""Compare two `bench/load.py --cprofile-window` runs function by function, per move.

    .venv/bin/python bench/profile_diff.py /tmp/mem /tmp/redis [--top 40] [--by module]

Each argument is a --cprofile-window PREFIX: its profiles (PREFIX.<pid>.prof, one per server
process, added together) and PREFIX.json (the moves of the window). Prints each function's
own CPU time per move (cProfile's tottime, in µs of process CPU time) and its calls per move
in both runs, sorted by the difference: what the second run adds. `--by module` sums by
source file instead. The profiler's own cost is in every figure (each call costs it about the
same), so compare the two runs with each other, not with the bench's unprofiled figures: a
function that costs the same per call in both runs is work the second run does not add.
"""

from __future__ import annotations

import argparse
import glob
import json
import pstats
from collections import defaultdict
from pathlib import Path

Key = tuple[str, int, str]


def load(prefix: str) -> tuple[dict[Key, tuple[int, int, float, float, object]], int]:
    files = sorted(glob.glob(f"{prefix}.*.prof"))
    if not files:
        raise SystemExit(f"no profiles {prefix}.*.prof")
    stats = pstats.Stats(files[0])
    for extra in files[1:]:
        stats.add(extra)
    moves = int(json.loads(Path(f"{prefix}.json").read_text())["moves"])
    return stats.stats, max(1, moves)  # type: ignore[attr-defined]


def name(key: Key, by: str) -> str:
    path, line, func = key
    if path == "~":
        return func
    short = "/".join(Path(path).parts[-2:])
    return short if by == "module" else f"{short}:{line}({func})"


def per_move(
    stats: dict[Key, tuple[int, int, float, float, object]], moves: int, by: str
) -> tuple[defaultdict[str, float], defaultdict[str, float]]:
    own: defaultdict[str, float] = defaultdict(float)
    calls: defaultdict[str, float] = defaultdict(float)
    for key, (_, ncalls, tottime, _, _) in stats.items():
        label = name(key, by)
        own[label] += tottime * 1e6 / moves
        calls[label] += ncalls / moves
    return own, calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--by", choices=("function", "module"), default="function")
    args = parser.parse_args()
    (a, a_moves), (b, b_moves) = load(args.first), load(args.second)
    a_own, a_calls = per_move(a, a_moves, args.by)
    b_own, b_calls = per_move(b, b_moves, args.by)
    print(
        f"{args.first}: {sum(a_own.values()):.0f} µs/move profiled, "
        f"{sum(a_calls.values()):.0f} calls/move ({a_moves} moves); "
        f"{args.second}: {sum(b_own.values()):.0f} µs/move, "
        f"{sum(b_calls.values()):.0f} calls/move ({b_moves} moves)"
    )
    rows = sorted(((b_own[k] - a_own[k], k) for k in set(a_own) | set(b_own)), reverse=True)
    print(f"{'added':>8} {'first':>8} {'second':>8} {'calls 1':>8} {'calls 2':>8}  where")
    for diff, label in rows[: args.top]:
        print(
            f"{diff:8.1f} {a_own[label]:8.1f} {b_own[label]:8.1f} "
            f"{a_calls[label]:8.2f} {b_calls[label]:8.2f}  {label}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
