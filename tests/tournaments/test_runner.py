"""Two processes' tournament services on one store (the shared store, as with Redis): each
table's result and each round are decided once even when both hear a table end at the same
moment, and a table end heard by nobody (the committing process died) is found by the other
process's scan. The rooms are a fake implementation of the narrow `Tables` interface, so the
matches end when the test says."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from app.engine import actions as act
from app.tournaments.referee import PLAYING_LOOK_MS, ROUND_OVER_WAIT_MS
from app.tournaments.service import TournamentService
from app.tournaments.store import MemoryTournamentStore
from app.tournaments.tables import CommitListener, OpenedTable, TableSeat, TableState
from tests.fake_clock import Clock


class FakeTables:
    """Rooms as data: a table starts when its host says so and its match ends when the test
    calls `end`."""

    def __init__(self) -> None:
        self.rooms: dict[str, dict[str, Any]] = {}
        self.matches: dict[str, dict[str, Any]] = {}
        self.listeners: list[CommitListener] = []
        self.opened = 0
        self.started: list[str] = []  # every `start` sent, by room

    @property
    def test_hooks(self) -> bool:
        return True

    @property
    def idle_seconds(self) -> int:
        return 3600

    async def open_table(
        self, names: Sequence[str], settings: Mapping[str, Any], bots: int
    ) -> OpenedTable:
        self.opened += 1
        room = f"R{self.opened}"
        players = tuple(f"{room}p{i}" for i in range(len(names)))
        seats = [TableSeat(p, False, False, False) for p in players]
        seats += [TableSeat(f"{room}b{i}", True, True, False) for i in range(bots)]
        self.rooms[room] = {"status": "lobby", "match_id": None, "seats": seats,
                            "settings": dict(settings)}  # fmt: skip
        await asyncio.sleep(0)  # another task may run meanwhile, as with real rooms
        return OpenedTable(room, players)

    async def grant_seat(self, room: str, player_id: str, token: str) -> bool:
        r = self.rooms.get(room)
        return r is not None and any(s.player_id == player_id for s in r["seats"])

    async def table(self, room: str) -> TableState | None:
        r = self.rooms.get(room)
        if r is None:
            return None
        return TableState(r["status"], r["match_id"], 0, tuple(r["seats"]), r["settings"])

    async def as_host(self, room: str, action: act.Action) -> str | None:
        r = self.rooms[room]
        await asyncio.sleep(0)
        if isinstance(action, act.Start):
            self.started.append(room)
            if r["status"] == "round_over":  # the next round of the same match
                r["status"] = "playing"
                return None
            if r["status"] != "lobby":
                return "already_started"
            r["status"], r["match_id"] = "playing", f"m-{room}"
            return None
        raise AssertionError(f"unexpected host command {action}")

    async def match_result(self, match_id: str) -> Mapping[str, Any] | None:
        return self.matches.get(match_id)

    def on_commit(self, listener: CommitListener) -> None:
        self.listeners.append(listener)

    def end(self, room: str, winner: int, heard_by: Sequence[CommitListener]) -> None:
        r = self.rooms[room]
        r["status"] = "match_over"
        players = [s.player_id for s in r["seats"]]
        self.matches[r["match_id"]] = {
            "status": "finished",
            "players": [{"player_id": p, "seat": i} for i, p in enumerate(players)],
            "scores": [100 if i == winner else 0 for i in range(len(players))],
            "winner": winner,
            "rounds": [{"winner": winner}],
            "settings": {},
        }
        for listener in heard_by:
            listener(room, frozenset({"round_ended", "match_ended"}))


BODY = {"name": "Cup", "host_name": "Host", "table_size": 2, "format": "elimination",
        "match": {"rounds": 1}, "grace_seconds": 0}  # fmt: skip


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.01)


async def two_processes() -> tuple[TournamentService, TournamentService, FakeTables, Clock]:
    store, tables, clock = MemoryTournamentStore(), FakeTables(), Clock()
    a, b = (
        TournamentService(tables, store, rng=random.Random(seed), clock=clock, scan_seconds=0.05)
        for seed in (1, 2)
    )
    return a, b, tables, clock


async def started(a: TournamentService, b: TournamentService) -> str:
    created = await a.create(BODY)
    for i, name in enumerate(["Ana", "Bo", "Cem", "Dia"]):
        await (a, b)[i % 2].register(created.code, name)
    await a.start(created.code, f"Bearer {created.token}")
    return created.code


async def tables_playing(a: TournamentService, code: str, count: int) -> None:
    async def playing() -> bool:
        body = await a.public(code)
        tables = body["rounds"][-1]["tables"] if body["rounds"] else []
        return len(tables) == count and all(t["status"] == "playing" for t in tables)

    await until(playing)


async def test_a_table_end_heard_by_both_processes_advances_once() -> None:
    a, b, tables, _ = await two_processes()
    await a.watch()
    await b.watch()
    try:
        code = await started(a, b)
        await tables_playing(a, code, 2)
        assert tables.opened == 2
        # Both processes hear both tables end at once (the worst case: with Redis only the
        # committing process hears a commit).
        for room in ("R1", "R2"):
            tables.end(room, 1, tables.listeners)
        await tables_playing(a, code, 1)
        tables.end("R3", 0, tables.listeners)

        async def finished() -> bool:
            return (await a.public(code))["status"] == "finished"

        await until(finished)
        body = await b.public(code)
        assert tables.opened == 3  # two tables, then one final: nothing opened twice
        assert [len(r["tables"]) for r in body["rounds"]] == [2, 1]
        final = body["rounds"][1]["tables"][0]
        assert body["winner"] == final["seats"][0]
        # Results were saved (one save may carry both tables of a round), by whichever won.
        assert 2 <= a.runner.advanced + b.runner.advanced <= 3
    finally:
        await a.stop()
        await b.stop()


async def test_a_table_end_nobody_heard_is_found_by_the_other_process() -> None:
    a, b, tables, clock = await two_processes()
    await a.watch()
    try:
        code = await started(a, b)
        await tables_playing(a, code, 2)
        await a.stop()  # the process that started it dies; its timers go with it
        await b.watch()
        for room in ("R1", "R2"):
            tables.end(room, 0, heard_by=[])  # committed by the dead process
        await asyncio.sleep(0.2)
        assert len((await b.public(code))["rounds"]) == 1  # not yet: nobody looked
        clock.now += PLAYING_LOOK_MS + 1  # the playing tables' safety-net look is due

        async def next_round() -> bool:
            return len((await b.public(code))["rounds"]) == 2

        await until(next_round)
        assert b.runner.advanced >= 1 and tables.opened == 3  # advanced by b, once
    finally:
        await a.stop()
        await b.stop()


class NoLeases(MemoryTournamentStore):
    """Every lease granted: as if each driver's lease had run out mid-look."""

    async def lease(self, code: str, owner: str, ms: int) -> bool:
        return True


