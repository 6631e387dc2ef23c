"""The room path alone, never idle: CPU per move of `RoomService.submit` on the memory store
against the Redis store, in one process, with no sockets and no load generator.

`--rooms` rooms of 4 seats each play full rounds of random legal moves concurrently (every
room submits its next move as soon as the previous one is committed), through the app's own
`RoomService` built by `create_app` (so with the checkpointer, presence, wake-up poller and
round stream on Redis). Each room's bus subscription is held, as the hub would hold it for
the room's sockets, so that the Redis store applies commands on the record it holds.

Measures this process's CPU time per move (user + system) over `--seconds`, alternating
memory and Redis `--pairs` times, and prints each ratio and their median: the part of the
two-process gap of bench/scale_out.py that is the room path's own Python, measured away from
the sockets' writes and the other processes' contention. `--profile FILE` writes a cProfile
of the first Redis run and FILE with `.memory` before its suffix of the first memory run
(call counts per move show what the Redis path adds).

    .venv/bin/python bench/room_path.py [--rooms 50] [--seconds 5] [--pairs 3] [--json]
        [--redis-url redis://127.0.0.1:6379/0] [--profile /tmp/room_path.prof]

Uses a private key prefix on the given Redis (deleted afterwards); talks only to that URL,
which must be a loopback address.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import gc_tuning  # noqa: E402
from app.engine import legal_actions  # noqa: E402
from app.main import create_app  # noqa: E402
from app.rooms.commands import Command  # noqa: E402
from app.rooms.service import Identity, RoomService  # noqa: E402
from app.settings import AppSettings  # noqa: E402

SEATS = 4


async def _seat_rooms(service: RoomService, rooms: int) -> list[tuple[str, list[Identity]]]:
    made: list[tuple[str, list[Identity]]] = []
    for _ in range(rooms):
        host = await service.create_room("P0", {})
        who = [Identity(host.player_id, "player", 0)]
        for i in range(1, SEATS):
            joined = await service.join(host.room, f"P{i}")
            who.append(Identity(joined.player_id, "player", i))
        made.append((host.room, who))
    return made


async def _drain(notices: Any) -> None:
    async for _ in notices:
        pass


async def _play(
    service: RoomService, room: str, who: list[Identity], rng: random.Random, until: float
) -> int:
    from app.engine import actions as act

    # What a client holds (its last view), not a read of the store: the Redis store's
    # `held` is its newest record, without a round trip.
    held = getattr(service.store, "held", None)
    moves = 0
    serial = 0
    while time.monotonic() < until:
        record = held(room) if held is not None else await service.store.load(room)
        assert record is not None
        state = record.state
        if state.status == "playing":
            seat = state.turn
            action = rng.choice(legal_actions(state, seat))
        else:
            # The host deals the next round (or match) at once rather than waiting for the
            # timer: a room that finished its round within the warm-up would sit the
            # window out, and a fast run measured no move at all.
            seat, action = 0 if state.host is None else state.host, act.Start()
        serial += 1
        command = Command("play", f"c{serial}", state.version, action)
        outcome = await service.submit(room, who[seat], command)
        if outcome.version is not None:
            moves += 1
    return moves


async def run(
    store: str, rooms: int, seconds: float, redis_url: str, profile: Path | None
) -> dict[str, Any]:
    prefix = f"bench{uuid.uuid4().hex[:8]}"
    config = AppSettings(
        database_url=None,
        redis_url=redis_url if store == "redis" else None,
        redis_prefix=prefix,
    )
    app = create_app(config)
    service: RoomService = app.state.rooms
    bus = app.state.hub.bus
    rng = random.Random(1)
    async with app.router.lifespan_context(app), AsyncExitStack() as subs:
        seated = await _seat_rooms(service, rooms)
        gc_tuning.after_start_up()  # as the served app does once it is up (paced collections)
        for room, _ in seated:  # each room's notices read, as the hub reads them
            notices = await subs.enter_async_context(bus.subscribe(room))
            reader = asyncio.ensure_future(_drain(notices))
            subs.callback(reader.cancel)
        # Warm-up: every room dealt and a few moves in.
        await asyncio.gather(
            *(_play(service, r, w, rng, time.monotonic() + 1.0) for r, w in seated)
        )
        times0, t0 = os.times(), time.monotonic()
        profiler = cProfile.Profile() if profile is not None else None
        if profiler is not None:
            profiler.enable()
        until = time.monotonic() + seconds
        counts = await asyncio.gather(*(_play(service, r, w, rng, until) for r, w in seated))
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        times1, wall = os.times(), time.monotonic() - t0
        user, system = times1.user - times0.user, times1.system - times0.system
        if store == "redis":
            client = service.shared.store.client  # type: ignore[union-attr]
            async for key in client.scan_iter(match=f"{prefix}:*", count=1000):
                await client.delete(key)
    moves = sum(counts)
    return {
        "store": store,
        "rooms": rooms,
        "moves": moves,
        "moves_per_s": round(moves / wall, 1),
        "cpu_us_per_move": round(1e6 * (user + system) / moves, 1) if moves else None,
        "sys_us_per_move": round(1e6 * system / moves, 1) if moves else None,
    }


def _one(store: str, args: argparse.Namespace, profile: Path | None) -> dict[str, Any]:
    """One run in a fresh process (its own heap, collector and event loop)."""
    command = [sys.executable, __file__, "--one", store, "--rooms", str(args.rooms)]
    command += ["--seconds", str(args.seconds), "--redis-url", args.redis_url]
    if profile is not None:
        command += ["--profile", str(profile)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        sys.stderr.write(done.stderr[-3000:])
        raise SystemExit(f"the {store} run failed ({done.returncode})")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument(
        "--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", choices=("memory", "redis"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # one run in this process, its result as a JSON line
        with contextlib.suppress(ImportError):
            import uvloop

            uvloop.install()
        result = asyncio.run(run(args.one, args.rooms, args.seconds, args.redis_url, args.profile))
        print(json.dumps(result))
        return 0
    results: list[dict[str, Any]] = []
    ratios: list[float] = []
    for pair in range(args.pairs):
        profile = args.profile if pair == 0 else None
        memory_profile = profile.with_suffix(".memory" + profile.suffix) if profile else None
        memory = _one("memory", args, memory_profile)
        redis = _one("redis", args, profile)
        ratio = redis["cpu_us_per_move"] / memory["cpu_us_per_move"]
        ratios.append(ratio)
        results += [memory, redis]
        print(
            f"pair {pair + 1}: memory {memory['cpu_us_per_move']} µs/move"
            f" (system {memory['sys_us_per_move']}; {memory['moves_per_s']} moves/s),"
            f" redis {redis['cpu_us_per_move']} µs/move (system {redis['sys_us_per_move']};"
            f" {redis['moves_per_s']} moves/s), ratio {ratio:.2f}",
            flush=True,
        )
    median = statistics.median(ratios)
    print(f"median ratio {median:.2f} over {len(ratios)} pairs")
    if args.json:
        print(json.dumps({"runs": results, "ratios": ratios, "median_ratio": median}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
