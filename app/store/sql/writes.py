"""Writing matches and rounds. Every write is idempotent, so a retry never stores twice."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Table, bindparam, case, delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from app.store.recorder import MemberRecord, PlayerRecord, RoomCheckpoint, RoundRecord
from app.store.sql.models import (
    Match,
    MatchPlayer,
    MatchScore,
    Player,
    Room,
    RoomMember,
    RoomSnapshot,
    Round,
    RoundPlayer,
)
from app.store.sql.models import (
    RoomCheckpoint as RoomCheckpointRow,
)
from app.store.sql.upsert import insert_for


def _table(model: type[Any]) -> Table:
    table: Table = model.__table__
    return table


ROOMS = _table(Room)
PLAYERS = _table(Player)
MATCHES = _table(Match)
MATCH_PLAYERS = _table(MatchPlayer)
ROUNDS = _table(Round)
ROUND_PLAYERS = _table(RoundPlayer)
MATCH_SCORES = _table(MatchScore)
ROOM_SNAPSHOTS = _table(RoomSnapshot)
ROOM_MEMBERS = _table(RoomMember)
ROOM_CHECKPOINTS = _table(RoomCheckpointRow)
PRUNE_BATCH = 500  # rooms per DELETE ... IN (...)


async def store_members(conn: AsyncConnection, members: list[MemberRecord]) -> None:
    """Record credentials (and their rooms) unless already recorded: a retry changes nothing."""
    if not members:
        return
    rooms = sorted({m.room: m.joined_at for m in members}.items())
    await conn.execute(
        insert_for(conn, ROOMS)
        .values([{"code": code, "created_at": at} for code, at in rooms])
        .on_conflict_do_nothing(index_elements=[ROOMS.c.code])
    )
    await conn.execute(
        insert_for(conn, ROOM_MEMBERS)
        .values(
            [
                {
                    "room": m.room,
                    "token_hash": m.token_hash,
                    "member_id": m.member_id,
                    "role": m.role,
                    "name": m.name,
                    "joined_at": m.joined_at,
                }
                for m in sorted(members, key=lambda m: (m.room, m.token_hash))
            ]
        )
        .on_conflict_do_nothing(index_elements=[ROOM_MEMBERS.c.room, ROOM_MEMBERS.c.token_hash])
    )


async def ensure_match(
    conn: AsyncConnection,
    match_id: str,
    room: str,
    settings: dict[str, Any],
    players: tuple[PlayerRecord, ...],
    started_at: int,
) -> None:
    """Create the room, players, match and seats unless they exist (names follow the latest)."""
    await conn.execute(
        insert_for(conn, ROOMS)
        .values(code=room, created_at=started_at)
        .on_conflict_do_nothing(index_elements=[ROOMS.c.code])
    )
    if players:
        # sorted: concurrent matches lock the same players in one order (no deadlocks)
        rows = [
            {"id": p.player_id, "name": p.name, "first_seen_at": started_at}
            for p in sorted(players, key=lambda p: p.player_id)
        ]
        stmt = insert_for(conn, PLAYERS).values(rows)
        await conn.execute(
            stmt.on_conflict_do_update(
                index_elements=[PLAYERS.c.id], set_={"name": stmt.excluded.name}
            )
        )
    await conn.execute(
        insert_for(conn, MATCHES)
        .values(
            id=match_id,
            room=room,
            settings=settings,
            status="running",
            started_at=started_at,
            ended_at=None,
            winner=None,
        )
        .on_conflict_do_nothing(index_elements=[MATCHES.c.id])
    )
    if players:
        await conn.execute(
            insert_for(conn, MATCH_PLAYERS)
            .values(
                [
                    {
                        "match_id": match_id,
                        "seat": p.seat,
                        "player_id": p.player_id,
                        "name": p.name,
                        "bot": p.bot,
                    }
                    for p in players
                ]
            )
            .on_conflict_do_nothing(index_elements=[MATCH_PLAYERS.c.match_id, MATCH_PLAYERS.c.seat])
        )


class _RoundStatements:
    """store_round's statements, built and compiled once per dialect and then only executed with
    new parameters: built per round, they cost a few ms of CPU on the event loop (statement
    construction, and a compile whenever the cache key differs)."""

    def __init__(self, dialect: str) -> None:
        insert = _INSERTS[dialect]
        self.round = (
            insert(ROUNDS)
            .on_conflict_do_nothing(index_elements=[ROUNDS.c.match_id, ROUNDS.c.number])
            .returning(ROUNDS.c.number)
        )
        self.players = ROUND_PLAYERS.insert()
        scores = insert(MATCH_SCORES)
        # Totals move only forward: a late older round (from the outbox) never rolls them back.
        self.scores = scores.on_conflict_do_update(
            index_elements=[MATCH_SCORES.c.match_id, MATCH_SCORES.c.seat],
            set_={"score": scores.excluded.score, "through_round": scores.excluded.through_round},
            where=MATCH_SCORES.c.through_round < scores.excluded.through_round,
        )
        snapshot = insert(ROOM_SNAPSHOTS)
        self.snapshot = snapshot.on_conflict_do_update(
            index_elements=[ROOM_SNAPSHOTS.c.room],
            set_={
                "match_id": snapshot.excluded.match_id,
                "number": snapshot.excluded.number,
                "ended_at": snapshot.excluded.ended_at,
                "snapshot": snapshot.excluded.snapshot,
            },
            where=ROOM_SNAPSHOTS.c.ended_at <= snapshot.excluded.ended_at,
        )
        self.finish = (
            update(MATCHES)
            .where(MATCHES.c.id == bindparam("the_match"), MATCHES.c.status != "finished")
            .values(
                status="finished", ended_at=bindparam("the_end"), winner=bindparam("the_winner")
            )
        )


_INSERTS: dict[str, Any] = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


@functools.cache
def _round_statements(dialect: str) -> _RoundStatements:
    if dialect not in _INSERTS:
        raise NotImplementedError(f"unsupported database dialect: {dialect}")
    return _RoundStatements(dialect)


async def store_round(conn: AsyncConnection, r: RoundRecord, *, match_exists: bool) -> bool:
    """Store a completed round in the caller's transaction; False when it was already stored.

    Everything that depends on the round (per-seat rows, cumulative scores, the match's end, the
    room snapshot) is written only when the round row is new, so a duplicate changes nothing.
    `match_exists` skips creating the match, its room and players (four statements).
    """
    if not match_exists:
        await ensure_match(conn, r.match_id, r.room, r.settings, r.players, r.started_at)
    sql = _round_statements(conn.dialect.name)
    inserted = await conn.execute(
        sql.round,
        {
            "match_id": r.match_id,
            "number": r.number,
            "winner": r.winner,
            "reason": r.reason,
            "started_at": r.started_at,
            "ended_at": r.ended_at,
            "duration_ms": max(0, r.ended_at - r.started_at),
        },
    )
    if inserted.first() is None:
        if r.match_over:  # a repeat that adds the match's end (the room learned it late)
            await _finish_match(conn, r)
        return False
    await conn.execute(
        sql.players,
        [
            {
                "match_id": r.match_id,
                "number": r.number,
                "seat": seat,
                "points": r.points[seat],
                "score": r.scores[seat],
                "hand": list(r.hands[seat]) if seat < len(r.hands) else [],
            }
            for seat in range(len(r.points))
        ],
    )
    seat_player = {p.seat: p.player_id for p in r.players}
    await conn.execute(
        sql.scores,
        [
            {
                "match_id": r.match_id,
                "seat": seat,
                "player_id": seat_player[seat],
                "score": score,
                "through_round": r.number,
            }
            for seat, score in enumerate(r.scores)
        ],
    )
    if r.match_over:
        await _finish_match(conn, r)
    if r.snapshot is not None:
        await conn.execute(
            sql.snapshot,
            {
                "room": r.room,
                "match_id": r.match_id,
                "number": r.number,
                "ended_at": r.ended_at,
                "snapshot": r.snapshot,
            },
        )
    return True


async def _finish_match(conn: AsyncConnection, r: RoundRecord) -> None:
    await conn.execute(
        _round_statements(conn.dialect.name).finish,
        {"the_match": r.match_id, "the_end": r.ended_at, "the_winner": r.match_winner},
    )


async def store_ceilings(conn: AsyncConnection, ceilings: dict[str, tuple[int, int]]) -> None:
    """Raise rooms' version ceilings (room → (ceiling, at)); a ceiling never goes down."""
    if not ceilings:
        return
    stmt = insert_for(conn, ROOMS)
    stmt = stmt.on_conflict_do_update(
        index_elements=[ROOMS.c.code],
        set_={
            "version_ceiling": case(
                (ROOMS.c.version_ceiling > stmt.excluded.version_ceiling, ROOMS.c.version_ceiling),
                else_=stmt.excluded.version_ceiling,
            ),
            "active_at": stmt.excluded.active_at,
        },
    )
    await conn.execute(
        stmt,
        [
            {"code": room, "created_at": at, "version_ceiling": ceiling, "active_at": at}
            for room, (ceiling, at) in sorted(ceilings.items())
        ],
    )


