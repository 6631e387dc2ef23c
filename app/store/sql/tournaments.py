"""The database copy of tournament records (table `tournaments`): written at a tournament's
start and at every table result, read when the primary store (Redis, or the embedded process's
memory) no longer has the tournament."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.store.sql.models import Tournament
from app.store.sql.upsert import insert_for


def _table(model: type[Any]) -> Table:
    table: Table = model.__table__
    return table


TABLE = _table(Tournament)


class SqlTournamentArchive:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def put(
        self, code: str, version: int, status: str, touched_at: int, record: dict[str, Any]
    ) -> None:
        """Keep this copy unless a newer one (a higher version) is there already."""
        async with self.engine.begin() as conn:
            insert = insert_for(conn, TABLE).values(
                code=code, version=version, status=status, touched_at=touched_at, record=record
            )
            excluded = insert.excluded
            await conn.execute(
                insert.on_conflict_do_update(
                    index_elements=[TABLE.c.code],
                    set_={
                        "version": excluded.version,
                        "status": excluded.status,
                        "touched_at": excluded.touched_at,
                        "record": excluded.record,
                    },
                    where=TABLE.c.version < excluded.version,
                )
            )

    async def get(self, code: str) -> tuple[int, dict[str, Any]] | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(TABLE.c.version, TABLE.c.record).where(TABLE.c.code == code)
                )
            ).first()
        return None if row is None else (int(row[0]), dict(row[1]))

    async def running(self) -> list[str]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(TABLE.c.code).where(TABLE.c.status == "running"))
        return [str(r[0]) for r in rows]
