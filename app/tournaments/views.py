"""What a tournament record shows: the public answer of GET /api/tournaments/{t} (no token,
no hash) and an entrant's status for /me."""

from __future__ import annotations

from typing import Any

from app import engine
from app.tournaments import core
from app.tournaments.records import FINISHED, REGISTERING, WAITING, TournamentRecord


def entrant_status(record: TournamentRecord, entrant_id: str) -> str:
    """registered | playing (seated at a table not finished) | waiting (bye, or the round's
    other tables are still playing) | eliminated | finished."""
    if record.status == REGISTERING:
        return "registered"
    if record.status == FINISHED:
        return "finished"
    current = record.rounds[-1]
    for spec in current.tables:
        if entrant_id in spec.seats:
            return "playing" if spec.result is None else "waiting"
    if entrant_id in current.byes:
        return "waiting"
    return "eliminated"


def public(record: TournamentRecord) -> dict[str, Any]:
    ids = list(record.entrants)
    names = {e.entrant_id: e.name for e in record.entrants.values()}
    rounds = []
    for rnd in record.rounds:
        tables = []
        for spec in rnd.tables:
            table = record.tables.get(spec.room)
            tables.append(
                {
                    "room": spec.room or None,  # None while the room is being made
                    "seats": list(spec.seats),
                    "bots": table.bots if table is not None else 0,
                    "status": table.status if table is not None else WAITING,
                    "match_id": table.match_id if table is not None else None,
                    "result": [
                        {"entrant_id": p.entrant_id, "points": p.points, "place": p.place}
                        for p in spec.result or []
                    ],
                }
            )
        rounds.append({"number": rnd.number, "tables": tables, "byes": list(rnd.byes)})
    standings = [
        {
            "entrant_id": s.entrant_id,
            "name": names[s.entrant_id],
            "points": s.points,
            "wins": s.wins,
            "place": s.place,
        }
        for s in core.standings(record.format, ids, record.rounds)
    ]
    public_settings = engine.settings_to_json(
        engine.parse_settings(record.settings, test_hooks=True)
    )
    return {
        "tournament": record.code,
        "url": f"/t/{record.code}",
        "name": record.name,
        "host": record.host_name,
        "status": record.status,
        "format": record.format,
        "table_size": record.table_size,
        "advance": record.advance if record.format == "elimination" else None,
        "rounds_planned": record.swiss_rounds if record.format == "swiss" else None,
        "match": dict(record.match),
        "fill_with_bots": record.fill_with_bots,
        "grace_seconds": record.grace_seconds,
        "settings": public_settings,
        "entrants": [{"entrant_id": e, "name": names[e]} for e in ids],
        "rounds": rounds,
        "standings": standings,
        "winner": record.winner,
        "error": record.error,
    }
