"""Room members: the hashed credentials of a room's players and spectators, so that a room
restored after a restart lets them back in.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 01:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_members",
        sa.Column("room", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("member_id", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("joined_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["room"], ["rooms.code"], name=op.f("fk_room_members_room_rooms")),
        sa.PrimaryKeyConstraint("room", "token_hash", name=op.f("pk_room_members")),
    )


def downgrade() -> None:
    op.drop_table("room_members")
