"""Recorded complete matches, replayed: same seed + same actions = the same states and events.

Each file in golden/ holds (seed, settings, seats, actions) and what the match produced: the
final scores and winner, and SHA-256 digests of every event and of every seat's view (and
the spectator's) after every action: the wire, not the internal state format, which the
determinism test covers. A change of rules or of the use of randomness changes them; then
regenerate with `UPDATE_GOLDEN=1 pytest tests/engine/test_golden_replays.py` and review the
score changes in the diff.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from app.engine import apply, new_table, parse_settings, view

from .driver import Driver, action_from_json

GOLDEN = Path(__file__).parent / "golden"

CASES: dict[str, dict[str, Any]] = {
    "classic_3p_defaults": {"seed": 101, "n": 3, "settings": {"target_score": 100}},
    "classic_5p_house_rules": {
        "seed": 202,
        "n": 5,
        "settings": {
            "target_score": 150,
            "stack_draw2": True,
            "stack_draw4": True,
            "seven_zero": True,
            "jump_in": True,
            "draw": "until_playable",
            "max_draw": 5,
            "custom_wilds": [
                {"effect": "swap_hands", "label": "Swap"},
                {"effect": "next_draws", "n": 3},
            ],
        },
    },
    "all_wild_2p": {"seed": 303, "n": 2, "settings": {"variant": "all_wild", "target_score": 50}},
    "flip_4p_lowest_wins": {
        "seed": 404,
        "n": 4,
        "settings": {
            "variant": "flip",
            "scoring": "lowest_wins",
            "target_score": 100,
            "flip_discard": "top_card",
        },
    },
}


def _dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Apply the recorded actions to a fresh table; what the golden file must say."""
    rng = random.Random(record["seed"])
    state = new_table(record["room"], parse_settings(record["settings"]))
    views, events = hashlib.sha256(), hashlib.sha256()
    ended: dict[str, Any] = {}
    for data in record["actions"]:
        seat, action, now = action_from_json(data)
        state, produced = apply(state, seat, action, rng, now)
        for seat in [None, *range(record["seats"])]:
            views.update(_dump(view(state, seat, now)).encode())
        for e in produced:
            events.update(_dump(e.to_json()).encode())
            if e.kind == "match_ended":
                ended = {"winner": e.public["winner"], "scores": e.public["scores"]}
    return {
        "final_version": state.version,
        "match": ended,
        "views_sha256": views.hexdigest(),
        "events_sha256": events.hexdigest(),
    }


def record_match(name: str) -> dict[str, Any]:
    case = CASES[name]
    d = Driver(case["settings"], case["n"], case["seed"], check=False, record=True)
    for _ in range(20_000):
        if d.matches:
            break
        d.step()
    assert d.matches == 1, f"{name}: no match ended"
    record = {
        "name": name,
        "room": "R",
        "seed": case["seed"],
        "seats": case["n"],
        "settings": case["settings"],
        "actions": d.actions,
    }
    record["expect"] = replay(record)
    return record


def _write(path: Path, record: dict[str, Any]) -> None:
    # one action per line keeps the files diffable and small
    head = {k: v for k, v in record.items() if k != "actions"}
    lines = ",\n".join("  " + _dump(a) for a in record["actions"])
    text = _dump(head)[:-1] + ',"actions":[\n' + lines + "\n]}\n"
    json.loads(text)
    path.write_text(text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_match_replays_exactly(name: str) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        _write(path, record_match(name))
    assert path.exists(), f"{path.name} missing: record it with UPDATE_GOLDEN=1"
    record = json.loads(path.read_text())
    got = replay(record)
    assert got["match"] == record["expect"]["match"], "final scores differ"
    assert got == record["expect"]
    assert got["match"]["winner"] is not None


def test_golden_files_are_complete_matches() -> None:
    for path in sorted(GOLDEN.glob("*.json")):
        record = json.loads(path.read_text())
        kinds = [a["type"] for a in record["actions"]]
        assert kinds[: record["seats"]] == ["Join"] * record["seats"]
        assert "Start" in kinds
        scores = record["expect"]["match"]["scores"]
        assert len(scores) == record["seats"]
