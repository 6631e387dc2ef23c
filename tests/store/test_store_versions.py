"""Issue 11, finding 11: after a restart a room's versions go on above the last one it sent
(a recorded version ceiling, app/rooms/versions.py), and the database forgets idle rooms and
marks lost matches `abandoned` (retention, recorder.prune). SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from e2e.harness import running_server

from app.rooms.versions import VERSION_BLOCK
from app.store.recorder import MemberRecord
from app.store.sql.models import Room, RoomMember, RoomSnapshot
from app.store.sql.recorder import SqlRecorder

from .conftest import Database
from .helpers import count_rows, match_rounds, wait_until_delivered
from .test_store_restart import SETTINGS, _know, _server, play_round

DAY = 86_400_000


async def test_a_restored_room_goes_on_above_the_last_version_it_sent(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No checkpoints: the room comes back from its round-1 snapshot, as after a crash that
    # lost everything since (a stop on purpose would checkpoint round 2 in progress).
    config = _server(database, monkeypatch).model_copy(update={"embedded_checkpoint_seconds": 0.0})
    async with running_server(config) as server:
        ann = await server.create_room("Ann", SETTINGS)
        room = ann["room"]
        bob = await server.join(room, "Bob")
        ann_c = await server.connect(room, ann["token"])
        bob_c = await server.connect(room, bob["token"])
        assert (await ann_c.act("start"))["type"] == "ack"
        await play_round(ann_c, bob_c)
        at_round_end = ann_c.version
        # The next round is under way (and lost with the server): well past the snapshot.
        assert (await ann_c.act("start"))["type"] == "ack"
        for i in range(VERSION_BLOCK + 20):  # more than one reserved block
            assert (await ann_c.act("chat", text=f"m{i}"))["type"] == "ack"
        top = ann_c.version
        assert top > at_round_end + VERSION_BLOCK
    tokens = {ann["token"]: ann["seat"], bob["token"]: bob["seat"]}

    async with running_server(config) as server:
        _know(server, tokens)
        summary = await server.summary(room)  # restored from the round-1 snapshot
        assert summary["status"] == "round_over" and summary["round"] == 1
        assert summary["version"] > top  # not back to the snapshot's (at_round_end + a few)
        again = await server.connect(room, ann["token"], since=top)
        assert again.version > top
        assert (await again.act("chat", text="back"))["type"] == "ack"
        assert again.version > top


async def test_ceilings_only_go_up(database: Database) -> None:
    recorder = database.recorder()
    await recorder.start()
    assert await recorder.version_ceiling("R1") == 0
    await recorder.versions_reserved("R1", 300, 1)
    await recorder.versions_reserved("R1", 200, 2)  # late or out of order: ignored
    assert await recorder.version_ceiling("R1") == 300  # queued writes count at once
    await wait_until_members_written(recorder)
    await recorder.versions_reserved("R1", 100, 3)
    await wait_until_members_written(recorder)
    fresh = database.recorder(migrate=False)  # what the database alone says
    await fresh.start()
    assert await fresh.version_ceiling("R1") == 300


async def wait_until_members_written(recorder: SqlRecorder) -> None:
    async with asyncio.timeout(10):
        while len(recorder.members):
            await asyncio.sleep(0.02)


async def test_retention_forgets_idle_rooms_and_abandons_lost_matches(
    database: Database,
) -> None:
    recorder = database.recorder()
    await recorder.start()
    now = 1_764_450_000_000 + 60 * DAY
    # An old room with a match that stopped after round 1 (the room was lost) ...
    lost = match_rounds([(10, 0, 0)], match_id="m-lost", room="OLD")
    # ... one that finished long ago, and a room with a recent match in progress.
    done = match_rounds([(10, 0, 0), (0, 5, 0)], match_id="m-done", room="DONE", finished=True)
    live = [
        dataclasses.replace(r, started_at=now - 1000, ended_at=now - 500)
        for r in match_rounds([(10, 0, 0)], match_id="m-live", room="LIVE")
    ]
    for r in (*lost, *done, *live):
        await recorder.round_completed(r)
    await wait_until_delivered(recorder)
    members = [
        MemberRecord("OLD", "a" * 64, "p1", "player", "A", now - 40 * DAY),
        MemberRecord("SPAM", "b" * 64, "p2", "player", "B", now - 40 * DAY),
        MemberRecord("LIVE", "c" * 64, "p3", "player", "C", now - 1000),
        MemberRecord("NEW", "d" * 64, "p4", "player", "D", now - 2 * DAY),
    ]
    for m in members:
        await recorder.member_added(m)
    await wait_until_members_written(recorder)

    forgotten, abandoned = await recorder.prune(now - 30 * DAY, now - DAY // 4)
    assert abandoned == 1
    assert forgotten == 3  # OLD, DONE and SPAM
    body = await recorder.get_match("m-lost")
    assert body is not None and body["status"] == "abandoned"
    assert [r["number"] for r in body["rounds"]] == [1]  # the record itself stays
    assert (await recorder.get_match("m-done") or {})["status"] == "finished"
    assert (await recorder.get_match("m-live") or {})["status"] == "running"
    for room, left in (("OLD", 0), ("SPAM", 0), ("LIVE", 1), ("NEW", 1)):
        assert len(await recorder.room_members(room)) == left, room
    assert await recorder.latest_snapshot("OLD") is None
    assert await recorder.latest_snapshot("LIVE") is not None
    assert await count_rows(recorder, RoomSnapshot, "DONE", column="room") == 0
    assert await count_rows(recorder, RoomMember, "SPAM", column="room") == 0
    assert await count_rows(recorder, Room, "SPAM", column="code") == 0  # no match names it
    assert await count_rows(recorder, Room, "OLD", column="code") == 1  # its match does
    assert await recorder.prune(now - 30 * DAY, now - DAY // 4) == (2, 0)  # idempotent
