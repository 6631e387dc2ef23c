"""The pure tournament core: seating, formats and standings, as functions of data.

No I/O, no clock, no global randomness: seating takes an injected `random.Random`, and the
standings are a pure function of the table results (docs/tournaments.md).

- A table result ranks the *entrants* seated at a table (bots are filler and take no place)
  by their match: the match winner first, then the better final score (higher under
  `winner_collects`, lower under `lowest_wins`), then more rounds won in the match, then
  the earlier seat. Places are 1..k with no ties; an entrant at a table of k entrants scores
  `k - place` tournament points (the last scores 0), and place 1 is a win.
- A bye (a lone entrant left over when tables of two cannot take everyone) scores the
  points of a win at a table of two (1) but is not a win.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

Format = Literal["elimination", "swiss"]
FORMATS: tuple[str, ...] = ("elimination", "swiss")
BYE_POINTS = 1


@dataclass(frozen=True, slots=True)
class Placing:
    """One entrant's line in a table result."""

    entrant_id: str
    points: int
    place: int


@dataclass(frozen=True, slots=True)
class SeatScore:
    """What the match record says about one entrant's seat (input of `table_result`)."""

    entrant_id: str
    seat: int
    score: int
    rounds_won: int


@dataclass(slots=True)
class TableSpec:
    seats: list[str]  # entrant ids, in seat order
    result: list[Placing] | None = None  # None until the table's match is over
    room: str = ""  # the table's room code, once it is opened


@dataclass(slots=True)
class RoundSpec:
    number: int
    tables: list[TableSpec]
    byes: list[str] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return all(t.result is not None for t in self.tables)


@dataclass(frozen=True, slots=True)
class Standing:
    entrant_id: str
    points: int
    wins: int
    place: int


# --- seating --------------------------------------------------------------------------------


def table_sizes(n: int, table_size: int) -> tuple[list[int], int]:
    """How `n` entrants sit at tables of at most `table_size`: as few tables as possible, sizes
    differing by at most one (largest first), never a table of one. Returns (sizes, byes): one
    entrant sits out (a bye) only when tables of two cannot take an odd count."""
    if table_size < 2:
        raise ValueError("table_size must be at least 2")
    if n < 2:
        return [], n
    count = -(-n // table_size)
    base, extra = divmod(n, count)
    sizes = [base + 1] * extra + [base] * (count - extra)
    if sizes[-1] == 1:  # only with tables of two and an odd count
        return sizes[:-1], 1
    return sizes, 0


def _split(order: Sequence[str], sizes: Sequence[int]) -> list[list[str]]:
    tables, at = [], 0
    for size in sizes:
        tables.append(list(order[at : at + size]))
        at += size
    return tables


def seat_randomly(
    entrants: Sequence[str], table_size: int, rng: random.Random
) -> tuple[list[list[str]], list[str]]:
    """Shuffle (with the injected rng) and split: (tables, byes)."""
    order = list(entrants)
    rng.shuffle(order)
    sizes, byes = table_sizes(len(order), table_size)
    # The bye goes to the last in the shuffled order.
    return _split(order[: len(order) - byes], sizes), order[len(order) - byes :]


# --- table results --------------------------------------------------------------------------


def table_result(
    seats: Sequence[SeatScore], scoring: str, match_winner_seat: int | None
) -> list[Placing]:
    """Rank the entrants of one table by their finished match (see the module docstring)."""
    sign = 1 if scoring == "lowest_wins" else -1

    def key(s: SeatScore) -> tuple[int, int, int, int]:
        return (0 if s.seat == match_winner_seat else 1, sign * s.score, -s.rounds_won, s.seat)

    ranked = sorted(seats, key=key)
    k = len(ranked)
    return [Placing(s.entrant_id, k - i - 1, i + 1) for i, s in enumerate(ranked)]


# --- standings ------------------------------------------------------------------------------


def _totals(
    entrants: Sequence[str], rounds: Iterable[RoundSpec]
) -> tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, tuple[int, int]]]:
    """points, wins, opponents' points (Buchholz), and per entrant the (round, place) of the
    last table it played (place 0 for a bye)."""
    points = dict.fromkeys(entrants, 0)
    wins = dict.fromkeys(entrants, 0)
    last: dict[str, tuple[int, int]] = {}
    met: dict[str, list[str]] = {e: [] for e in entrants}
    for rnd in rounds:
        for bye in rnd.byes:
            if bye in points:
                points[bye] += BYE_POINTS
                last[bye] = (rnd.number, 0)
        for table in rnd.tables:
            if table.result is None:
                continue
            for line in table.result:
                if line.entrant_id not in points:
                    continue
                points[line.entrant_id] += line.points
                wins[line.entrant_id] += line.place == 1
                last[line.entrant_id] = (rnd.number, line.place)
                met[line.entrant_id] += [o for o in table.seats if o != line.entrant_id]
    buchholz = {e: sum(points.get(o, 0) for o in met[e]) for e in entrants}
    return points, wins, buchholz, last


def standings(fmt: str, entrants: Sequence[str], rounds: Sequence[RoundSpec]) -> list[Standing]:
    """Every entrant (in registration order in `entrants`), best first, places 1..n.

    swiss: points, then wins, then opponents' points (the sum of the points of every
    tablemate met), then registration order. elimination: the later the round an entrant
    reached, the better; then its place at that last table (a bye counts as first); then
    points, wins, registration order."""
    points, wins, buchholz, last = _totals(entrants, rounds)
    index = {e: i for i, e in enumerate(entrants)}

    def key(e: str) -> tuple[int, ...]:
        if fmt == "elimination":
            reached, place = last.get(e, (0, 0))
            return (-reached, max(place, 1), -points[e], -wins[e], index[e])
        return (-points[e], -wins[e], -buchholz[e], index[e])

    ordered = sorted(entrants, key=key)
    return [Standing(e, points[e], wins[e], i + 1) for i, e in enumerate(ordered)]


