"""How many GC-tracked objects a room's history holds, packed and not, and what collections cost.

    .venv/bin/python -m tests.server.heap_census [--rooms 200] [--events 256] [--unpacked]

Plays four-bot matches into a `MemoryRoomStore` (the server's history limit by default) and
prints the tracked objects per room (everything `gc.get_objects()` holds beyond the start, and
what is reachable from the room's history alone), then the CPU time of young and full
collections over that heap. `--unpacked` keeps every commit's events as objects (before
docs/performance.md "Compact history"). Not a test: a measurement kept next to the tests of
the history it measures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import time
from typing import Any

from app.engine import Join, Start, apply, new_table, parse_settings
from app.engine.bot import bot_action
from app.store.rooms import Commit, MemoryRoomStore, RoomRecord


class _Room:
    """A table of four bots committing to the store, one move at a time."""

    def __init__(self, store: MemoryRoomStore, code: str, seed: int) -> None:
        self.store, self.code, self.rng = store, code, random.Random(seed)
        self.state = new_table(code, parse_settings({}))
        self.record: RoomRecord | None = None
        self.now = 2000

    async def open(self) -> int:
        for i in range(4):
            self.state, _ = apply(self.state, None, Join(f"P{i}", f"id{i}"), self.rng, 0)
        self.state, events = apply(self.state, 0, Start(), self.rng, 1000)
        self.record = RoomRecord(code=self.code, state=self.state, created_at=0)
        await self.store.create(self.record, events)
        return len(events)

    async def move(self) -> int:
        """One command's events committed; 0 once the match is over."""
        assert self.record is not None
        self.now += 100
        state, rng = self.state, self.rng
        if state.status == "match_over":
            return 0
        if state.status == "round_over":
            new, events = apply(state, state.host, Start(), rng, self.now)
        else:
            seat, action = next(
                (s, a) for s in range(4) if (a := bot_action(state, s, rng)) is not None
            )
            new, events = apply(state, seat, action, rng, self.now)
        self.record.state = self.state = new
        assert await self.store.commit(self.code, state.version, self.record, events)
        return len(events)


def _counted(obj: object) -> bool:
    """Tracked, and the room's own: a class (and what it reaches) belongs to the process."""
    return gc.is_tracked(obj) and not isinstance(obj, type)


def _tracked_from(roots: list[object]) -> int:
    seen: set[int] = set()
    stack = [o for o in roots if _counted(o)]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        stack.extend(r for r in gc.get_referents(obj) if _counted(r))
    return len(seen)


def _cpu_ms(generation: int) -> float:
    start = time.thread_time()
    gc.collect(generation)
    return (time.thread_time() - start) * 1000


async def main(args: argparse.Namespace) -> dict[str, Any]:
    if args.unpacked:
        Commit.pack = lambda self: None  # type: ignore[method-assign]
    gc.disable()
    gc.collect()
    before = len(gc.get_objects())
    store = MemoryRoomStore(history_limit=args.limit, history_max_bytes=1 << 30)
    rooms = [_Room(store, f"R{n}", seed=n) for n in range(args.rooms)]
    for room in rooms:
        made = await room.open()
        while made < args.events and (more := await room.move()):
            made += more
    gc.collect()
    after = len(gc.get_objects())
    histories = list(store._history.values())
    per_history = _tracked_from(list(histories)) / args.rooms
    events = sum(h._events for h in histories) / args.rooms
    commits = sum(len(h._commits) for h in histories) / args.rooms
    result: dict[str, Any] = {
        "packed": not args.unpacked,
        "rooms": args.rooms,
        "events_per_room": round(events, 1),
        "commits_per_room": round(commits, 1),
        "tracked_per_room_all": round((after - before) / args.rooms, 1),
        "tracked_per_room_history": round(per_history, 1),
        "tracked_total": len(gc.get_objects()),
    }
    # A young collection right after one: what it walks is what was allocated since.
    gc.collect()
    result["young_empty_cpu_ms"] = round(_cpu_ms(0), 2)
    # Steady play, as a server sees it: new commits while old ones leave the histories. The
    # collector's trigger counts allocations minus deallocations, of any generation.
    for n in range(args.moves):
        await rooms[n % len(rooms)].move()
    result["steady_moves"] = args.moves
    result["steady_gen0_count"] = gc.get_count()[0]
    result["steady_gen0_objects"] = len(gc.get_objects(generation=0))
    result["steady_young_cpu_ms"] = round(_cpu_ms(0), 2)
    gc.collect()
    young = [[{"a": i}, (i, [i])] for i in range(args.young // 4)]
    result["young_cpu_ms"] = round(_cpu_ms(0), 2)
    result["young_objects"] = len(young) * 4
    result["full_cpu_ms"] = round(min(_cpu_ms(2) for _ in range(3)), 1)
    gc.freeze()
    result["full_after_freeze_cpu_ms"] = round(_cpu_ms(2), 1)
    gc.unfreeze()
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--events", type=int, default=256, help="events played per room")
    parser.add_argument("--limit", type=int, default=256, help="the history's event limit")
    parser.add_argument("--young", type=int, default=50_000, help="young objects to collect")
    parser.add_argument("--moves", type=int, default=5000, help="steady moves then")
    parser.add_argument("--unpacked", action="store_true", help="keep every commit unpacked")
    print(asyncio.run(main(parser.parse_args())))
