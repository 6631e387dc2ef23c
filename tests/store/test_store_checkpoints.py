"""Room checkpoints in the database (app/rooms/checkpoints.py): a checkpoint is replaced only by
a newer version, whatever order several processes' writes land in; a batch holding one room
twice keeps the newer; idle rooms' checkpoints go with retention. SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses

from app.store.recorder import MemoryRecorder, RoomCheckpoint

from .conftest import Database

DAY = 86_400_000


def _checkpoint(room: str, version: int, at: int = 1_000) -> RoomCheckpoint:
    return RoomCheckpoint(
        room=room,
        version=version,
        state={"version": version, "marker": f"v{version}"},
        created_at=500,
        match_id=None,
        members={"d" * 64: ("p_1", "player", "Ann")},
        at=at,
    )


async def test_an_older_checkpoint_never_replaces_a_newer_one(database: Database) -> None:
    recorder = database.recorder()
    await recorder.start()
    assert await recorder.latest_checkpoint("R1") is None
    await recorder.checkpoint([_checkpoint("R1", 10), _checkpoint("R2", 3)])
    await recorder.checkpoint([_checkpoint("R1", 7)])  # a slower process's older one
    await recorder.checkpoint([_checkpoint("R1", 12), _checkpoint("R1", 11)])
    stored = await recorder.latest_checkpoint("R1")
    assert stored is not None
    assert (stored.version, stored.state["marker"]) == (12, "v12")
    assert stored.members == {"d" * 64: ("p_1", "player", "Ann")}
    assert stored.created_at == 500 and stored.match_id is None
    other = await recorder.latest_checkpoint("R2")
    assert other is not None and other.version == 3
    await recorder.checkpoint([_checkpoint("R1", 12)])  # the same version again: no change
    again = await recorder.latest_checkpoint("R1")
    assert again is not None and again.version == 12


async def test_a_state_encoded_already_is_stored_as_it_is(database: Database) -> None:
    """A shared store's checkpoint hands on the JSON its commit sent (bytes): stored as that
    JSON, read back decoded like any other."""
    recorder = database.recorder()
    await recorder.start()
    encoded = dataclasses.replace(
        _checkpoint("R1", 9), state=b'{"version":9,"marker":"v9","hands":[[1,2],[]]}'
    )
    await recorder.checkpoint([encoded])
    stored = await recorder.latest_checkpoint("R1")
    assert stored is not None and stored.version == 9
    assert stored.state == {"version": 9, "marker": "v9", "hands": [[1, 2], []]}
    await recorder.checkpoint([_checkpoint("R1", 10)])  # and the decoded form still works
    newer = await recorder.latest_checkpoint("R1")
    assert newer is not None and newer.state == {"version": 10, "marker": "v10"}


async def test_retention_forgets_idle_rooms_checkpoints(database: Database) -> None:
    recorder = database.recorder()
    await recorder.start()
    now = 100 * DAY
    await recorder.checkpoint([_checkpoint("OLD", 5, at=now - 40 * DAY)])
    await recorder.prune(now - 30 * DAY, now - DAY)
    assert await recorder.latest_checkpoint("OLD") is None


async def test_the_memory_recorder_keeps_the_newest_too() -> None:
    recorder = MemoryRecorder()
    await recorder.checkpoint([_checkpoint("R1", 4)])
    await recorder.checkpoint([dataclasses.replace(_checkpoint("R1", 2), state={})])
    stored = await recorder.latest_checkpoint("R1")
    assert stored is not None and stored.version == 4
    await recorder.checkpoint([dataclasses.replace(_checkpoint("R1", 5), state=b'{"a":[1]}')])
    encoded = await recorder.latest_checkpoint("R1")
    assert encoded is not None and encoded.state == {"a": [1]}
