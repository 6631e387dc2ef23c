"""RoundRecord to and from JSON, for the outbox."""

from __future__ import annotations

from typing import Any

from app.store.recorder import PlayerRecord, RoundRecord


def record_to_json(record: RoundRecord) -> dict[str, Any]:
    """Field by field rather than dataclasses.asdict: asdict deep-copies the snapshot, and this
    runs on the event loop at every round end (json.dumps reads tuples as lists anyway)."""
    return {
        "match_id": record.match_id,
        "room": record.room,
        "settings": record.settings,
        "players": [
            {"seat": p.seat, "player_id": p.player_id, "name": p.name, "bot": p.bot}
            for p in record.players
        ],
        "number": record.number,
        "winner": record.winner,
        "reason": record.reason,
        "points": record.points,
        "scores": record.scores,
        "hands": record.hands,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "match_over": record.match_over,
        "match_winner": record.match_winner,
        "snapshot": record.snapshot,
    }


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
