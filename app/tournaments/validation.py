"""The body of POST /api/tournaments, checked: every refusal is a 400 with the wire's error
shape (PROTOCOL section 6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app import engine
from app.engine.errors import EngineError
from app.rooms.names import BadName, clean_name
from app.rooms.service import RoomError
from app.tournaments import core

NAME_MAX = 60
MAX_ENTRANTS = 256
MAX_SWISS_ROUNDS = 20
MAX_MATCH_ROUNDS = 100
DEFAULT_GRACE_SECONDS = 60.0
MAX_GRACE_SECONDS = 600.0
RESULT_SCORE = 10000  # the target under match: {"rounds": N}, so that the rounds decide


@dataclass(frozen=True, slots=True)
class Plan:
    """A tournament as its host asked for it."""

    name: str
    host_name: str
    format: str
    table_size: int
    advance: int
    swiss_rounds: int
    match: dict[str, int]
    fill_with_bots: bool
    settings: dict[str, Any]  # the tables' room settings, validated (wire form, secrets kept)
    grace_seconds: float


def entrant_name(name: Any, what: str = "name") -> str:
    """A player's name: the rooms' rule (graphemes, ZWNJ/ZWJ, emoji)."""
    try:
        return clean_name(name)
    except BadName as exc:
        raise RoomError(exc.code, f"{what}: {exc}", 400) from exc


def _title(name: Any) -> str:
    cleaned = " ".join(name.split()) if isinstance(name, str) else ""
    if not cleaned or len(cleaned) > NAME_MAX or not cleaned.isprintable():
        raise RoomError("bad_request", f"name must be 1-{NAME_MAX} printable characters", 400)
    return cleaned


def _int(value: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RoomError("bad_request", f"{what} must be an integer between {lo} and {hi}", 400)
    return value


def plan(body: Mapping[str, Any], *, test_hooks: bool) -> Plan:
    name = _title(body.get("name"))
    host_name = entrant_name(body.get("host_name"), "host_name")
    table_size = _int(body.get("table_size"), 2, 10, "table_size")
    fmt = body.get("format")
    if fmt not in core.FORMATS:
        raise RoomError("bad_request", "format must be elimination or swiss", 400)
    advance = 1
    if body.get("advance") is not None:
        advance = _int(body.get("advance"), 1, table_size - 1, "advance")
    swiss_rounds = 3
    if body.get("rounds") is not None:
        swiss_rounds = _int(body.get("rounds"), 1, MAX_SWISS_ROUNDS, "rounds")
    fill = body.get("fill_with_bots", False)
    if not isinstance(fill, bool):
        raise RoomError("bad_request", "fill_with_bots must be true or false", 400)
    grace = body.get("grace_seconds", DEFAULT_GRACE_SECONDS)
    if (
        isinstance(grace, bool)
        or not isinstance(grace, int | float)
        or not 0 <= grace <= MAX_GRACE_SECONDS
    ):
        raise RoomError(
            "bad_request", f"grace_seconds must be between 0 and {MAX_GRACE_SECONDS:g}", 400
        )
    settings = body.get("settings")
    if settings is None:  # optional, as for a room (`null` is the same as absent)
        settings = {}
    if not isinstance(settings, Mapping):  # `[]`, `false`, `0`, `""` too: not an object
        raise RoomError("bad_settings", "settings must be an object", 400)
    match, table_settings = _match(body.get("match"), dict(settings))
    table_settings["max_players"] = table_size
    try:
        parsed = engine.parse_settings(table_settings, test_hooks=test_hooks)
    except EngineError as exc:
        raise RoomError(exc.code, exc.message, 400) from exc
    return Plan(
        name=name,
        host_name=host_name,
        format=str(fmt),
        table_size=table_size,
        advance=advance,
        swiss_rounds=swiss_rounds,
        match=match,
        fill_with_bots=fill,
        settings=engine.settings_to_json(parsed, secrets=True),
        grace_seconds=float(grace),
    )


def _match(value: Any, settings: dict[str, Any]) -> tuple[dict[str, int], dict[str, Any]]:
    """`match`: {"target_score": N} or {"rounds": N} (or absent: the settings decide)."""
    if value is None:
        return {}, settings
    if not isinstance(value, Mapping) or len(value) != 1:
        raise RoomError("bad_request", 'match must be {"target_score": N} or {"rounds": N}', 400)
    if "target_score" in value:
        target = _int(value["target_score"], 50, RESULT_SCORE, "match.target_score")
        settings["target_score"] = target
        return {"target_score": target}, settings
    if "rounds" in value:
        rounds = _int(value["rounds"], 1, MAX_MATCH_ROUNDS, "match.rounds")
        settings["match_rounds"] = rounds
        settings["target_score"] = RESULT_SCORE
        return {"rounds": rounds}, settings
    raise RoomError("bad_request", 'match must be {"target_score": N} or {"rounds": N}', 400)
