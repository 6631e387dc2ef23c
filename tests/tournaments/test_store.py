"""The in-memory tournament store keeps the store contract (tests/tournaments/store_contract.py;
the same checks run on Redis in tests/on_redis/test_tournament_store.py), and the database
copy on SQLite: written at results only, never overwritten by an older version, and the
source a lost tournament comes back from."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from app.store.sql.engine import make_engine
from app.store.sql.migrate import upgrade_to_head
from app.store.sql.tournaments import SqlTournamentArchive
from app.tournaments.archive import ArchivedStore
from app.tournaments.records import to_json
from app.tournaments.store import MemoryTournamentStore, TournamentStore

from .store_contract import CONTRACT, record, running


@pytest.mark.parametrize("check", CONTRACT, ids=lambda c: c.__name__)
async def test_memory_store(check: Callable[[TournamentStore], Awaitable[None]]) -> None:
    await check(MemoryTournamentStore())


@pytest.fixture
async def archive(tmp_path: Path) -> AsyncIterator[SqlTournamentArchive]:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    await upgrade_to_head(engine)
    yield SqlTournamentArchive(engine)
    await engine.dispose()


@pytest.mark.parametrize("check", CONTRACT, ids=lambda c: c.__name__)
async def test_archived_memory_store(
    check: Callable[[TournamentStore], Awaitable[None]], archive: SqlTournamentArchive
) -> None:
    await check(ArchivedStore(MemoryTournamentStore(), archive))


async def test_the_copy_is_written_at_results_and_restores_a_lost_tournament(
    archive: SqlTournamentArchive,
) -> None:
    store = ArchivedStore(MemoryTournamentStore(), archive)
    r = running()
    assert await store.create(r)
    assert await archive.get(r.code) is None  # created: nothing to keep yet
    r.name = "Cup 2"
    assert await store.save(r)  # not a result: the database is not written
    assert await archive.get(r.code) is None
    assert await store.save(r, durable=True) and r.version == 3
    assert await archive.get(r.code) == (3, to_json(r))
    await archive.put(r.code, 2, "running", 0, to_json(record(r.code)))  # an older copy
    assert await archive.get(r.code) == (3, to_json(r))  # ... does not overwrite it

    # Every process restarted (or Redis flushed): the primary store is empty.
    fresh = ArchivedStore(MemoryTournamentStore(), archive)
    assert await fresh.store.load(r.code) is None
    assert await fresh.running() == [r.code]  # the scan finds it again
    back = await fresh.load(r.code)
    assert back is not None and back.version == 3 and to_json(back) == to_json(r)
    # ...and it goes on from there by compare-and-set, like any record.
    back.tables["R2"].status = "finished"
    assert await fresh.save(back, durable=True) and back.version == 4
    stale = await archive.get(r.code)
    assert stale is not None and stale[0] == 4
    assert await fresh.load("unknown") is None
