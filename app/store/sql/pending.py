"""Rounds still in the outbox, merged into what the database says about their match."""

from __future__ import annotations

from typing import Any

from app.store.recorder import RoundRecord


def with_waiting_rounds(
    match: dict[str, Any] | None, waiting: list[RoundRecord]
) -> dict[str, Any] | None:
    """The match as read from the database, plus its rounds still waiting in the outbox (the
    database may not even know the match yet). Totals come from the latest round known."""
    if not waiting:
        return match
    first = waiting[0]
    if match is None:
        match = {
            "match_id": first.match_id,
            "status": "running",
            "settings": first.settings,
            "players": [
                {"seat": p.seat, "player_id": p.player_id, "name": p.name} for p in first.players
            ],
            "rounds": [],
            "scores": [0] * len(first.players),
            "winner": None,
        }
    known = {r["number"] for r in match["rounds"]}
    rounds = list(match["rounds"])
    for r in waiting:
        if r.number not in known:
            rounds.append(_round_json(r))
    rounds.sort(key=lambda r: r["number"])
    last = max(waiting, key=lambda r: r.number)
    result = {**match, "rounds": rounds}
    if not match["rounds"] or last.number >= max(r["number"] for r in match["rounds"]):
        result["scores"] = list(last.scores)
        if last.match_over:
            result["status"] = "finished"
            result["winner"] = last.match_winner
    return result


def _round_json(r: RoundRecord) -> dict[str, Any]:
    return {
        "number": r.number,
        "winner": r.winner,
        "points": list(r.points),
        "ended_at": r.ended_at,
    }
