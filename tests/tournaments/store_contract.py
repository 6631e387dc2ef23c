"""What every TournamentStore does (memory, Redis, with or without the database copy): run
by tests/tournaments/test_store.py on the memory store and tests/on_redis/ on Redis."""

from __future__ import annotations

import asyncio
import secrets

from app.tournaments.core import Placing, RoundSpec, TableSpec
from app.tournaments.records import EntrantRecord, TableRecord, TournamentRecord, to_json
from app.tournaments.store import TournamentStore


def record(code: str | None = None) -> TournamentRecord:
    return TournamentRecord(
        code=code or secrets.token_urlsafe(8),
        name="Cup",
        host_name="Ayşe",
        host_hash="h" * 64,
        format="elimination",
        table_size=2,
        advance=1,
        swiss_rounds=3,
        match={"rounds": 1},
        fill_with_bots=False,
        settings={"max_players": 2},
        grace_seconds=5.0,
        created_at=1_800_000_000_000,
    )


def running(code: str | None = None) -> TournamentRecord:
    """A started tournament: a round with a finished table and one still playing."""
    r = record(code)
    for i in range(4):
        r.entrants[f"e{i}"] = EntrantRecord(f"e{i}", f"P{i}", f"{i}" * 64)
    r.status = "running"
    r.rounds.append(
        RoundSpec(
            1,
            [
                TableSpec(["e0", "e1"], [Placing("e1", 1, 1), Placing("e0", 0, 2)], "R1"),
                TableSpec(["e2", "e3"], None, "R2"),
            ],
        )
    )
    r.tables["R1"] = TableRecord("R1", {"e0": "p0", "e1": "p1"}, status="finished")
    r.tables["R2"] = TableRecord("R2", {"e2": "p2", "e3": "p3"}, status="playing", look_at=7)
    return r


async def create_load_and_copies(store: TournamentStore) -> None:
    original = running()
    assert await store.create(original)
    assert original.version == 1
    assert not await store.create(running(original.code))  # the code is taken
    loaded = await store.load(original.code)
    assert loaded is not None and loaded.version == 1
    assert to_json(loaded) == to_json(original)  # every field, the round results included
    loaded.name = "changed, not saved"
    again = await store.load(original.code)
    assert again is not None and again.name == "Cup"  # a load is the caller's own copy
    assert await store.load("nope") is None


async def compare_and_set(store: TournamentStore) -> None:
    r = record()
    assert await store.create(r)
    first, second = await store.load(r.code), await store.load(r.code)
    assert first is not None and second is not None
    first.name, second.name = "First", "Second"
    assert await store.save(first) and first.version == 2
    assert not await store.save(second) and second.version == 1  # lost: nothing written
    stored = await store.load(r.code)
    assert stored is not None and (stored.name, stored.version) == ("First", 2)
    stored.name = "Third"
    assert await store.save(stored, durable=True) and stored.version == 3
    ghost = record("never-created")
    assert not await store.save(ghost)  # no compare-and-set onto nothing
    assert await store.load(ghost.code) is None


async def concurrent_writers_lose_nothing(store: TournamentStore) -> None:
    r = record()
    assert await store.create(r)

    async def register(i: int) -> int:
        tries = 0
        while True:
            tries += 1
            mine = await store.load(r.code)
            assert mine is not None
            await asyncio.sleep(0)  # let the others load the same version
            mine.entrants[f"e{i}"] = EntrantRecord(f"e{i}", f"P{i}", "x" * 64)
            if await store.save(mine):
                return tries

    tries = await asyncio.gather(*(register(i) for i in range(12)))
    final = await store.load(r.code)
    assert final is not None
    assert sorted(final.entrants) == sorted(f"e{i}" for i in range(12))
    assert final.version == 13  # one version per write that won
    assert max(tries) > 1  # they did collide


async def codes_running_and_delete(store: TournamentStore) -> None:
    waiting, playing = record(), running()
    assert await store.create(waiting) and await store.create(playing)
    assert {waiting.code, playing.code} <= set(await store.codes())
    assert playing.code in await store.running() and waiting.code not in await store.running()
    playing.status = "finished"
    assert await store.save(playing)
    assert playing.code not in await store.running()
    waiting.status = "running"
    assert await store.save(waiting)
    assert waiting.code in await store.running()
    await store.delete(waiting.code)
    assert await store.load(waiting.code) is None
    assert waiting.code not in await store.codes() and waiting.code not in await store.running()


async def leases(store: TournamentStore) -> None:
    code = secrets.token_urlsafe(8)
    assert await store.lease(code, "A", 10_000)
    assert not await store.lease(code, "B", 10_000)
    assert await store.lease(code, "A", 10_000)  # renewed by its holder
    await store.release(code, "B")  # not B's to release
    assert not await store.lease(code, "B", 10_000)
    await store.release(code, "A")
    assert await store.lease(code, "B", 150)
    await asyncio.sleep(0.3)  # B died holding it: the lease runs out
    assert await store.lease(code, "A", 10_000)


CONTRACT = [
    create_load_and_copies,
    compare_and_set,
    concurrent_writers_lose_nothing,
    codes_running_and_delete,
    leases,
]