# --- the next round -------------------------------------------------------------------------


def advancing(rnd: RoundSpec, advance: int) -> list[str]:
    """Elimination: who goes on from a finished round, in a stable order (table by table,
    best first, then the byes). From a table of k entrants the top min(advance, k - 1) go on,
    so every table eliminates somebody and the tournament always moves forward."""
    out: list[str] = []
    for table in rnd.tables:
        assert table.result is not None
        keep = min(advance, len(table.result) - 1)
        out += [line.entrant_id for line in sorted(table.result, key=lambda p: p.place)[:keep]]
    return out + list(rnd.byes)


def meetings(rounds: Iterable[RoundSpec]) -> dict[frozenset[str], int]:
    met: dict[frozenset[str], int] = {}
    for rnd in rounds:
        for table in rnd.tables:
            for a, b in combinations(table.seats, 2):
                pair = frozenset((a, b))
                met[pair] = met.get(pair, 0) + 1
    return met


def _repeats(table: Sequence[str], met: Mapping[frozenset[str], int]) -> int:
    return sum(met.get(frozenset((a, b)), 0) for a, b in combinations(table, 2))


def swiss_seating(
    order: Sequence[str],
    table_size: int,
    met: Mapping[frozenset[str], int],
    had_bye: Iterable[str] = (),
) -> tuple[list[list[str]], list[str]]:
    """Seat entrants given best first (`order`, by standings) so that similar scores meet:
    each table takes the best entrant left, then fills up with the next ones who met its
    members least often; then swaps between tables remove repeats where that is possible.
    The bye (odd count at tables of two) goes to the lowest-ranked entrant without one."""
    remaining = list(order)
    sizes, byes = table_sizes(len(remaining), table_size)
    bye: list[str] = []
    if byes:
        had = set(had_bye)
        pick = next((e for e in reversed(remaining) if e not in had), remaining[-1])
        remaining.remove(pick)
        bye = [pick]
    tables: list[list[str]] = []
    for size in sizes:
        table = [remaining.pop(0)]
        while len(table) < size:
            best = min(
                range(len(remaining)),
                key=lambda i: (sum(met.get(frozenset((remaining[i], m)), 0) for m in table), i),
            )
            table.append(remaining.pop(best))
        tables.append(table)
    _swap_away_repeats(tables, met)
    return tables, bye


def _swap_away_repeats(tables: list[list[str]], met: Mapping[frozenset[str], int]) -> None:
    """Local search: swap two entrants of different tables while it lowers the repeats (the
    nearest tables first, so that scores stay close). Deterministic."""
    for _ in range(100):
        improved = False
        for i, table in enumerate(tables):
            if not _repeats(table, met):
                continue
            for j in sorted(range(len(tables)), key=lambda j: (abs(j - i), j)):
                if j == i:
                    continue
                before = _repeats(tables[i], met) + _repeats(tables[j], met)
                for a in range(len(tables[i])):
                    for b in range(len(tables[j])):
                        x, y = tables[i][a], tables[j][b]
                        tables[i][a], tables[j][b] = y, x
                        if _repeats(tables[i], met) + _repeats(tables[j], met) < before:
                            improved = True
                            break
                        tables[i][a], tables[j][b] = x, y
                    if improved:
                        break
                if improved:
                    break
            if improved:
                break
        if not improved:
            return


def next_round(
    fmt: str,
    entrants: Sequence[str],
    rounds: Sequence[RoundSpec],
    *,
    table_size: int,
    advance: int,
    swiss_rounds: int,
    rng: random.Random,
) -> RoundSpec | None:
    """The next round to play, or None when the tournament is over. Round 1 seats everyone
    at random (with `rng`); later rounds follow the format."""
    number = len(rounds) + 1
    if not rounds:
        tables, byes = seat_randomly(entrants, table_size, rng)
        return RoundSpec(number, [TableSpec(t) for t in tables], byes)
    last = rounds[-1]
    if not last.finished:
        raise ValueError("the last round is not finished")
    if fmt == "elimination":
        if len(last.tables) <= 1 and not last.byes:
            return None  # one table's match decided the winner
        going = advancing(last, advance)
        if len(going) < 2:
            return None
        tables, byes = seat_randomly(going, table_size, rng)
        return RoundSpec(number, [TableSpec(t) for t in tables], byes)
    if len(rounds) >= swiss_rounds:
        return None
    order = [s.entrant_id for s in standings("swiss", entrants, rounds)]
    had_bye = {e for r in rounds for e in r.byes}
    tables, byes = swiss_seating(order, table_size, meetings(rounds), had_bye)
    return RoundSpec(number, [TableSpec(t) for t in tables], byes)


def winner(fmt: str, entrants: Sequence[str], rounds: Sequence[RoundSpec]) -> str | None:
    """The winner of a finished tournament: the final table's first (elimination), the top
    of the standings (swiss)."""
    if not rounds or not rounds[-1].finished:
        return None
    if fmt == "elimination":
        last = rounds[-1]
        if len(last.tables) == 1 and last.tables[0].result:
            return next(p.entrant_id for p in last.tables[0].result if p.place == 1)
        if not last.tables and len(last.byes) == 1:
            return last.byes[0]
    table = standings(fmt, entrants, rounds)
    return table[0].entrant_id if table else None
