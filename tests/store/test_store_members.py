"""Room members (hashed credentials) in the match database: written in the background, never
twice, and still written when they were handed out during a database outage."""

from __future__ import annotations

import asyncio

from app.store.recorder import MemberRecord
from app.store.sql.models import RoomMember
from app.store.sql.recorder import SqlRecorder

from .conftest import Database
from .helpers import count_rows
from .test_store_outage import TIMEOUTS, Outage

ANN = MemberRecord("ROOM1", "a" * 64, "p_ann", "player", "Ann", 1_764_450_000_000)
EVE = MemberRecord("ROOM1", "e" * 64, "s_eve", "spectator", "Eve", 1_764_450_001_000)
OTHER = MemberRecord("ROOM2", "b" * 64, "p_bob", "player", "Bob", 1_764_450_002_000)


async def _until_written(recorder: SqlRecorder, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while len(recorder.members):
            await asyncio.sleep(0.02)


async def test_members_are_written_once_per_room(database: Database) -> None:
    recorder = database.recorder()
    await recorder.start()
    for member in (ANN, EVE, OTHER, ANN):  # a repeat changes nothing
        await recorder.member_added(member)
    await _until_written(recorder)
    await recorder.member_added(ANN)  # already in the database
    await _until_written(recorder)
    assert await recorder.room_members("ROOM1") == [ANN, EVE]
    assert await recorder.room_members("ROOM2") == [OTHER]
    assert await recorder.room_members("ROOM3") == []
    assert await count_rows(recorder, RoomMember, "ROOM1", column="room") == 2


async def test_members_handed_out_during_an_outage_are_written_when_it_ends(
    database: Database,
) -> None:
    outage = Outage(database)
    url = await outage.open()
    recorder = database.recorder(url, **TIMEOUTS)
    await recorder.start()
    try:
        await outage.cut()
        loop = asyncio.get_running_loop()
        began = loop.time()
        await recorder.member_added(ANN)
        await recorder.member_added(EVE)
        assert loop.time() - began < 0.05  # a join never waits for the database
        await asyncio.sleep(0.8)  # the writer tries and fails meanwhile
        assert len(recorder.members) == 2
        if database.kind == "sqlite":  # reads still work there: queued members are included
            assert await recorder.room_members("ROOM1") == [ANN, EVE]
        await outage.restore()
        await _until_written(recorder)
        assert await recorder.room_members("ROOM1") == [ANN, EVE]
        assert await count_rows(recorder, RoomMember, "ROOM1", column="room") == 2
    finally:
        await outage.close()
