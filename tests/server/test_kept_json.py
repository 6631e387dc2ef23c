"""JSON kept for long is sized to its content (app/kept_json.py): orjson's own `bytes` hold its
whole output buffer, 4 KiB at least, which a room's history of packed commits multiplied."""

from __future__ import annotations

import tracemalloc

import orjson

from app.engine import new_table, parse_settings
from app.engine.events import Event
from app.kept_json import dumps_kept, kept
from app.store.rooms import MemoryRoomStore, RoomRecord


def _allocated(make: object) -> int:
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        held = make()  # type: ignore[operator]
        after = tracemalloc.take_snapshot()
        del held
        return sum(s.size_diff for s in after.compare_to(before, "filename"))
    finally:
        tracemalloc.stop()


def test_a_kept_copy_is_the_size_of_its_content() -> None:
    value = {"kind": "card_played", "card": 17, "text": "x" * 100}
    assert dumps_kept(value) == orjson.dumps(value)
    blob = orjson.dumps(value)
    assert kept(blob) == blob and kept(blob) is not blob
    per_kept = _allocated(lambda: [dumps_kept([i, value]) for i in range(200)]) / 200
    assert per_kept < 400, per_kept  # ~150 bytes of JSON and the object's header


async def test_a_rooms_old_commits_hold_about_their_json() -> None:
    store = MemoryRoomStore(history_limit=10_000, history_max_bytes=1 << 30)
    record = RoomRecord(code="r1", state=new_table("r1", parse_settings({})), created_at=0)
    await store.create(record, [])

    async def fill() -> None:
        for v in range(1, 301):
            expected = record.state.version
            event = Event("chat", v, {"text": "hello"}, {})
            event.after = record.state.clone()
            event.after.version = v
            record.state = event.after
            assert await store.commit("r1", expected, record, [event])

    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        await fill()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    # A packed chat commit is ~50 bytes of JSON; orjson's buffer alone would be 4 KiB each.
    assert grown < 300 * 1024, grown