async def store_checkpoints(conn: AsyncConnection, checkpoints: list[RoomCheckpoint]) -> None:
    """Upsert rooms' checkpoints; a stored one is replaced only by a newer version (another
    process may have written a newer one meanwhile: the older is dropped, not stored)."""
    if not checkpoints:
        return
    newest: dict[str, RoomCheckpoint] = {}
    for cp in checkpoints:
        if cp.room not in newest or newest[cp.room].version < cp.version:
            newest[cp.room] = cp
    ordered = [newest[room] for room in sorted(newest)]  # one lock order for every writer
    await conn.execute(
        insert_for(conn, ROOMS)
        .values([{"code": cp.room, "created_at": cp.created_at} for cp in ordered])
        .on_conflict_do_nothing(index_elements=[ROOMS.c.code])
    )
    stmt = insert_for(conn, ROOM_CHECKPOINTS)
    stmt = stmt.on_conflict_do_update(
        index_elements=[ROOM_CHECKPOINTS.c.room],
        set_={
            "version": stmt.excluded.version,
            "at": stmt.excluded.at,
            "state": stmt.excluded.state,
            "meta": stmt.excluded.meta,
        },
        where=ROOM_CHECKPOINTS.c.version < stmt.excluded.version,
    )
    await conn.execute(
        stmt,
        [
            {
                "room": cp.room,
                "version": cp.version,
                "at": cp.at,
                "state": cp.state,
                "meta": {
                    "created_at": cp.created_at,
                    "match_id": cp.match_id,
                    "members": {d: list(m) for d, m in cp.members.items()},
                },
            }
            for cp in ordered
        ],
    )


