"""Reading matches back in the PROTOCOL shape, the latest room snapshot and room members."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.store.recorder import MemberRecord, RoomCheckpoint
from app.store.sql.writes import (
    MATCH_PLAYERS,
    MATCH_SCORES,
    MATCHES,
    ROOM_CHECKPOINTS,
    ROOM_MEMBERS,
    ROOM_SNAPSHOTS,
    ROOMS,
    ROUND_PLAYERS,
    ROUNDS,
)


async def read_match(conn: AsyncConnection, match_id: str) -> dict[str, Any] | None:
    """The `GET /api/matches/{match_id}` body, or None when the match is unknown. Without the
    room code: a match id is shared (a results link), the room code is the room's key."""
    match = (await conn.execute(select(MATCHES).where(MATCHES.c.id == match_id))).first()
    if match is None:
        return None
    seats = (
        await conn.execute(
            select(MATCH_PLAYERS.c.seat, MATCH_PLAYERS.c.player_id, MATCH_PLAYERS.c.name)
            .where(MATCH_PLAYERS.c.match_id == match_id)
            .order_by(MATCH_PLAYERS.c.seat)
        )
    ).all()
    rounds = (
        await conn.execute(
            select(ROUNDS.c.number, ROUNDS.c.winner, ROUNDS.c.ended_at)
            .where(ROUNDS.c.match_id == match_id)
            .order_by(ROUNDS.c.number)
        )
    ).all()
    points: dict[int, dict[int, int]] = {}
    for row in await conn.execute(
        select(ROUND_PLAYERS.c.number, ROUND_PLAYERS.c.seat, ROUND_PLAYERS.c.points).where(
            ROUND_PLAYERS.c.match_id == match_id
        )
    ):
        points.setdefault(row.number, {})[row.seat] = row.points
    totals = {
        row.seat: row.score
        for row in await conn.execute(
            select(MATCH_SCORES.c.seat, MATCH_SCORES.c.score).where(
                MATCH_SCORES.c.match_id == match_id
            )
        )
    }
    n_seats = len(seats)
    finished = match.status == "finished"
    return {
        "match_id": match.id,
        "status": match.status if match.status in ("finished", "abandoned") else "running",
        "settings": match.settings,
        "players": [{"seat": s.seat, "player_id": s.player_id, "name": s.name} for s in seats],
        "rounds": [
            {
                "number": r.number,
                "winner": r.winner,
                "points": [points.get(r.number, {}).get(seat, 0) for seat in range(n_seats)],
                "ended_at": r.ended_at,
            }
            for r in rounds
        ],
        "scores": [totals.get(seat, 0) for seat in range(n_seats)],
        "winner": match.winner if finished else None,
    }


async def read_latest_snapshot(
    conn: AsyncConnection, room: str
) -> tuple[int, dict[str, Any]] | None:
    """(ended_at, snapshot) of the room's latest stored round end, or None."""
    row = (
        await conn.execute(
            select(ROOM_SNAPSHOTS.c.ended_at, ROOM_SNAPSHOTS.c.snapshot).where(
                ROOM_SNAPSHOTS.c.room == room
            )
        )
    ).first()
    if row is None:
        return None
    snapshot: dict[str, Any] = row.snapshot
    return int(row.ended_at), snapshot


async def read_members(conn: AsyncConnection, room: str) -> list[MemberRecord]:
    rows = await conn.execute(
        select(ROOM_MEMBERS).where(ROOM_MEMBERS.c.room == room).order_by(ROOM_MEMBERS.c.joined_at)
    )
    return [
        MemberRecord(
            room=row.room,
            token_hash=row.token_hash,
            member_id=row.member_id,
            role=row.role,
            name=row.name,
            joined_at=int(row.joined_at),
        )
        for row in rows
    ]


async def read_ceiling(conn: AsyncConnection, room: str) -> int:
    """The room's version ceiling (0 when the database knows no reservation)."""
    row = (await conn.execute(select(ROOMS.c.version_ceiling).where(ROOMS.c.code == room))).first()
    return int(row.version_ceiling) if row is not None else 0


async def read_checkpoint(conn: AsyncConnection, room: str) -> RoomCheckpoint | None:
    row = (
        await conn.execute(select(ROOM_CHECKPOINTS).where(ROOM_CHECKPOINTS.c.room == room))
    ).first()
    if row is None:
        return None
    meta: dict[str, Any] = row.meta
    return RoomCheckpoint(
        room=row.room,
        version=int(row.version),
        state=row.state,
        created_at=int(meta.get("created_at", 0)),
        match_id=meta.get("match_id"),
        members={d: (m[0], m[1], m[2]) for d, m in meta.get("members", {}).items()},
        at=int(row.at),
    )
