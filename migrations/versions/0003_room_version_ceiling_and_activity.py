"""Rooms: the version ceiling (no restored room's version goes below what it ever sent) and
the last activity (for the retention of idle rooms' rows).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 15:05:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(
            sa.Column("version_ceiling", sa.BigInteger(), server_default="0", nullable=False)
        )
        batch.add_column(sa.Column("active_at", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("active_at")
        batch.drop_column("version_ceiling")