async def prune(conn: AsyncConnection, rooms_before: int, matches_before: int) -> tuple[int, int]:
    """Retention: (rooms forgotten, matches abandoned).

    A match still `running` that started before `matches_before` and has no round since is
    `abandoned` (its room was lost: a crash nobody came back from, or the room was left).
    A room with no activity (creation, reservation, member, round end) since `rooms_before`
    loses its credentials and restore snapshot; its row goes too unless a match names it.
    """
    recent_round = (
        select(ROUNDS.c.match_id)
        .where(ROUNDS.c.match_id == MATCHES.c.id, ROUNDS.c.ended_at >= matches_before)
        .exists()
    )
    abandoned = await conn.execute(
        update(MATCHES)
        .where(
            MATCHES.c.status == "running",
            MATCHES.c.started_at < matches_before,
            ~recent_round,
        )
        .values(status="abandoned")
    )
    recent_member = (
        select(ROOM_MEMBERS.c.room)
        .where(ROOM_MEMBERS.c.room == ROOMS.c.code, ROOM_MEMBERS.c.joined_at >= rooms_before)
        .exists()
    )
    recent_snapshot = (
        select(ROOM_SNAPSHOTS.c.room)
        .where(ROOM_SNAPSHOTS.c.room == ROOMS.c.code, ROOM_SNAPSHOTS.c.ended_at >= rooms_before)
        .exists()
    )
    idle = [
        row.code
        for row in await conn.execute(
            select(ROOMS.c.code).where(
                func.coalesce(ROOMS.c.active_at, ROOMS.c.created_at) < rooms_before,
                ROOMS.c.created_at < rooms_before,
                ~recent_member,
                ~recent_snapshot,
            )
        )
    ]
    for start in range(0, len(idle), PRUNE_BATCH):
        batch = idle[start : start + PRUNE_BATCH]
        await conn.execute(delete(ROOM_MEMBERS).where(ROOM_MEMBERS.c.room.in_(batch)))
        await conn.execute(delete(ROOM_SNAPSHOTS).where(ROOM_SNAPSHOTS.c.room.in_(batch)))
        await conn.execute(delete(ROOM_CHECKPOINTS).where(ROOM_CHECKPOINTS.c.room.in_(batch)))
        named = select(MATCHES.c.id).where(MATCHES.c.room == ROOMS.c.code).exists()
        await conn.execute(delete(ROOMS).where(ROOMS.c.code.in_(batch), ~named))
    return len(idle), int(abandoned.rowcount or 0)
