"""The embedded mode's room checkpoints on SQLite: CPU per checkpoint, and what encoding the
state first with orjson saves against handing the database's JSON column the state's dict.

`--rooms` four-seat rooms are created and dealt through the app's own RoomService (built by
`create_app` on a private SQLite file, checkpoints off), a few random legal moves in. Then the
same rooms are checkpointed `--passes` times each way, alternating, through the recorder's
`checkpoint` as the checkpointer calls it (batches of 200), after one warm-up pass that
inserts every room's row:
- baseline "column json": the state as `engine.state_to_json`'s dict, which the JSON column
  encodes with the standard library (what the checkpointer did before 2026-12-06);
- "orjson first": the state encoded by orjson before it goes in (what it does now).
Prints this process's CPU per checkpoint for each and their ratio (the database's own work is
in the same process: aiosqlite's thread).

    .venv/bin/python bench/checkpoints.py [--rooms 2000] [--passes 3]

Writes only to a temporary directory, which it deletes.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import room_path  # noqa: E402

from app import engine  # noqa: E402
from app.main import create_app  # noqa: E402
from app.rooms.service import RoomService  # noqa: E402
from app.settings import AppSettings  # noqa: E402
from app.store.recorder import RoomCheckpoint  # noqa: E402
from app.store.rooms import RoomRecord  # noqa: E402

BATCH = 200  # as app/rooms/checkpoints.py


def _column_json(record: RoomRecord) -> Any:
    return engine.state_to_json(record.state)


def _orjson_first(record: RoomRecord) -> Any:
    return orjson.dumps(engine.state_to_json(record.state), option=orjson.OPT_NON_STR_KEYS)


async def _pass(
    service: RoomService,
    records: list[RoomRecord],
    encode: Callable[[RoomRecord], Any],
    bump: int,
) -> float:
    """CPU seconds per checkpoint of one pass over `records` (stored `bump` versions ahead of
    the rooms' own, so that each pass's upsert replaces the one before)."""
    start = time.process_time()
    for i in range(0, len(records), BATCH):
        batch = [
            RoomCheckpoint(
                room=r.code,
                version=r.version + bump,
                state=encode(r),
                created_at=r.created_at,
                match_id=r.match_id,
                members={d: (m.member_id, m.role, m.name) for d, m in r.members.items()},
                at=service.clock(),
            )
            for r in records[i : i + BATCH]
        ]
        await service.recorder.checkpoint(batch)
    return (time.process_time() - start) / len(records)


async def main(rooms: int, passes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/bench.db"
        app = create_app(AppSettings(database_url=url, embedded_checkpoint_seconds=0))
        service: RoomService = app.state.rooms
        async with app.router.lifespan_context(app):
            seated = await room_path._seat_rooms(service, rooms)
            rng = random.Random(1)
            until = time.monotonic() + 1.0
            await asyncio.gather(*(room_path._play(service, r, w, rng, until) for r, w in seated))
            records = [rec for r, _ in seated if (rec := await service.store.load(r))]
            results: dict[str, list[float]] = {"column json": [], "orjson first": []}
            ways = (("column json", _column_json), ("orjson first", _orjson_first))
            # A warm-up pass (not counted): the first write of each room's row is an insert.
            await _pass(service, records, _orjson_first, 1)
            bump = 1
            for n in range(passes):
                for name, encode in ways:
                    bump += 1
                    results[name].append(await _pass(service, records, encode, bump))
                    print(f"pass {n + 1} {name}: {results[name][-1] * 1e6:.0f} us per checkpoint")
    base = statistics.median(results["column json"])
    now = statistics.median(results["orjson first"])
    print(f"median: column json {base * 1e6:.0f} us, orjson first {now * 1e6:.0f} us")
    print(f"ratio orjson first / column json: {now / base:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=2000)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.rooms, args.passes))
