"""Old commits are kept packed (JSON bytes) and read back exactly as they were committed."""

from __future__ import annotations

import gc
import random
from typing import Any

import orjson
import pytest

from app.engine import Join, Start, State, apply, new_table, parse_settings, redact
from app.engine.bot import bot_action
from app.engine.events import Event
from app.store.rooms import FRAMES_KEPT, Commit, MemoryRoomStore, RoomRecord
from app.transport.frames import log_entry

VARIANTS: list[dict[str, Any]] = [
    {},
    {"stack_draw2": True, "stack_draw4": True, "jump_in": True, "seven_zero": True},
    {"variant": "flip"},
    {"custom_wilds": [{"effect": "swap_hands"}, {"effect": "all_others_draw", "n": 2}]},
]
PLAYERS = 4


def _seen(events: list[Event]) -> dict[int, dict[str, Any]]:
    """What every seat and a spectator read of each event, and the welcome log's entry."""
    out: dict[int, dict[str, Any]] = {}
    for e in events:
        reads: dict[str, Any] = {str(seat): redact(e, seat) for seat in range(PLAYERS)}
        reads["spectator"] = redact(e, None)
        reads["log"] = log_entry(e)
        out[e.version] = orjson.loads(orjson.dumps(reads)) | {"python": reads}
    return out


async def _bot_match(
    partial: dict[str, Any], seed: int
) -> tuple[MemoryRoomStore, dict[int, dict[str, Any]]]:
    """A match of four bots committed to a memory store; what was read of each event live."""
    rng = random.Random(seed)
    store = MemoryRoomStore(history_limit=1_000_000, history_max_bytes=1 << 30)
    state = new_table("R1", parse_settings(partial))
    events: list[Event] = []
    for i in range(PLAYERS):
        state, new = apply(state, None, Join(f"P{i}", f"id{i}"), rng, 0)
        events += new
    state, new = apply(state, 0, Start(), rng, 1000)
    events += new
    record = RoomRecord(code="R1", state=state, created_at=0)
    assert await store.create(record, events)
    seen = _seen(events)
    now = 2000
    for _ in range(5000):
        now += 100
        if state.status == "match_over":
            break
        if state.status == "round_over":
            action: Any = Start()
            seat: int | None = state.host
        else:
            seat, action = next(
                ((s, a) for s in range(PLAYERS) if (a := bot_action(state, s, rng)) is not None),
                (None, None),
            )
            assert action is not None, "no bot has anything to do"
        expected = state.version
        state, events = apply(state, seat, action, rng, now)
        seen |= _seen(events)
        record.state = state
        assert await store.commit("R1", expected, record, events)
    return store, seen


@pytest.mark.parametrize("partial", VARIANTS)
async def test_packed_commits_read_exactly_as_committed(partial: dict[str, Any]) -> None:
    store, seen = await _bot_match(partial, seed=len(str(partial)))
    commits = await store.commits_since("R1", 0)
    assert commits is not None and len(commits) > 50
    assert all(c.packed for c in commits[:-FRAMES_KEPT])
    assert not any(c.packed for c in commits[-FRAMES_KEPT:])
    read = await store.events_since("R1", 0)
    assert read is not None
    assert [e.version for e in read] == sorted(seen) == list(range(1, len(seen) + 1))
    for event in read:
        now_seen = _seen([event])[event.version]
        then = seen[event.version]
        # The same Python values for every seat, the spectator and the welcome log...
        assert now_seen.pop("python") == then.pop("python"), event.kind
        # ...and the same bytes on the wire.
        assert orjson.dumps(now_seen) == orjson.dumps(then), event.kind
    # A read builds events for the reader and leaves the history packed.
    assert all(c.packed for c in commits[:-FRAMES_KEPT])


def _counted(obj: object) -> bool:
    """Tracked, and the room's own: a class (and what it reaches) belongs to the process."""
    return gc.is_tracked(obj) and not isinstance(obj, type)


def _tracked_by(objects: list[object]) -> int:
    """The GC-tracked objects reachable from `objects` (what a collection walks)."""
    seen: set[int] = set()
    stack = [o for o in objects if _counted(o)]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        stack.extend(r for r in gc.get_referents(obj) if _counted(r) and id(r) not in seen)
    return len(seen)


def _events(first: int, last: int) -> list[Event]:
    return [
        Event("card_played", v, {"seat": 1, "card": {"id": v, "color": "red"}}, {1: {"hand": [v]}})
        for v in range(first, last + 1)
    ]


def test_a_packed_commit_is_one_tracked_object() -> None:
    commit = Commit(_events(1, 3), None)
    unpacked = _tracked_by([commit])
    commit.pack()
    assert commit.packed
    assert _tracked_by([commit]) == 1 < unpacked
    assert [e.public for e in commit.events] == [e.public for e in _events(1, 3)]
    assert [e.private for e in commit.events] == [e.private for e in _events(1, 3)]
    assert _tracked_by([commit]) == 1


async def test_the_history_tracks_few_objects_per_commit() -> None:
    store = MemoryRoomStore(history_limit=10_000, history_max_bytes=1 << 30)
    state: State = new_table("R1", parse_settings({}))
    record = RoomRecord(code="R1", state=state, created_at=0)
    await store.create(record, [])
    for v in range(1, 201):
        state.version = v  # one state shared by every commit: only the events are counted
        assert await store.commit("R1", v - 1, record, _events(v, v))
    commits = await store.commits_since("R1", 0)
    assert commits is not None and len(commits) == 200
    # Two unpacked commits with their events, the rest one object each.
    assert _tracked_by(list(commits)) - _tracked_by([state]) <= 200 + 2 * 10
