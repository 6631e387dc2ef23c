"""RoundRecord to and from JSON, for the outbox."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from app.store.recorder import PlayerRecord, RoundRecord


def record_to_json(record: RoundRecord) -> dict[str, Any]:
    return asdict(record)


def record_from_json(data: dict[str, Any]) -> RoundRecord:
    return RoundRecord(
        match_id=data["match_id"],
        room=data["room"],
        settings=data["settings"],
        players=tuple(PlayerRecord(**p) for p in data["players"]),
        number=data["number"],
        winner=data["winner"],
        reason=data["reason"],
        points=tuple(data["points"]),
        scores=tuple(data["scores"]),
        hands=tuple(tuple(hand) for hand in data["hands"]),
        started_at=data["started_at"],
        ended_at=data["ended_at"],
        match_over=data["match_over"],
        match_winner=data["match_winner"],
        snapshot=data["snapshot"],
    )
