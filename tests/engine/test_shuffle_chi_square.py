"""The engine's shuffle (app/engine/table.py: Fisher-Yates rebuilt on getrandbits, compiled)
puts every card in every position equally often: a chi-square test over 100,000 shuffles.

The generator is seeded, so the statistic is the same on every run (no flaky failures); the
bound is the 1-in-10,000 quantile, and a classic off-by-one shuffle (Sattolo's, which never
leaves a card in place) is shown to fail it, so the test has the power to catch one."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from app.engine.table import shuffle

CARDS = 10
SHUFFLES = 100_000
Z_1E4 = 3.719  # the standard normal's 1 - 1e-4 quantile


def _chi_square_bound(df: int, z: float = Z_1E4) -> float:
    """The chi-square quantile (Wilson-Hilferty approximation, good to < 1 % at these df)."""
    a = 2 / (9 * df)
    return float(df * (1 - a + z * math.sqrt(a)) ** 3)


def _statistic(shuffler: Callable[[random.Random, list[int]], None], seed: int) -> float:
    rng = random.Random(seed)
    counts = [[0] * CARDS for _ in range(CARDS)]  # card → position → times
    for _ in range(SHUFFLES):
        cards = list(range(CARDS))
        shuffler(rng, cards)
        for position, card in enumerate(cards):
            counts[card][position] += 1
    expected = SHUFFLES / CARDS
    return sum((n - expected) ** 2 / expected for row in counts for n in row)


def _sattolo(rng: random.Random, x: list[int]) -> None:
    for i in range(len(x) - 1, 0, -1):
        j = rng.randrange(i)  # the off-by-one: never j == i
        x[i], x[j] = x[j], x[i]


def test_every_card_lands_in_every_position_equally_often() -> None:
    bound = _chi_square_bound((CARDS - 1) ** 2)
    assert _statistic(shuffle, seed=20261201) < bound


def test_the_test_catches_an_off_by_one_shuffle() -> None:
    bound = _chi_square_bound((CARDS - 1) ** 2)
    assert _statistic(_sattolo, seed=20261201) > 100 * bound
