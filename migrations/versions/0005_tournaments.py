"""Tournaments: each tournament's record, copied at its start and at every table result, so
that it outlives a flushed Redis or a restart of every process.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 19:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("code", sa.String(length=64), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("touched_at", sa.BigInteger(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_tournaments")),
    )
    op.create_index(op.f("ix_tournaments_status"), "tournaments", ["status"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_tournaments_status"), table_name="tournaments")
    op.drop_table("tournaments")
