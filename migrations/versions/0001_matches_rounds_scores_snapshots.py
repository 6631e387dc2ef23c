"""Matches, rounds, per-seat results, cumulative scores and room snapshots.

Revision ID: 0001
Revises:
Create Date: 2026-11-29 23:55:31.322946
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("first_seen_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_rooms")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("room", sa.String(length=64), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("started_at", sa.BigInteger(), nullable=False),
        sa.Column("ended_at", sa.BigInteger(), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["room"], ["rooms.code"], name=op.f("fk_matches_room_rooms")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index(op.f("ix_matches_room"), "matches", ["room"], unique=False)
    op.create_table(
        "match_players",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_match_players_match_id_matches")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_match_players_player_id_players")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_players")),
    )
    op.create_index(
        op.f("ix_match_players_player_id"), "match_players", ["player_id"], unique=False
    )
    op.create_table(
        "match_scores",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("through_round", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_match_scores_match_id_matches")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_match_scores_player_id_players")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_scores")),
    )
    op.create_index(op.f("ix_match_scores_player_id"), "match_scores", ["player_id"], unique=False)
    op.create_table(
        "room_snapshots",
        sa.Column("room", sa.String(length=64), nullable=False),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("ended_at", sa.BigInteger(), nullable=False),
        sa.Column("snapshot", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_room_snapshots_match_id_matches")
        ),
        sa.ForeignKeyConstraint(
            ["room"], ["rooms.code"], name=op.f("fk_room_snapshots_room_rooms")
        ),
        sa.PrimaryKeyConstraint("room", name=op.f("pk_room_snapshots")),
    )
    op.create_table(
        "rounds",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("started_at", sa.BigInteger(), nullable=False),
        sa.Column("ended_at", sa.BigInteger(), nullable=False),
        sa.Column("duration_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_rounds_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", "number", name=op.f("pk_rounds")),
    )
    op.create_table(
        "round_players",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("hand", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id", "number"],
            ["rounds.match_id", "rounds.number"],
            name="fk_round_players_round",
        ),
        sa.PrimaryKeyConstraint("match_id", "number", "seat", name=op.f("pk_round_players")),
    )


def downgrade() -> None:
    op.drop_table("round_players")
    op.drop_table("rounds")
    op.drop_table("room_snapshots")
    op.drop_index(op.f("ix_match_scores_player_id"), table_name="match_scores")
    op.drop_table("match_scores")
    op.drop_index(op.f("ix_match_players_player_id"), table_name="match_players")
    op.drop_table("match_players")
    op.drop_index(op.f("ix_matches_room"), table_name="matches")
    op.drop_table("matches")
    op.drop_table("rooms")
    op.drop_table("players")
