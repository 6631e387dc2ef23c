"""Engine throughput against RLCard's UNO, with the same random-legal-move loop.

A "decision" is one `legal_actions` call plus one `apply` (RLCard: one `get_legal_actions`
plus one `step`). Both run full rounds with 4 seats from the deal to an empty hand; our side
uses the classic defaults and `trace=False`, as the server's hot path would without tracing.

    .venv/bin/python bench/engine.py [--rounds 300] [--seed 1] [--json] [--pure]

The engine runs compiled when `make native` built it (`--pure` forces the .py sources).
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """`--pure`: import the engine from its .py sources even when mypyc modules are built."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not name.startswith("app.engine."):
            return None
        source = ROOT.joinpath(*name.split(".")).with_suffix(".py")
        return importlib.util.spec_from_file_location(name, source) if source.exists() else None


if "--pure" in sys.argv:
    sys.meta_path.insert(0, _SourcesFirst())

from app.engine import Join, Start, apply, legal_actions, new_table, parse_settings  # noqa: E402
from app.engine import rules as _rules  # noqa: E402

BUILD = "mypyc" if not _rules.__file__ or not _rules.__file__.endswith(".py") else "python"

SEATS = 4


class EngineLoop:
    """Full rounds of random legal play on the engine, `rounds` at a time."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.settings = parse_settings({})

    def run(self, rounds: int) -> int:
        rng = self.rng
        decisions = 0
        for _ in range(rounds):
            st = new_table("BENCH", self.settings)
            for i in range(SEATS):
                st, _ = apply(st, None, Join(f"P{i}", f"p{i}"), rng, 0)
            st, _ = apply(st, 0, Start(), rng, 0)
            while st.status == "playing":
                seat = st.turn
                action = rng.choice(legal_actions(st, seat))
                st, _ = apply(st, seat, action, rng, 0)
                decisions += 1
        return decisions


class RLCardLoop:
    """The same loop on `rlcard.games.uno.game.UnoGame`."""

    def __init__(self, seed: int) -> None:
        import numpy as np
        from rlcard.games.uno.game import UnoGame

        self.rng = random.Random(seed)
        self.game = UnoGame(num_players=SEATS)
        self.game.np_random = np.random.RandomState(seed)

    def run(self, rounds: int) -> int:
        rng = self.rng
        game = self.game
        decisions = 0
        for _ in range(rounds):
            game.init_game()
            while not game.is_over():
                game.step(rng.choice(game.get_legal_actions()))
                decisions += 1
        return decisions


def measure(rounds: int, seed: int, chunks: int = 5) -> dict[str, Any]:
    """Alternate the two loops in chunks so that machine noise hits both alike.

    Times are CPU seconds of this process (`time.process_time`): on a shared machine the
    wall clock mostly measures the other processes.

    RLCard's rounds are much shorter (its draw is automatic and only legal without a
    playable card), so each of its chunks runs as many rounds as it takes to spend about
    the time our chunk took; decisions per second is the comparable figure.
    """
    ours, theirs = EngineLoop(seed), RLCardLoop(seed)
    totals = {"ours": [0, 0, 0.0], "theirs": [0, 0, 0.0]}  # rounds, decisions, seconds
    per_chunk = max(1, rounds // chunks)
    for _ in range(chunks):
        t0 = time.process_time()
        d = ours.run(per_chunk)
        spent = time.process_time() - t0
        totals["ours"][0] += per_chunk
        totals["ours"][1] += d
        totals["ours"][2] += spent
        t0 = time.process_time()
        while time.process_time() - t0 < spent:
            totals["theirs"][1] += theirs.run(20)
            totals["theirs"][0] += 20
        totals["theirs"][2] += time.process_time() - t0
    o_rounds, o_dec, o_s = totals["ours"]
    r_rounds, r_dec, r_s = totals["theirs"]
    dps = o_dec / o_s
    rl_dps = r_dec / r_s
    return {
        "engine_build": BUILD,
        "rounds": int(o_rounds),
        "seats": SEATS,
        "decisions": int(o_dec),
        "decisions_per_s": round(dps, 1),
        "rounds_per_s": round(o_rounds / o_s, 2),
        "rlcard_rounds": int(r_rounds),
        "rlcard_decisions": int(r_dec),
        "rlcard_decisions_per_s": round(rl_dps, 1),
        "rlcard_rounds_per_s": round(r_rounds / r_s, 2),
        "ratio": round(dps / rl_dps, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300, help="engine rounds (in 5 chunks)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--pure", action="store_true", help="the engine's .py sources only")
    args = parser.parse_args()
    result = measure(args.rounds, args.seed)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.rounds} random rounds, {SEATS} seats, classic defaults, engine: {BUILD}")
    print(
        f"engine : {result['decisions_per_s']:>10.0f} decisions/s "
        f"{result['rounds_per_s']:>8.1f} rounds/s ({result['decisions']} decisions)"
    )
    print(
        f"rlcard : {result['rlcard_decisions_per_s']:>10.0f} decisions/s "
        f"{result['rlcard_rounds_per_s']:>8.1f} rounds/s ({result['rlcard_decisions']} decisions, "
        f"{result['rlcard_rounds']} rounds)"
    )
    print(f"ratio  : {result['ratio']:.2f}x (engine decisions/s over rlcard decisions/s)")


if __name__ == "__main__":
    main()
