"""A tournament's record: what the store keeps, as data, and its JSON form.

The record is written whole (it is small: a few hundred entrants at most) and read whole;
every store keeps it as the JSON of `to_json`, so that a record read from Redis or the
database is the same as one held in memory, and a loaded record is the caller's own copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.tournaments.core import Placing, RoundSpec, TableSpec

# Statuses of a tournament and of one of its tables.
REGISTERING, RUNNING, FINISHED = "registering", "running", "finished"
WAITING, PLAYING = "waiting", "playing"


@dataclass(slots=True)
class EntrantRecord:
    entrant_id: str
    name: str
    token_hash: str  # SHA-256 of the entrant's token; the token itself is never kept


@dataclass(slots=True)
class TableRecord:
    room: str
    # entrant id → the room's player id of its seat
    players: dict[str, str] = field(default_factory=dict)
    # No seat token is kept: /me derives each entrant's from its entrant token and lets it
    # hold the seat (app/tournaments/service.py `me`), so a copy of the record (Redis, the
    # database) opens no seat.
    bots: int = 0
    status: str = WAITING  # waiting (lobby) | playing | finished
    match_id: str | None = None
    start_by: int = 0  # ms: the match starts by then even if some entrant has not connected
    look_at: int = 0  # ms: when any process should look at the table again (a safety net)
    round_over_at: int = 0  # ms: since when its match waits for a next round nobody deals


@dataclass(slots=True)
class TournamentRecord:
    code: str
    name: str
    host_name: str
    host_hash: str  # SHA-256 of the host token
    format: str
    table_size: int
    advance: int
    swiss_rounds: int
    match: dict[str, int]
    fill_with_bots: bool
    settings: dict[str, Any]  # the validated room settings of every table (wire form)
    grace_seconds: float
    created_at: int
    touched_at: int = 0  # ms: the last registration, removal, start or table result
    status: str = REGISTERING  # registering | running | finished
    entrants: dict[str, EntrantRecord] = field(default_factory=dict)  # registration order
    rounds: list[RoundSpec] = field(default_factory=list)
    tables: dict[str, TableRecord] = field(default_factory=dict)  # room code → table
    winner: str | None = None
    error: str | None = None  # why the tournament stopped, when a table could not be made
    # The store's write counter: a save succeeds only from the version it was loaded at
    # (compare-and-set), and moves it on by one. Not part of the JSON.
    version: int = 0

    def spec_of(self, room: str) -> TableSpec:
        return next(s for rnd in self.rounds for s in rnd.tables if s.room == room)

    def open_tables(self) -> list[TableRecord]:
        """The current round's tables without a result, in seat order."""
        if self.status != RUNNING or not self.rounds:
            return []
        rooms = [s.room for s in self.rounds[-1].tables if s.result is None and s.room]
        return [self.tables[r] for r in rooms if r in self.tables]


def to_json(record: TournamentRecord) -> dict[str, Any]:
    return {
        "code": record.code,
        "name": record.name,
        "host_name": record.host_name,
        "host_hash": record.host_hash,
        "format": record.format,
        "table_size": record.table_size,
        "advance": record.advance,
        "swiss_rounds": record.swiss_rounds,
        "match": dict(record.match),
        "fill_with_bots": record.fill_with_bots,
        "settings": record.settings,
        "grace_seconds": record.grace_seconds,
        "created_at": record.created_at,
        "touched_at": record.touched_at,
        "status": record.status,
        "entrants": [[e.entrant_id, e.name, e.token_hash] for e in record.entrants.values()],
        "rounds": [
            {
                "number": rnd.number,
                "byes": list(rnd.byes),
                "tables": [
                    {
                        "seats": list(t.seats),
                        "room": t.room,
                        "result": None
                        if t.result is None
                        else [[p.entrant_id, p.points, p.place] for p in t.result],
                    }
                    for t in rnd.tables
                ],
            }
            for rnd in record.rounds
        ],
        "tables": [
            {
                "room": t.room,
                "players": t.players,
                "bots": t.bots,
                "status": t.status,
                "match_id": t.match_id,
                "start_by": t.start_by,
                "look_at": t.look_at,
                "round_over_at": t.round_over_at,
            }
            for t in record.tables.values()
        ],
        "winner": record.winner,
        "error": record.error,
    }


def from_json(data: dict[str, Any], version: int = 0) -> TournamentRecord:
    record = TournamentRecord(
        code=data["code"],
        name=data["name"],
        host_name=data["host_name"],
        host_hash=data["host_hash"],
        format=data["format"],
        table_size=int(data["table_size"]),
        advance=int(data["advance"]),
        swiss_rounds=int(data["swiss_rounds"]),
        match={k: int(v) for k, v in data["match"].items()},
        fill_with_bots=bool(data["fill_with_bots"]),
        settings=dict(data["settings"]),
        grace_seconds=float(data["grace_seconds"]),
        created_at=int(data["created_at"]),
        touched_at=int(data["touched_at"]),
        status=data["status"],
        winner=data["winner"],
        error=data["error"],
        version=version,
    )
    for entrant_id, name, token_hash in data["entrants"]:
        record.entrants[entrant_id] = EntrantRecord(entrant_id, name, token_hash)
    for rnd in data["rounds"]:
        tables = [
            TableSpec(
                list(t["seats"]),
                None if t["result"] is None else [Placing(*line) for line in t["result"]],
                t["room"],
            )
            for t in rnd["tables"]
        ]
        record.rounds.append(RoundSpec(int(rnd["number"]), tables, list(rnd["byes"])))
    for t in data["tables"]:
        record.tables[t["room"]] = TableRecord(
            room=t["room"],
            players=dict(t["players"]),
            bots=int(t["bots"]),
            status=t["status"],
            match_id=t["match_id"],
            start_by=int(t["start_by"]),
            look_at=int(t["look_at"]),
            round_over_at=int(t.get("round_over_at", 0)),
        )
    return record
