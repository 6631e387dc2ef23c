"""The pure tournament core: seating sizes, elimination to one winner, swiss pairing,
table results and standings (docs/tournaments.md)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from app.tournaments import core
from app.tournaments.core import Placing, RoundSpec, SeatScore, TableSpec


@pytest.mark.parametrize("table_size", range(2, 11))
def test_table_sizes_for_2_to_40_entrants(table_size: int) -> None:
    for n in range(2, 41):
        sizes, byes = core.table_sizes(n, table_size)
        assert sum(sizes) + byes == n
        assert all(2 <= s <= table_size for s in sizes), (n, sizes)
        assert max(sizes) - min(sizes) <= 1
        assert len(sizes) == -(-(n - byes) // table_size)  # as few tables as possible
        assert sizes == sorted(sizes, reverse=True)
        # a bye only when tables of two cannot take an odd count
        assert byes == (1 if table_size == 2 and n % 2 else 0)


def test_table_sizes_examples() -> None:
    assert core.table_sizes(11, 4) == ([4, 4, 3], 0)
    assert core.table_sizes(5, 4) == ([3, 2], 0)
    assert core.table_sizes(7, 2) == ([2, 2, 2], 1)
    assert core.table_sizes(1, 4) == ([], 1)


def test_seating_is_deterministic_given_the_rng() -> None:
    ids = [f"e{i}" for i in range(13)]
    a = core.seat_randomly(ids, 4, random.Random(7))
    b = core.seat_randomly(ids, 4, random.Random(7))
    c = core.seat_randomly(ids, 4, random.Random(8))
    assert a == b and a != c
    tables, byes = a
    assert sorted(e for t in tables for e in t) + byes == sorted(ids) or not byes
    assert [len(t) for t in tables] == [4, 3, 3, 3]


def _play(rnd: RoundSpec, rng: random.Random) -> None:
    """Give every table of a round a random result (places 1..k)."""
    for table in rnd.tables:
        order = list(table.seats)
        rng.shuffle(order)
        k = len(order)
        table.result = [Placing(e, k - i - 1, i + 1) for i, e in enumerate(order)]


@pytest.mark.parametrize(
    ("table_size", "advance"),
    [(2, 1), (3, 1), (3, 2), (4, 1), (4, 2), (4, 3), (6, 2), (10, 1), (10, 3), (10, 9)],
)
def test_elimination_reaches_a_single_winner(table_size: int, advance: int) -> None:
    for n in (2, 3, 5, 9, 17, 40):
        rng = random.Random(n * 100 + table_size)
        ids = [f"e{i}" for i in range(n)]
        rounds: list[RoundSpec] = []
        for _ in range(60):
            rnd = core.next_round(
                "elimination", ids, rounds, table_size=table_size, advance=advance,
                swiss_rounds=0, rng=rng,
            )  # fmt: skip
            if rnd is None:
                break
            if rounds:  # only the previous round's survivors are seated again
                going = set(core.advancing(rounds[-1], advance))
                assert {e for t in rnd.tables for e in t.seats} | set(rnd.byes) == going
            _play(rnd, rng)
            rounds.append(rnd)
        else:
            raise AssertionError("elimination never ended")
        last = rounds[-1]
        assert len(last.tables) == 1 and not last.byes  # one table's match decides
        champion = core.winner("elimination", ids, rounds)
        assert last.tables[0].result is not None
        assert champion == next(p.entrant_id for p in last.tables[0].result if p.place == 1)
        table = core.standings("elimination", ids, rounds)
        assert table[0].entrant_id == champion
        assert [s.place for s in table] == list(range(1, n + 1))


def test_elimination_advance_keeps_the_top_of_each_table() -> None:
    rnd = RoundSpec(
        1,
        [
            TableSpec(
                ["a", "b", "c"], [Placing("c", 2, 1), Placing("a", 1, 2), Placing("b", 0, 3)]
            ),
            TableSpec(["d", "e"], [Placing("e", 1, 1), Placing("d", 0, 2)]),
        ],
        ["f"],
    )
    # advance 2: the top two of the table of three, only the winner of the table of two
    # (every table must eliminate someone), then the bye.
    assert core.advancing(rnd, 2) == ["c", "a", "e", "f"]
    assert core.advancing(rnd, 1) == ["c", "e", "f"]


def test_swiss_pairing_avoids_repeat_tablemates() -> None:
    # (n, table size, rounds, the fewest repeated pairs possible)
    cases = ((8, 2, 5, 0), (12, 3, 4, 0), (16, 4, 4, 0), (9, 2, 4, 0), (9, 3, 3, 0), (10, 5, 2, 8))
    for n, size, rounds_n, least in cases:
        rng = random.Random(n)
        ids = [f"e{i}" for i in range(n)]
        rounds: list[RoundSpec] = []
        while True:
            rnd = core.next_round(
                "swiss", ids, rounds, table_size=size, advance=1, swiss_rounds=rounds_n, rng=rng
            )
            if rnd is None:
                break
            _play(rnd, rng)
            rounds.append(rnd)
        assert len(rounds) == rounds_n
        pairs = [frozenset(p) for r in rounds for t in r.tables for p in combinations(t.seats, 2)]
        # 10 at two tables of 5, twice: any new table holds 3 of one old table and 2 of the
        # other (3 + 1 repeated pairs), so 8 repeats are forced; the others need none.
        assert len(pairs) - len(set(pairs)) == least, (n, size, "repeated pairs")
        byes = [e for r in rounds for e in r.byes]
        assert len(byes) == len(set(byes))  # nobody gets two byes
        for r in rounds:
            seated = [e for t in r.tables for e in t.seats] + r.byes
            assert sorted(seated) == sorted(ids)


def test_swiss_seats_similar_scores_together() -> None:
    ids = [f"e{i}" for i in range(8)]
    # After round 1 the four winners lead; round 2 puts winners with winners.
    first = RoundSpec(1, [TableSpec([ids[i], ids[i + 1]]) for i in range(0, 8, 2)])
    for t in first.tables:
        t.result = [Placing(t.seats[0], 1, 1), Placing(t.seats[1], 0, 2)]
    second = core.next_round(
        "swiss", ids, [first], table_size=2, advance=1, swiss_rounds=3, rng=random.Random(1)
    )
    assert second is not None
    winners = {"e0", "e2", "e4", "e6"}
    for table in second.tables:
        assert set(table.seats) <= winners or not set(table.seats) & winners
    assert core.meetings([first, second]) == {
        frozenset(p): 1 for r in (first, second) for t in r.tables for p in [t.seats]
    }


def test_table_result_orders_by_match_winner_score_rounds_then_seat() -> None:
    seats = [SeatScore("a", 0, 120, 1), SeatScore("b", 1, 300, 2), SeatScore("c", 2, 120, 2)]
    # winner_collects: the match winner first, then higher scores, then more rounds won.
    result = core.table_result(seats, "winner_collects", 1)
    assert result == [Placing("b", 2, 1), Placing("c", 1, 2), Placing("a", 0, 3)]
    # lowest_wins: lower is better after the match winner.
    low = [SeatScore("a", 0, 40, 0), SeatScore("b", 1, 90, 0), SeatScore("c", 2, 10, 1)]
    assert [p.entrant_id for p in core.table_result(low, "lowest_wins", 2)] == ["c", "a", "b"]
    # a full tie: the earlier seat
    tie = [SeatScore("x", 3, 0, 0), SeatScore("y", 1, 0, 0)]
    assert [p.entrant_id for p in core.table_result(tie, "none", None)] == ["y", "x"]


def test_standings_points_wins_and_tie_breaks() -> None:
    ids = ["a", "b", "c", "d"]
    r1 = RoundSpec(
        1,
        [
            TableSpec(["a", "b"], [Placing("a", 1, 1), Placing("b", 0, 2)]),
            TableSpec(["c", "d"], [Placing("c", 1, 1), Placing("d", 0, 2)]),
        ],
    )
    r2 = RoundSpec(
        2,
        [
            TableSpec(["a", "c"], [Placing("c", 1, 1), Placing("a", 0, 2)]),
            TableSpec(["b", "d"], [Placing("b", 1, 1), Placing("d", 0, 2)]),
        ],
    )
    table = core.standings("swiss", ids, [r1, r2])
    assert [(s.entrant_id, s.points, s.wins, s.place) for s in table] == [
        ("c", 2, 2, 1),
        # a and b: 1 point, 1 win each; a met c (2) and b (1) = 3, b met a (1) and d (0) = 1
        ("a", 1, 1, 2),
        ("b", 1, 1, 3),
        ("d", 0, 0, 4),
    ]
    assert core.winner("swiss", ids, [r1, r2]) == "c"
    # A bye scores a table-of-two win's points but is no win.
    bye = RoundSpec(3, [TableSpec(["a", "b", "c"], None)], ["d"])
    assert core.standings("swiss", ids, [r1, r2, bye])[-1] == core.Standing("d", 1, 0, 4)
    # An unfinished round counts nothing yet and has no winner.
    assert core.winner("swiss", ids, [r1, r2, bye]) is None
    # Registration order breaks a full tie.
    assert [s.entrant_id for s in core.standings("swiss", ["d", "a"], [])] == ["d", "a"]
