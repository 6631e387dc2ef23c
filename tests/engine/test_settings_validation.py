"""Settings validation (RULES settings table, PROTOCOL section 4): anything else is bad_settings."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import parse_settings, settings_to_json
from app.engine.actions import ChangeSettings, Start
from app.engine.errors import EngineError

from .helpers import Table

DEFAULTS = {
    "variant": "classic",
    "deck": "gdj85",
    "custom_wilds": [],
    "first_card": "official",
    "draw": "one",
    "max_draw": 10,
    "forced_play": False,
    "no_voluntary_draw": False,
    "stack_draw2": False,
    "stack_draw4": False,
    "stack_draw4_on_draw2": False,
    "seven_zero": False,
    "jump_in": False,
    "bluffing": True,
    "uno_penalty": 2,
    "false_catch_penalty": 0,
    "scoring": "winner_collects",
    "target_score": 500,
    "turn_seconds": 30,
    "uno_window_ms": 3000,
    "challenge_seconds": 10,
    "afk_timeouts": 2,
    "next_round_seconds": 10,
    "flip_discard": "whole_pile",
    "max_players": 10,
}
BOOLS = [k for k, v in DEFAULTS.items() if isinstance(v, bool)]
RANGES = {
    "max_draw": (0, 50),
    "uno_penalty": (0, 10),
    "false_catch_penalty": (0, 10),
    "target_score": (50, 10000),
    "uno_window_ms": (500, 30000),
    "challenge_seconds": (3, 120),
    "afk_timeouts": (1, 10),
    "next_round_seconds": (0, 300),
    "max_players": (2, 10),
}
CHOICES = {
    "variant": ["classic", "all_wild", "flip"],
    "deck": ["gdj85", "original"],
    "first_card": ["official", "redraw_until_number", "apply_actions_reshuffle_wilds"],
    "draw": ["one", "until_playable"],
    "scoring": ["winner_collects", "lowest_wins", "none"],
    "flip_discard": ["whole_pile", "top_card"],
}


def bad(partial: dict[str, Any], **kw: Any) -> None:
    with pytest.raises(EngineError) as info:
        parse_settings(partial, **kw)
    assert info.value.code == "bad_settings"


def test_defaults_are_the_rules_table() -> None:
    wire = settings_to_json(parse_settings({}))
    for key, value in DEFAULTS.items():
        assert wire[key] == value, key


def test_unknown_key_is_refused() -> None:
    bad({"speed": "fast"})
    bad({"Variant": "classic"})


@pytest.mark.parametrize("key", BOOLS)
@pytest.mark.parametrize("value", ["yes", "true", 0, 1, None, [], {}])
def test_booleans_accept_only_true_and_false(key: str, value: Any) -> None:
    bad({key: value})


@pytest.mark.parametrize("key", BOOLS)
def test_booleans_both_values(key: str) -> None:
    for value in (True, False):
        assert settings_to_json(parse_settings({key: value}))[key] is value


@pytest.mark.parametrize(("key", "bounds"), RANGES.items())
def test_integer_ranges(key: str, bounds: tuple[int, int]) -> None:
    lo, hi = bounds
    for ok in (lo, hi, (lo + hi) // 2):
        assert settings_to_json(parse_settings({key: ok}))[key] == ok
    for wrong in (lo - 1, hi + 1, str(lo), float(lo) + 0.5, True, None):
        bad({key: wrong})


def test_turn_seconds_zero_or_five_to_six_hundred() -> None:
    for ok in (0, 5, 600):
        assert settings_to_json(parse_settings({"turn_seconds": ok}))["turn_seconds"] == ok
    for wrong in (1, 4, 601, -1, "30", None, False):
        bad({"turn_seconds": wrong})


@pytest.mark.parametrize(("key", "values"), CHOICES.items())
def test_choices(key: str, values: list[str]) -> None:
    for ok in values:
        assert settings_to_json(parse_settings({key: ok}))[key] == ok
    for wrong in ("", values[0].upper(), "other", 1, None, True):
        bad({key: wrong})


def test_custom_wilds_accepts_the_menu() -> None:
    entries = [
        {"effect": "next_draws", "n": 10, "label": "x" * 60},
        {"effect": "swap_hands"},
        {"effect": "skip_next", "n": 1},
    ]
    s = parse_settings({"custom_wilds": entries})
    assert settings_to_json(s)["custom_wilds"][0]["effect"] == "next_draws"
    for effect in ("all_others_draw",):
        parse_settings({"custom_wilds": [{"effect": effect, "n": 3}]})
    for effect in ("rotate_hands", "discard_color", "reverse"):
        parse_settings({"custom_wilds": [{"effect": effect, "label": "L"}]})


@pytest.mark.parametrize(
    "entries",
    [
        [{"effect": "reverse"}] * 4,
        [{"effect": "explode"}],
        [{"effect": "next_draws"}],
        [{"effect": "next_draws", "n": 0}],
        [{"effect": "next_draws", "n": 11}],
        [{"effect": "next_draws", "n": "2"}],
        [{"effect": "skip_next", "n": True}],
        [{"effect": "rotate_hands", "n": 2}],
        [{"effect": "reverse", "label": "x" * 61}],
        [{"effect": "reverse", "label": 5}],
        # `label` and `n` are optional: left out, never null (PROTOCOL 4: null is no string)
        [{"effect": "reverse", "label": None}],
        [{"effect": "reverse", "label": "a\u202eb"}],
        [{"effect": "reverse", "label": "two\nlines"}],
        [{"effect": "reverse", "label": "\ud800"}],
        [{"effect": "reverse", "n": None}],
        [{"effect": "next_draws", "n": None}],
        [{"effect": "reverse", "color": "red"}],
        ["reverse"],
        {"effect": "reverse"},
    ],
)
def test_custom_wilds_refused(entries: Any) -> None:
    bad({"custom_wilds": entries})


@pytest.mark.parametrize(
    "other", [{"deck": "original"}, {"variant": "all_wild"}, {"variant": "flip"}]
)
def test_custom_wilds_only_in_classic_gdj85(other: dict[str, Any]) -> None:
    bad({"custom_wilds": [{"effect": "reverse"}], **other})
    base = parse_settings({"custom_wilds": [{"effect": "reverse"}]})
    with pytest.raises(EngineError) as info:
        parse_settings(other, base)
    assert info.value.code == "bad_settings"


def test_unused_settings_are_accepted_in_other_variants() -> None:
    parse_settings({"variant": "all_wild", "deck": "original", "seven_zero": True})
    parse_settings({"variant": "flip", "stack_draw4": True})


@pytest.mark.parametrize("hook", [{"dealer": 0}, {"deck_order": []}, {"bot_delay_ms": 10}])
def test_test_hooks_refused_without_test_hooks(hook: dict[str, Any]) -> None:
    bad(hook)


def test_test_hooks_accepted_with_test_hooks() -> None:
    s = parse_settings({"dealer": 1, "bot_delay_ms": 0}, test_hooks=True)
    assert settings_to_json(s)["dealer"] == 1
    order = list(range(109))[::-1]
    parse_settings({"deck_order": order}, test_hooks=True)


def test_deck_order_must_be_the_whole_deck() -> None:
    bad({"deck_order": list(range(108))}, test_hooks=True)
    bad({"deck_order": [*range(108), 0]}, test_hooks=True)
    bad({"deck_order": "0,1,2"}, test_hooks=True)


def test_partial_merges_onto_base_and_refusal_changes_nothing() -> None:
    base = parse_settings({"draw": "until_playable", "max_draw": 3})
    merged = parse_settings({"jump_in": True}, base)
    wire = settings_to_json(merged)
    assert wire["draw"] == "until_playable" and wire["max_draw"] == 3 and wire["jump_in"] is True
    with pytest.raises(EngineError):
        parse_settings({"jump_in": False, "max_draw": 99}, merged)
    assert settings_to_json(merged) == wire


def test_settings_object_must_be_an_object() -> None:
    bad([])  # type: ignore[arg-type]


def test_match_rounds_is_an_extension_shown_only_when_on() -> None:
    assert "match_rounds" not in settings_to_json(parse_settings({}))
    assert "match_rounds" not in settings_to_json(parse_settings({"match_rounds": 0}))
    for ok in (1, 3, 100):
        assert settings_to_json(parse_settings({"match_rounds": ok}))["match_rounds"] == ok
    for wrong in (-1, 101, "2", 1.5, True, None):
        bad({"match_rounds": wrong})


@pytest.mark.parametrize("scoring", ["winner_collects", "lowest_wins"])
def test_match_rounds_ends_the_match_after_that_many_rounds(scoring: str) -> None:
    from .driver import Driver

    for seed in range(4):
        d = Driver(
            {"match_rounds": 2, "target_score": 10000, "scoring": scoring}, 3, seed, check=False
        )
        d.check_match_end = lambda scores, ended: None  # type: ignore[method-assign]  # RULES 16 only
        ended: list[tuple[int, list[int]]] = []
        for _ in range(20000):
            if d.matches:
                break
            before = d.rounds
            d.step()
            if d.matches:
                ended.append((d.rounds, list(d.state.scores)))
            assert before <= d.rounds
        assert ended, "the match never ended"
        rounds, scores = ended[0]
        best = max(scores) if scoring == "winner_collects" else min(scores)
        # The match ends at round 2, or later only while the best total is shared.
        assert rounds >= 2
        assert d.state.match_winner is not None and scores[d.state.match_winner] == best
        assert scores.count(best) == 1
        assert max(scores) < 10000


def test_the_dealer_hook_names_a_seat_below_max_players() -> None:
    bad({"dealer": 4, "max_players": 4}, test_hooks=True)
    base = parse_settings({"dealer": 3}, test_hooks=True)
    with pytest.raises(EngineError) as info:
        parse_settings({"max_players": 3}, base)
    assert info.value.code == "bad_settings"
    parse_settings({"dealer": 3, "max_players": 4}, test_hooks=True)


def test_a_dealer_hook_beyond_the_seats_taken_is_refused_at_the_deal() -> None:
    """Set before everyone has joined, the dealer seat must exist when the round is dealt;
    it is not quietly taken modulo the seats (the deck order would be dealt from another
    seat than the test meant)."""
    t = Table(2, dealer=None, start=False)
    t.act(0, ChangeSettings(settings={"dealer": 2}))
    t.refuse(0, Start(), "bad_settings")
    t.act(0, ChangeSettings(settings={"dealer": 1}))
    t.act(0, Start())
    assert t.find("dealer_chosen").public["dealer"] == 1
