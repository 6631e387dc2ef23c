"""Room settings (RULES.md settings table, PROTOCOL section 4): one frozen value, validated once.

`parse_settings` merges a partial JSON object onto a base and checks the *merged* result, so
a combination that is wrong as a whole (custom wilds in Flip, a deck order of the wrong
deck) is refused whichever key changed. Test-hook keys are accepted only when allowed; the
permission travels inside the value (`hooks_allowed`) so the engine can validate later
`settings` commands the same way the room was created.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from app.engine.cards import CUSTOM_EFFECTS
from app.engine.errors import EngineError
from app.engine.text import BIDI_CONTROLS


@dataclass(frozen=True, slots=True)
class CustomWild:
    effect: str
    n: int | None = None
    label: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"effect": self.effect}
        if self.n is not None:
            out["n"] = self.n
        if self.label is not None:
            out["label"] = self.label
        return out


LOBBY_DROP_DEFAULT = 120


@dataclass(frozen=True, slots=True)
class Settings:
    variant: str = "classic"
    deck: str = "gdj85"
    custom_wilds: tuple[CustomWild, ...] = ()
    first_card: str = "official"
    draw: str = "one"
    max_draw: int = 10
    forced_play: bool = False
    no_voluntary_draw: bool = False
    stack_draw2: bool = False
    stack_draw4: bool = False
    stack_draw4_on_draw2: bool = False
    seven_zero: bool = False
    jump_in: bool = False
    bluffing: bool = True
    uno_penalty: int = 2
    false_catch_penalty: int = 0
    scoring: str = "winner_collects"
    target_score: int = 500
    turn_seconds: int = 30
    uno_window_ms: int = 3000
    challenge_seconds: int = 10
    afk_timeouts: int = 2
    next_round_seconds: int = 10
    flip_discard: str = "whole_pile"
    max_players: int = 10
    # extension (docs/rules.md): the match ends after this many rounds (0 = off)
    match_rounds: int = 0
    # extension: a lobby seat whose player has been away this long is freed (0 = never)
    lobby_drop_seconds: int = LOBBY_DROP_DEFAULT
    # test hooks (PROTOCOL section 5)
    dealer: int | None = None
    deck_order: tuple[int, ...] | None = None
    bot_delay_ms: int | None = None
    hooks_allowed: bool = False
    # Not a setting anyone sends: the server's, kept beside the settings like hooks_allowed.
    # A tournament's table keeps a departed player's seat (its entrants come and go between
    # the tournament page and the table), whatever lobby_drop_seconds says.
    keep_departed: bool = False
    # Not sent by anyone either: a tournament's table, whose lobby only the tournament deals
    # (`Start(organiser=True)`), so that the entrant in its host seat cannot deal its rivals
    # in before they arrive.
    organised: bool = False


_CHOICES: dict[str, tuple[str, ...]] = {
    "variant": ("classic", "all_wild", "flip"),
    "deck": ("gdj85", "original"),
    "first_card": ("official", "redraw_until_number", "apply_actions_reshuffle_wilds"),
    "draw": ("one", "until_playable"),
    "scoring": ("winner_collects", "lowest_wins", "none"),
    "flip_discard": ("whole_pile", "top_card"),
}
_RANGES: dict[str, tuple[int, int]] = {
    "max_draw": (0, 50),
    "uno_penalty": (0, 10),
    "false_catch_penalty": (0, 10),
    "target_score": (50, 10000),
    "uno_window_ms": (500, 30000),
    "challenge_seconds": (3, 120),
    "afk_timeouts": (1, 10),
    "next_round_seconds": (0, 300),
    "max_players": (2, 10),
    "match_rounds": (0, 100),
    "dealer": (0, 9),
    "bot_delay_ms": (0, 60000),
}
_BOOLS = (
    "forced_play",
    "no_voluntary_draw",
    "stack_draw2",
    "stack_draw4",
    "stack_draw4_on_draw2",
    "seven_zero",
    "jump_in",
    "bluffing",
)
HOOK_KEYS: tuple[str, ...] = ("dealer", "deck_order", "bot_delay_ms")
# Extensions beyond the RULES table: accepted like any setting, shown only when not off, so
# that the settings object of a room that does not use them stays the RULES table.
EXTENSION_KEYS: tuple[str, ...] = ("match_rounds", "lobby_drop_seconds")
_NOT_PUBLIC = (
    frozenset(HOOK_KEYS)
    | frozenset(EXTENSION_KEYS)
    | {"hooks_allowed", "keep_departed", "organised"}
)
PUBLIC_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Settings) if f.name not in _NOT_PUBLIC)
_KNOWN = frozenset(PUBLIC_KEYS) | frozenset(HOOK_KEYS) | frozenset(EXTENSION_KEYS)


def _bad(message: str) -> EngineError:
    return EngineError("bad_settings", message)


def _int(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{key} must be an integer")
    lo, hi = _RANGES[key]
    if not lo <= value <= hi:
        raise _bad(f"{key} must be between {lo} and {hi}")
    return value


def _custom_wilds(value: Any) -> tuple[CustomWild, ...]:
    if not isinstance(value, list):
        raise _bad("custom_wilds must be a list")
    if len(value) > 3:
        raise _bad("custom_wilds holds at most 3 entries")
    out = []
    for entry in value:
        if not isinstance(entry, Mapping):
            raise _bad("each custom_wilds entry must be an object")
        unknown = set(entry) - {"effect", "n", "label"}
        if unknown:
            raise _bad(f"unknown custom_wilds key: {_named(sorted(unknown)[0])}")
        effect = entry.get("effect")
        if not isinstance(effect, str) or effect not in CUSTOM_EFFECTS:
            raise _bad(f"custom_wilds effect must be one of {', '.join(CUSTOM_EFFECTS)}")
        # `n` and `label` are left out when not given, never null (PROTOCOL 4: a value of
        # the wrong JSON type is refused; null is no integer and no string).
        n = entry.get("n")
        if CUSTOM_EFFECTS[effect]:
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
                raise _bad(f"custom_wilds effect {effect} needs n, an integer 1-10")
        elif "n" in entry:
            raise _bad(f"custom_wilds effect {effect} takes no n")
        label = entry.get("label")
        if "label" in entry and (not isinstance(label, str) or len(label) > 60):
            raise _bad("custom_wilds label must be a string of at most 60 characters")
        if isinstance(label, str) and not _printable(label):
            raise _bad("custom_wilds label must be printable text (no control characters)")
        out.append(CustomWild(effect, n, label))
    return tuple(out)


def _printable(text: str) -> bool:
    """A label reaches every screen, like a chat line: none of what chat removes (control
    characters, line breaks, bidi controls), and no lone surrogate (not even encodable)."""
    for ch in text:
        if ch in BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            return False
    return True


def _value(key: str, value: Any) -> Any:
    if key in _CHOICES:
        if not isinstance(value, str) or value not in _CHOICES[key]:
            raise _bad(f"{key} must be one of {', '.join(_CHOICES[key])}")
        return value
    if key in _BOOLS:
        if not isinstance(value, bool):
            raise _bad(f"{key} must be true or false")
        return value
    if key == "turn_seconds":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _bad("turn_seconds must be an integer")
        if value != 0 and not 5 <= value <= 600:
            raise _bad("turn_seconds must be 0 (untimed) or between 5 and 600")
        return value
    if key == "lobby_drop_seconds":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _bad("lobby_drop_seconds must be an integer")
        if value != 0 and not 15 <= value <= 3600:
            raise _bad("lobby_drop_seconds must be 0 (never) or between 15 and 3600")
        return value
    if key == "custom_wilds":
        return _custom_wilds(value)
    if key == "deck_order":
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise _bad("deck_order must be a list of card ids")
        return tuple(value)
    return _int(key, value)


def _named(key: str) -> str:
    """A client's key in an error message: its first 32 characters, quoted and escaped, so
    an error never sends back a long or unprintable text (as `unknown_type` names a type)."""
    return repr(key[:32])


def parse_settings(
    partial: Mapping[str, Any], base: Settings | None = None, *, test_hooks: bool = False
) -> Settings:
    """Validate `partial` (JSON data) merged onto `base`; EngineError("bad_settings") if wrong."""
    if not isinstance(partial, Mapping):
        raise _bad("settings must be an object")
    base = base or Settings()
    allowed = test_hooks or base.hooks_allowed
    changes: dict[str, Any] = {}
    for key, value in partial.items():
        if key not in _KNOWN or (key in HOOK_KEYS and not allowed):
            raise _bad(f"unknown setting: {_named(key)}")
        if value is None and key in HOOK_KEYS:
            changes[key] = None  # a hook may be cleared
            continue
        changes[key] = _value(key, value)
    merged = replace(base, hooks_allowed=allowed, **changes)
    _check_whole(merged)
    return merged


def _check_whole(s: Settings) -> None:
    from app.engine.decks import deck_ids  # decks imports settings

    if s.custom_wilds and (s.variant != "classic" or s.deck != "gdj85"):
        raise _bad("custom_wilds needs variant classic and deck gdj85")
    if s.dealer is not None and s.dealer >= s.max_players:
        raise _bad(f"dealer must be a seat below max_players ({s.max_players})")
    if s.deck_order is not None and sorted(s.deck_order) != list(deck_ids(s)):
        raise _bad("deck_order must list every card id of the deck exactly once")


def settings_to_json(s: Settings, *, secrets: bool = False) -> dict[str, Any]:
    """The wire `settings` object. The deck order is a secret and only given with `secrets`."""
    out: dict[str, Any] = {}
    for key in PUBLIC_KEYS:
        value = getattr(s, key)
        out[key] = [c.to_json() for c in value] if key == "custom_wilds" else value
    if s.match_rounds:
        out["match_rounds"] = s.match_rounds
    if s.lobby_drop_seconds != LOBBY_DROP_DEFAULT:
        out["lobby_drop_seconds"] = s.lobby_drop_seconds
    if s.dealer is not None:
        out["dealer"] = s.dealer
    if s.bot_delay_ms is not None:
        out["bot_delay_ms"] = s.bot_delay_ms
    if secrets and s.deck_order is not None:
        out["deck_order"] = list(s.deck_order)
    return out


def settings_from_json(data: Mapping[str, Any], hooks_allowed: bool) -> Settings:
    """Inverse of settings_to_json(secrets=True), for stored snapshots."""
    return parse_settings(data, Settings(), test_hooks=hooks_allowed)
