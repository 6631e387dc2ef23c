"""The in-memory recorder (no database configured) keeps the same promises, in memory."""

from __future__ import annotations

import dataclasses

from app.store.matches import create_recorder
from app.store.recorder import MemoryRecorder

from .helpers import expected_body, match_rounds

POINTS = [(30, 0, 0), (0, 12, 0), (41, 0, 0)]


async def test_memory_recorder_is_chosen_without_a_database() -> None:
    assert isinstance(create_recorder(None), MemoryRecorder)
    assert isinstance(create_recorder("memory://"), MemoryRecorder)


async def test_memory_recorder_keeps_a_round_once_and_the_latest_snapshot() -> None:
    recorder = MemoryRecorder()
    records = match_rounds(POINTS)
    for r in records:
        await recorder.round_completed(r)
        await recorder.round_completed(dataclasses.replace(r, points=(9, 9, 9)))  # a repeat
    assert await recorder.get_match("match-1") == expected_body(records, finished=False)
    assert await recorder.latest_snapshot("ROOM1") == records[-1].snapshot
    assert await recorder.latest_snapshot("NOPE") is None
    final = dataclasses.replace(records[-1], match_over=True, match_winner=0)
    await recorder.round_completed(final)
    finished = expected_body([*records[:-1], final], finished=True)
    assert await recorder.get_match("match-1") == finished
