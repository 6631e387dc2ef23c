"""Move latency with match persistence on (SQLite, PostgreSQL) versus off, in one run.

Each configuration gets its own RoomService (the real room path: lock, engine, round
recorder, room store, bus) with a fake clock and the same seeds, so the three play the very
same moves; the moves are interleaved one by one across the configurations so machine noise
falls on all of them alike. Only `RoomService.submit` is timed. "off" is the in-memory
recorder; "sqlite" and "postgres" the SQL recorder (the round end appends to the local outbox
on the event loop, the database write happens in the background).

Usage: python bench/persistence.py [--matches N] [--postgres URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import select
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.schema import CreateSchema, DropSchema

from app import engine
from app.bus import create_bus
from app.engine import actions as act
from app.engine.bot import bot_action
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomService
from app.settings import AppSettings
from app.store.recorder import MatchRecorder, MemoryRecorder
from app.store.rooms import MemoryRoomStore
from app.store.sql.recorder import SqlRecorder

POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
T0 = 1_764_450_000_000
STEP_MS = 150
PLAYERS = 3


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


@dataclass
class Table:
    """One configuration: a room service on its recorder, playing matches by the bot policy."""

    name: str
    recorder: MatchRecorder
    seed: int
    clock: Clock = field(default_factory=Clock)
    moves_ns: list[int] = field(default_factory=list)
    round_end_ns: list[int] = field(default_factory=list)
    round_end_index: set[int] = field(default_factory=set)  # positions in moves_ns
    matches_done: int = 0

    async def open(self) -> None:
        await self.recorder.start()
        self.store = MemoryRoomStore()
        self.service = RoomService(
            AppSettings(database_url=None),
            self.store,
            create_bus(None),
            self.recorder,
            clock=self.clock,
            rng=random.Random(self.seed),
        )
        self.rng = random.Random(self.seed + 1)
        created = await self.service.create_room("Seat 0", {"next_round_seconds": 0})
        self.room = created.room
        self.seats = [Identity(created.player_id, "player", created.seat)]
        for i in range(1, PLAYERS):
            joined = await self.service.join(self.room, f"Seat {i}")
            self.seats.append(Identity(joined.player_id, "player", joined.seat))
        self.ids = 0

    async def close(self) -> None:
        await self.recorder.close()

    async def step(self) -> None:
        """One move (timed), or one deadline passing when nobody may move (not timed)."""
        record = await self.store.load(self.room)
        assert record is not None
        state = record.state
        self.clock.now += STEP_MS
        if state.status in ("lobby", "round_over", "match_over"):
            if state.status == "match_over":
                self.matches_done += 1
            await self._submit(state.host or 0, act.Start(), timed=False)
            return
        order = [state.turn, *(s for s in range(PLAYERS) if s != state.turn)]
        for seat in order:
            action = bot_action(state, seat, self.rng)
            if action is not None:
                round_before = state.round
                elapsed = await self._submit(seat, action, timed=True)
                after = (await self.store.load(self.room)).state  # type: ignore[union-attr]
                if after.status != "playing" and after.round == round_before:
                    self.round_end_ns.append(elapsed)
                    self.round_end_index.add(len(self.moves_ns) - 1)
                return
        due = min(engine.deadlines(state), key=lambda d: d.at)
        self.clock.now = max(self.clock.now, due.at)
        await self.service.wake(self.room)

    def ordinary(self) -> list[int]:
        """Latencies of the moves that did not end a round."""
        return [ns for i, ns in enumerate(self.moves_ns) if i not in self.round_end_index]

    async def _submit(self, seat: int, action: act.Action, *, timed: bool) -> int:
        self.ids += 1
        command = Command(type(action).__name__.lower(), f"c{self.ids}", None, action)
        start = time.perf_counter_ns()
        outcome = await self.service.submit(self.room, self.seats[seat], command)
        elapsed = time.perf_counter_ns() - start
        if outcome.code is not None:
            raise RuntimeError(f"{self.name}: {type(action).__name__} refused: {outcome.code}")
        if timed:
            self.moves_ns.append(elapsed)
        return elapsed


def pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6


async def postgres_schema(url: str) -> tuple[str, dict[str, object]] | None:
    admin = create_async_engine(url, connect_args={"timeout": 3})
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        async with admin.begin() as conn:
            await conn.execute(select(1))
            await conn.execute(CreateSchema(schema))
    except Exception as exc:
        print(f"PostgreSQL unreachable at {url} ({type(exc).__name__}): skipped")
        return None
    finally:
        await admin.dispose()
    return schema, {"server_settings": {"search_path": schema}}


async def drop_schema(url: str, schema: str) -> None:
    admin = create_async_engine(url)
    async with admin.begin() as conn:
        await conn.execute(DropSchema(schema, cascade=True))
    await admin.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=6, help="matches per configuration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", default=POSTGRES_URL)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-persistence-"))
    tables = [Table("off (memory)", MemoryRecorder(), args.seed)]
    recorder = SqlRecorder(
        f"sqlite+aiosqlite:///{work}/sqlite.db", outbox_path=work / "sqlite-outbox.db"
    )
    tables.append(Table("sqlite", recorder, args.seed))
    pg = await postgres_schema(args.postgres)
    if pg is not None:
        recorder = SqlRecorder(
            args.postgres, outbox_path=work / "postgres-outbox.db", connect_args=pg[1]
        )
        tables.append(Table("postgres", recorder, args.seed))
    try:
        for t in tables:
            await t.open()
        while any(t.matches_done < args.matches for t in tables):
            for t in tables:  # interleaved: one move each, in turn
                if t.matches_done < args.matches:
                    await t.step()
    finally:
        for t in tables:
            await t.close()
        if pg is not None:
            await drop_schema(args.postgres, pg[0])

    (markdown if args.markdown else report)(tables)


def report(tables: list[Table]) -> None:
    base = tables[0]
    base_other = base.ordinary()
    print(
        f"{platform.node()} · {platform.machine()} · {os.cpu_count()} CPUs · "
        f"Python {platform.python_version()} · {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(
        f"{'config':<16}{'moves':>6}{'p50 ms':>8}{'p99 ms':>8}{'ratio':>7}"
        f"{'| others p99':>12}{'ratio':>7}{'| round ends':>12}{'p50 ms':>8}{'p99 ms':>8}"
        f"{'ratio':>7}"
    )
    for t in tables:
        other = t.ordinary()
        print(
            f"{t.name:<16}{len(t.moves_ns):>6}{pct(t.moves_ns, 0.5):>8.3f}"
            f"{pct(t.moves_ns, 0.99):>8.3f}"
            f"{pct(t.moves_ns, 0.99) / pct(base.moves_ns, 0.99):>7.2f}"
            f"{pct(other, 0.99):>12.3f}{pct(other, 0.99) / pct(base_other, 0.99):>7.2f}"
            f"{len(t.round_end_ns):>12}{pct(t.round_end_ns, 0.5):>8.3f}"
            f"{pct(t.round_end_ns, 0.99):>8.3f}"
            f"{pct(t.round_end_ns, 0.99) / pct(base.round_end_ns, 0.99):>7.2f}"
        )
    print(
        "ratio: p99 over p99 with persistence off; 'others': the moves that do not end a round "
        "(a round end waits for its durable write by contract)."
    )


def markdown(tables: list[Table]) -> None:
    base, base_other = tables[0], tables[0].ordinary()
    load = os.getloadavg()[0]
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {load:.1f}, Python {platform.python_version()}, "
        f"{len(base.moves_ns)} moves and {len(base.round_end_ns)} round ends per configuration\n"
    )
    print(
        "| configuration | p50 ms | p99 ms | p99 ratio | others p99 ms | others ratio "
        "| round end p50 ms | round end p99 ms | round end p99 ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in tables:
        other = t.ordinary()
        print(
            f"| {t.name} | {pct(t.moves_ns, 0.5):.3f} | {pct(t.moves_ns, 0.99):.3f} "
            f"| {pct(t.moves_ns, 0.99) / pct(base.moves_ns, 0.99):.2f} "
            f"| {pct(other, 0.99):.3f} | {pct(other, 0.99) / pct(base_other, 0.99):.2f} "
            f"| {pct(t.round_end_ns, 0.5):.3f} | {pct(t.round_end_ns, 0.99):.3f} "
            f"| {pct(t.round_end_ns, 0.99) / pct(base.round_end_ns, 0.99):.2f} |"
        )


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
