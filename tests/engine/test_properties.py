"""Invariants under random legal play (hypothesis), and a bulk run of 10,000 rounds.

Every step is checked by tests/engine/driver.py: card conservation, unique ids in each own
hand, one seat in turn with a legal move, versions +1 per event, no card of another hand in
any seat's view or redacted event (except `round_ended` and the challenger's
`challenge_resolved`), match scores = sum of round points, and the match-end rule 16.
"""

from __future__ import annotations

import random
import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import Join, Play, Start, apply, legal_actions, new_table, parse_settings

from .driver import BOOLS, EFFECTS, EFFECTS_WITH_N, Driver, random_settings
from .helpers import T0


@st.composite
def custom_wilds(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for effect in draw(st.lists(st.sampled_from(EFFECTS), max_size=3)):
        entry: dict[str, Any] = {"effect": effect}
        if effect in EFFECTS_WITH_N:
            entry["n"] = draw(st.integers(1, 10))
        out.append(entry)
    return out


@st.composite
def table_settings(draw: st.DrawFn, variant: str) -> dict[str, Any]:
    s: dict[str, Any] = {"variant": variant}
    for key in BOOLS:
        s[key] = draw(st.booleans())
    s["draw"] = draw(st.sampled_from(["one", "until_playable"]))
    s["max_draw"] = draw(st.sampled_from([0, 1, 2, 10, 50]))
    s["first_card"] = draw(
        st.sampled_from(["official", "redraw_until_number", "apply_actions_reshuffle_wilds"])
    )
    s["scoring"] = draw(st.sampled_from(["winner_collects", "lowest_wins", "none"]))
    s["target_score"] = draw(st.sampled_from([50, 100, 500]))
    s["uno_penalty"] = draw(st.integers(0, 10))
    s["false_catch_penalty"] = draw(st.integers(0, 3))
    s["turn_seconds"] = draw(st.sampled_from([0, 5, 30]))
    s["challenge_seconds"] = draw(st.sampled_from([3, 10]))
    s["uno_window_ms"] = draw(st.sampled_from([500, 3000]))
    s["afk_timeouts"] = draw(st.integers(1, 3))
    s["next_round_seconds"] = draw(st.sampled_from([0, 5]))
    s["flip_discard"] = draw(st.sampled_from(["whole_pile", "top_card"]))
    if variant == "classic":
        s["deck"] = draw(st.sampled_from(["gdj85", "original"]))
        if s["deck"] == "gdj85":
            s["custom_wilds"] = draw(custom_wilds())
    return s


def _run(partial: dict[str, Any], n: int, seed: int, steps: int) -> Driver:
    d = Driver(partial, n, seed, check=True)
    for _ in range(steps):
        d.step()
    return d


@settings(max_examples=12)
@given(partial=table_settings("classic"), n=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_classic_random_play_keeps_invariants(partial: dict[str, Any], n: int, seed: int) -> None:
    _run(partial, n, seed, 150)


@settings(max_examples=8)
@given(partial=table_settings("all_wild"), n=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_all_wild_random_play_keeps_invariants(partial: dict[str, Any], n: int, seed: int) -> None:
    _run(partial, n, seed, 150)


@settings(max_examples=10)
@given(partial=table_settings("flip"), n=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_flip_random_play_keeps_invariants(partial: dict[str, Any], n: int, seed: int) -> None:
    _run(partial, n, seed, 150)


def test_whole_rounds_and_matches_keep_invariants() -> None:
    """Seeded tables played through several rounds, so that matches end and restart."""
    rounds = matches = 0
    for seed in range(6):
        r = random.Random(seed)
        partial = random_settings(r, ("classic", "all_wild", "flip")[seed % 3])
        partial["target_score"] = 50
        d = Driver(partial, 2 + seed % 4, seed)
        d.play_rounds(3)
        rounds += d.rounds
        matches += d.matches
    assert rounds >= 18
    assert matches >= 1


def test_each_event_snapshot_is_the_table_right_after_it() -> None:
    """trace=True: `event.after` holds the changes of that event, not of the next one.

    A card_drawn snapshot has exactly `count` more cards in the drawer's hand than the one
    before it; a card_played snapshot one fewer in the player's hand, with that card on top.
    """
    for seed in range(12):
        r = random.Random(seed)
        d = Driver(random_settings(r), r.randint(2, 6), seed, check_snapshots=True)
        for _ in range(150):
            d.step()


# --- bulk -------------------------------------------------------------------------------------

BULK_ROUNDS = 10_000
BULK_CPU_SECONDS = 60.0


ROUND_ACTION_CAP = 2000


def bulk_rounds(total: int, seed: int) -> tuple[int, int, int]:
    """Play `total` rounds of random legal play (2-10 seats, every variant, random rules).

    Lean on purpose: no tracing and no views; the seat in turn is read from `state.turn`,
    the one field of State the contract names (it is the view's `state.turn`). Random play
    does not try to win: with ten seats and card-pumping Customizables a round can go on for
    thousands of moves, so a table is dropped after ROUND_ACTION_CAP moves without a round
    ending (its unfinished round does not count). Returns (rounds, actions, dropped tables).
    """
    r = random.Random(seed)
    rounds = applied = dropped = 0
    while rounds < total:
        partial = random_settings(r)
        n = r.randint(2, 10)
        state = new_table("B", parse_settings(partial))
        for i in range(n):
            state, _ = apply(state, None, Join(f"P{i}", f"p{i}"), r, T0)
        state, _ = apply(state, 0, Start(), r, T0)
        table_rounds = since = 0
        while table_rounds < 10 and rounds < total:
            if since > ROUND_ACTION_CAP:
                dropped += 1
                break
            if state.status != "playing":
                host = state.host
                assert host is not None
                state, _ = apply(state, host, Start(), r, T0)
                continue
            seat = state.turn
            actions = legal_actions(state, seat)
            assert actions, "the seat in turn has a legal action"
            plays = [a for a in actions if isinstance(a, Play)]
            action = r.choice(plays if plays and r.random() < 0.85 else actions)
            state, events = apply(state, seat, action, r, T0)
            applied += 1
            since += 1
            for e in events:
                if e.kind == "round_ended":
                    rounds += 1
                    table_rounds += 1
                    since = 0
    return rounds, applied, dropped


def test_bulk_ten_thousand_random_rounds_in_under_a_minute() -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    rounds, applied, dropped = bulk_rounds(BULK_ROUNDS, seed=2026)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"bulk: {rounds} rounds, {applied} actions, {dropped} endless tables dropped, "
        f"{wall:.1f} s wall, {cpu:.1f} s CPU"
    )
    assert rounds >= BULK_ROUNDS
    assert dropped < BULK_ROUNDS // 100
    # CPU time: the machine is shared with other test runs, whose load is not ours to measure
    assert cpu < BULK_CPU_SECONDS, f"{rounds} rounds took {cpu:.1f} s of CPU"
