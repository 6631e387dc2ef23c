"""Engine throughput against RLCard's UNO, with the same random-legal-move loop.

A "decision" is one `legal_actions` call plus one `apply` (RLCard: one `get_legal_actions`
plus one `step`). Both run full rounds with 4 seats from the deal to an empty hand; our side
uses the classic defaults and `trace=False`, as the server's hot path would without tracing.

    .venv/bin/python bench/engine.py [--rounds 400] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine import Join, Start, apply, legal_actions, new_table, parse_settings

SEATS = 4


def engine_rounds(rounds: int, seed: int) -> tuple[int, float]:
    """(decisions, seconds) for `rounds` full rounds of random legal play."""
    rng = random.Random(seed)
    settings = parse_settings({})
    decisions = 0
    started = time.perf_counter()
    for _ in range(rounds):
        st = new_table("BENCH", settings)
        for i in range(SEATS):
            st, _ = apply(st, None, Join(f"P{i}", f"p{i}"), rng, 0)
        st, _ = apply(st, 0, Start(), rng, 0)
        while st.status == "playing":
            seat = st.turn
            action = rng.choice(legal_actions(st, seat))
            st, _ = apply(st, seat, action, rng, 0)
            decisions += 1
    return decisions, time.perf_counter() - started


def rlcard_rounds(rounds: int, seed: int) -> tuple[int, float]:
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    rng = random.Random(seed)
    game = UnoGame(num_players=SEATS)
    game.np_random = np.random.RandomState(seed)
    decisions = 0
    started = time.perf_counter()
    for _ in range(rounds):
        game.init_game()
        while not game.is_over():
            action = rng.choice(game.get_legal_actions())
            game.step(action)
            decisions += 1
    return decisions, time.perf_counter() - started


def measure(rounds: int, seed: int) -> dict[str, Any]:
    ours, ours_s = engine_rounds(rounds, seed)
    theirs, theirs_s = rlcard_rounds(rounds, seed)
    dps = ours / ours_s
    rl_dps = theirs / theirs_s
    return {
        "rounds": rounds,
        "seats": SEATS,
        "decisions": ours,
        "decisions_per_s": round(dps, 1),
        "rounds_per_s": round(rounds / ours_s, 2),
        "rlcard_decisions": theirs,
        "rlcard_decisions_per_s": round(rl_dps, 1),
        "rlcard_rounds_per_s": round(rounds / theirs_s, 2),
        "ratio": round(dps / rl_dps, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = measure(args.rounds, args.seed)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.rounds} random rounds, {SEATS} seats, classic defaults")
    print(
        f"engine : {result['decisions_per_s']:>10.0f} decisions/s "
        f"{result['rounds_per_s']:>8.1f} rounds/s ({result['decisions']} decisions)"
    )
    print(
        f"rlcard : {result['rlcard_decisions_per_s']:>10.0f} decisions/s "
        f"{result['rlcard_rounds_per_s']:>8.1f} rounds/s ({result['rlcard_decisions']} decisions)"
    )
    print(f"ratio  : {result['ratio']:.2f}x (engine decisions/s over rlcard decisions/s)")


if __name__ == "__main__":
    main()
