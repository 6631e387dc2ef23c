"""The match database: players, rooms, matches, rounds, scores, room snapshots and room members.

Times are milliseconds since the epoch (BigInteger), as on the wire, so nothing converts time
zones on the way in or out. A round belongs to the database only if its row in `rounds` exists:
its per-seat rows, the cumulative scores and the room snapshot are written in the same
transaction, and only when that row was newly inserted (the idempotent key is
(match_id, number)).
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    MetaData,
    String,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Explicit constraint names keep migrations identical across SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ID = String(64)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class Player(Base):
    """A guest identity (or a bot): the stable id the server gave it, and its latest name."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    first_seen_at: Mapped[int] = mapped_column(BigInteger)


class Room(Base):
    __tablename__ = "rooms"

    code: Mapped[str] = mapped_column(ID, primary_key=True)
    created_at: Mapped[int] = mapped_column(BigInteger)
    # Above every version the room ever sent (reserved ahead, app/rooms/versions.py): a room
    # restored from its last round end continues above it, never below.
    version_ceiling: Mapped[int] = mapped_column(BigInteger, server_default="0")
    active_at: Mapped[int | None] = mapped_column(BigInteger)  # last reservation (ms)


class Match(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    room: Mapped[str] = mapped_column(ForeignKey("rooms.code"), index=True)
    settings: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16))  # "running", "finished" or "abandoned"
    started_at: Mapped[int] = mapped_column(BigInteger)
    ended_at: Mapped[int | None] = mapped_column(BigInteger)
    winner: Mapped[int | None] = mapped_column(Integer)  # a seat


class MatchPlayer(Base):
    """Who sat where in a match, under which name (a name can change between matches)."""

    __tablename__ = "match_players"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    bot: Mapped[bool] = mapped_column(Boolean)


class Round(Base):
    """A completed round; the primary key (match_id, number) is the idempotency key."""

    __tablename__ = "rounds"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    winner: Mapped[int | None] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[int] = mapped_column(BigInteger)
    ended_at: Mapped[int] = mapped_column(BigInteger)
    duration_ms: Mapped[int] = mapped_column(BigInteger)


class RoundPlayer(Base):
    """One seat's result in one round: the points it added, its total after, its cards left."""

    __tablename__ = "round_players"
    __table_args__ = (
        ForeignKeyConstraint(
            ["match_id", "number"],
            ["rounds.match_id", "rounds.number"],
            name="fk_round_players_round",
        ),
    )

    match_id: Mapped[str] = mapped_column(ID, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    points: Mapped[int] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer)  # cumulative after this round
    hand: Mapped[list[Any]]  # the cards left, as on the wire


class MatchScore(Base):
    """The cumulative score of a seat: the totals after the highest round stored so far."""

    __tablename__ = "match_scores"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    score: Mapped[int] = mapped_column(Integer)
    through_round: Mapped[int] = mapped_column(Integer)


class RoomSnapshot(Base):
    """The room state at its latest round end, to restore the room after a restart."""

    __tablename__ = "room_snapshots"

    room: Mapped[str] = mapped_column(ForeignKey("rooms.code"), primary_key=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"))
    number: Mapped[int] = mapped_column(Integer)
    ended_at: Mapped[int] = mapped_column(BigInteger)
    snapshot: Mapped[dict[str, Any]]


class RoomCheckpoint(Base):
    """The room as it stood at `version` a few seconds ago (app/rooms/checkpoints.py): a lobby
    or a round in progress, restored when the shared store (Redis) lost the room. Replaced
    only by a newer version."""

    __tablename__ = "room_checkpoints"

    room: Mapped[str] = mapped_column(ForeignKey("rooms.code"), primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger)
    at: Mapped[int] = mapped_column(BigInteger)
    state: Mapped[dict[str, Any]]  # engine.state_to_json
    meta: Mapped[dict[str, Any]]  # created_at, match_id, members (token digest → member)


class RoomMember(Base):
    """Who holds a credential of a room: the token's SHA-256 (never the token), the player or
    spectator id it stands for, the role and the name. Written when the token is handed out,
    so that a room restored after a restart still knows its players."""

    __tablename__ = "room_members"

    room: Mapped[str] = mapped_column(ForeignKey("rooms.code"), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    member_id: Mapped[str] = mapped_column(ID)
    role: Mapped[str] = mapped_column(String(16))  # "player" or "spectator"
    name: Mapped[str] = mapped_column(String(100))
    joined_at: Mapped[int] = mapped_column(BigInteger)


class Tournament(Base):
    """A tournament's record (the JSON of app/tournaments/records.py), copied at its start and
    at every result, so that it outlives Redis (or, embedded, the process). The version is the
    store's compare-and-set counter: an older copy never overwrites a newer one."""

    __tablename__ = "tournaments"

    code: Mapped[str] = mapped_column(ID, primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), index=True)
    touched_at: Mapped[int] = mapped_column(BigInteger)
    record: Mapped[dict[str, Any]]
