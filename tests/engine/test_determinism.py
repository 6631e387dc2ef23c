"""Same seed + same actions = same states, byte for byte; state_to_json/from_json round-trips."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from app.engine import apply, new_table, parse_settings, state_from_json, state_to_json, view

from .driver import Driver, action_from_json, random_settings


def _dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize("variant", ["classic", "all_wild", "flip"])
def test_same_seed_same_states_after_every_step(variant: str) -> None:
    partial = random_settings(random.Random(5), variant)
    runs = []
    for _ in range(2):
        trail: list[str] = []

        def keep(d: Driver, events: list[Any], trail: list[str] = trail) -> None:
            trail.append(_dump(state_to_json(d.state)))
            trail.append(_dump([e.to_json() for e in events]))

        d = Driver(partial, 4, seed=99, check=False, on_step=keep)
        d.play_rounds(2)
        runs.append(trail)
    assert len(runs[0]) == len(runs[1])
    for i, (a, b) in enumerate(zip(*runs, strict=True)):
        assert a == b, f"step {i // 2} differs"


@pytest.mark.parametrize("variant", ["classic", "all_wild", "flip"])
def test_state_json_round_trips_at_every_step(variant: str) -> None:
    partial = random_settings(random.Random(6), variant)
    checked = 0

    def round_trip(d: Driver, events: list[Any]) -> None:
        nonlocal checked
        data = state_to_json(d.state)
        text = _dump(data)
        restored = state_from_json(json.loads(text))
        assert _dump(state_to_json(restored)) == text
        for seat in (None, 0, 1):
            assert _dump(view(restored, seat, d.now)) == _dump(view(d.state, seat, d.now))
        checked += 1

    d = Driver(partial, 3, seed=42, check=False, on_step=round_trip, record=True)
    d.play_rounds(2)
    assert checked == len(d.actions)


def test_play_continues_identically_from_a_restored_state() -> None:
    """A snapshot taken mid-round (through JSON text) continues exactly like the original."""
    partial = random_settings(random.Random(8), "classic")
    d = Driver(partial, 3, seed=8, check=False, record=True)
    d.play_rounds(1)
    cut = len(d.actions) // 2
    rng = random.Random(8)
    state = new_table("R", parse_settings(partial))
    for data in d.actions[:cut]:
        seat, action, now = action_from_json(data)
        state, _ = apply(state, seat, action, rng, now)
    restored = state_from_json(json.loads(_dump(state_to_json(state))))
    rng_b = random.Random()
    rng_b.setstate(rng.getstate())
    a, b = state, restored
    for data in d.actions[cut:]:
        seat, action, now = action_from_json(data)
        a, ev_a = apply(a, seat, action, rng, now)
        b, ev_b = apply(b, seat, action, rng_b, now)
        assert _dump([e.to_json() for e in ev_a]) == _dump([e.to_json() for e in ev_b])
    assert _dump(state_to_json(a)) == _dump(state_to_json(b))
    assert _dump(state_to_json(a)) == _dump(state_to_json(d.state))