async def test_without_the_lease_the_compare_and_set_still_decides_once() -> None:
    store, tables, clock = NoLeases(), FakeTables(), Clock()
    a, b = (
        TournamentService(tables, store, rng=random.Random(seed), clock=clock, scan_seconds=60)
        for seed in (1, 2)
    )
    try:
        code = await started(a, b)
        await tables_playing(a, code, 2)
        await b.runner.scan()  # b learns the tables (the scan's period is long here)
        saves = store.save
        lost: list[int] = []

        async def counted(record: Any, *, durable: bool = False) -> bool:
            won = await saves(record, durable=durable)
            if not won:
                lost.append(record.version)
            return won

        store.save = counted  # type: ignore[method-assign]
        for room in ("R1", "R2"):
            tables.end(room, 1, tables.listeners)

        async def next_round() -> bool:
            body = await a.public(code)
            return len(body["rounds"]) == 2 and body["rounds"][1]["tables"][0]["room"] is not None

        await until(next_round)
        await asyncio.sleep(0.2)  # the loser has looked again by now
        body = await a.public(code)
        assert [len(r["tables"]) for r in body["rounds"]] == [2, 1]  # seated once
        # Both drove at once: one save lost and was re-decided on the winner's record (its
        # final table may have been opened in vain: the lease is what saves that work).
        assert lost and tables.opened in (3, 4)
    finally:
        await a.stop()
        await b.stop()


async def test_a_tied_match_is_dealt_on_when_nobody_deals_its_next_round() -> None:
    """A tie plays on; with next_round_seconds 0 only the host seat (an entrant, maybe away)
    would deal the next round, so the tournament deals it after ROUND_OVER_WAIT_MS."""
    a, b, tables, clock = await two_processes()
    await a.watch()
    try:
        body = {**BODY, "settings": {"next_round_seconds": 0}}
        created = await a.create(body)
        for name in ("Ana", "Bo"):
            await a.register(created.code, name)
        await a.start(created.code, f"Bearer {created.token}")
        await tables_playing(a, created.code, 1)
        assert tables.started == ["R1"]
        tables.rooms["R1"]["status"] = "round_over"  # tied: the match plays on
        for listener in tables.listeners:
            listener("R1", frozenset({"round_ended"}))
        await asyncio.sleep(0.2)
        assert tables.started == ["R1"]  # a moment for the host seat to deal it
        clock.now += ROUND_OVER_WAIT_MS
        await b.watch()  # whichever process looks next deals it

        async def dealt() -> bool:
            return tables.started == ["R1", "R1"]

        await until(dealt)
        assert tables.rooms["R1"]["status"] == "playing"
        tables.end("R1", 0, tables.listeners)

        async def finished() -> bool:
            return (await a.public(created.code))["status"] == "finished"

        await until(finished)
        assert tables.started == ["R1", "R1"] and tables.opened == 1
    finally:
        await a.stop()
        await b.stop()


async def test_a_table_end_heard_before_its_round_was_scanned_advances_at_once() -> None:
    """The process that commits a table's match end may not know the table yet (another
    process opened its round since this one's last scan): it looks for its tournament then,
    rather than leaving the end to the table's safety-net look 10 s later."""
    store, tables, clock = MemoryTournamentStore(), FakeTables(), Clock()
    a, b = (
        TournamentService(tables, store, rng=random.Random(seed), clock=clock, scan_seconds=60)
        for seed in (1, 2)
    )
    await a.watch()
    await b.watch()  # its first scan is a minute away: it knows no table
    try:
        code = await started(a, b)
        await tables_playing(a, code, 2)
        await a.stop()  # only b is left, and b has not scanned
        for room in ("R1", "R2"):
            tables.end(room, 0, heard_by=tables.listeners[1:])  # b's commits

        async def next_round() -> bool:
            return len((await b.public(code))["rounds"]) == 2

        await until(next_round, timeout=2.0)  # the clock never moved: no safety-net look
        assert b.runner.advanced >= 1 and tables.opened == 3
    finally:
        await a.stop()
        await b.stop()
