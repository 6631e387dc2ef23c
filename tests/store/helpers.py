"""Round records and row counts for the persistence tests."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import func, select

from app.store.recorder import PlayerRecord, RoundRecord
from app.store.sql.recorder import SqlRecorder

PLAYERS = (
    PlayerRecord(0, "player-ann", "Ann"),
    PlayerRecord(1, "player-bob", "Bob"),
    PlayerRecord(2, "bot-2", "Bot 2", bot=True),
)


def match_rounds(
    points: list[tuple[int, ...]],
    *,
    match_id: str = "match-1",
    room: str = "ROOM1",
    finished: bool = False,
) -> list[RoundRecord]:
    """Consecutive rounds with these per-seat points (the winner scores); `finished` ends the
    match with the last one. Each loser keeps one card, and each round carries a snapshot."""
    records = []
    totals = [0] * len(PLAYERS)
    for index, round_points in enumerate(points):
        number = index + 1
        totals = [t + p for t, p in zip(totals, round_points, strict=True)]
        winner = max(range(len(round_points)), key=lambda seat: round_points[seat])
        last = number == len(points)
        records.append(
            RoundRecord(
                match_id=match_id,
                room=room,
                settings={"target_score": 500, "scoring": "winner_collects"},
                players=PLAYERS,
                number=number,
                winner=winner,
                reason="empty_hand",
                points=round_points,
                scores=tuple(totals),
                hands=tuple(
                    () if seat == winner else ({"id": 10 * number + seat, "color": "red"},)
                    for seat in range(len(PLAYERS))
                ),
                started_at=1_764_450_000_000 + 60_000 * number,
                ended_at=1_764_450_000_000 + 60_000 * number + 45_000,
                match_over=finished and last,
                match_winner=max(range(len(totals)), key=lambda s: totals[s])
                if finished and last
                else None,
                snapshot={"room": room, "match_id": match_id, "round": number},
            )
        )
    return records


async def count_rows(
    recorder: SqlRecorder, model: type[Any], key: str, *, column: str = "match_id"
) -> int:
    """Rows of `model` whose `column` (the match id unless told) is `key`."""
    table = model.__table__
    async with recorder.engine.connect() as conn:
        result = await conn.execute(
            select(func.count()).select_from(table).where(table.c[column] == key)
        )
        return int(result.scalar_one())


def expected_body(records: list[RoundRecord], *, finished: bool) -> dict[str, Any]:
    """The GET /api/matches body these rounds should give."""
    last = records[-1]
    return {
        "match_id": last.match_id,
        "status": "finished" if finished else "running",
        "settings": last.settings,
        "players": [{"seat": p.seat, "player_id": p.player_id, "name": p.name} for p in PLAYERS],
        "rounds": [
            {
                "number": r.number,
                "winner": r.winner,
                "points": list(r.points),
                "ended_at": r.ended_at,
            }
            for r in records
        ],
        "scores": list(last.scores),
        "winner": last.match_winner if finished else None,
    }


async def wait_until_delivered(recorder: SqlRecorder, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while recorder.outbox_size():
            await asyncio.sleep(0.02)
