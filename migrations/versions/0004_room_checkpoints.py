"""Room checkpoints: a room's state every few seconds of activity (a lobby or a round in
progress), restored when the shared store (Redis) lost the room.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 18:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_checkpoints",
        sa.Column("room", sa.String(length=64), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["room"], ["rooms.code"], name=op.f("fk_room_checkpoints_room_rooms")
        ),
        sa.PrimaryKeyConstraint("room", name=op.f("pk_room_checkpoints")),
    )


def downgrade() -> None:
    op.drop_table("room_checkpoints")
