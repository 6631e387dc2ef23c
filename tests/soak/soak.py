"""The chaos soak (issue 11): rooms of scripted players and bots play whole matches against
real server processes while clients drop and resume, one server process is killed with
SIGKILL, the database goes away behind a TCP proxy, and (two-process mode) the Redis server
is killed and restarted. Then every frame is audited and what the clients saw is compared
with the database.

Modes (`--mode`, both by default):
- `embedded`: one `uvicorn app.main:app` process, rooms in memory, matches in PostgreSQL
  (through the proxy) or SQLite (`--database sqlite`: no outage, the file cannot be cut); the
  killed process is restarted on the same database and outbox, and the rooms come back from
  their latest round end.
- `cluster`: two processes on a private redis-server (never the shared one at 6379) and
  PostgreSQL through the proxy; one process is killed and restarted on its port, and later
  Redis is killed and restarted from its AOF.

The faults come one after the other and never overlap (a crash during a database outage is
the window docs/reliability.md leaves open for version reservations): the kill once every
room's match has ended a round (embedded: a room lives through a restart only from a round
end, docs/architecture.md; with Redis, once every room is dealt), the database cut a second
after the restart, the Redis restart a second after the cut. A room whose match ends before
they are through starts another, so the faults always land on rooms at play.

Per room: 2 to 4 scripted seats (`scripted_move` of the e2e harness), a bot seat in every
other room, one spectator. Every client drops its socket now and then (a clean close or a cut
TCP connection) and resumes with `hello` + `since` on any live process.

Checked (each failure is a violation; the exit code is 1 when there is any):
- the leak audit of tests/cluster (`leaks`): no frame to a seat names a card another seat held
  at that version while a round is played, no token, no secret key;
- per client: versions never repeat or go backwards, an `events` frame follows the previous
  version without a gap (only a `welcome` may jump ahead), a seat's `welcome` is for its seat,
  no token is ever refused (4401), every command is answered within 20 s while connected;
- per room: clients that saw the same version saw the same event (kind, seat, card played,
  round, points: what every member is told alike); a round seen ended
  twice with different points is duplicated; a round seen ended and not in the database
  (or stored with other points) is lost; every match seen ended is `finished` in the database;
- every match started finished before the deadline; every fault was injected.

    .venv/bin/python tests/soak/soak.py [--mode both] [--rooms 50] [--target 500] ...

Talks only to 127.0.0.1; bounded by --max-seconds per mode.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for _path in (str(ROOT), str(ROOT / "tests")):  # as a script: the harnesses' imports
    if _path not in sys.path:
        sys.path.insert(0, _path)

import httpx  # noqa: E402
import pytest  # noqa: E402
import websockets  # noqa: E402
from cluster.harness import (  # noqa: E402
    POSTGRES_ADMIN,
    Player,
    PrivateRedis,
    Process,
    _fresh_database,
    _healthy,
    _start,
    free_port,
    leaks,
)
from e2e.harness import scripted_move  # noqa: E402
from sqlalchemy import select  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402
from store.proxy import TcpProxy  # noqa: E402

from app.store.sql.models import Match, RoundPlayer  # noqa: E402

REPLY_TIMEOUT_S = 20.0
CONNECT_TIMEOUT_S = 10.0
STALL_S = 60.0  # a room without a new version that long, while its server is up, has stalled


@dataclass
class Options:
    mode: str = "embedded"  # or "cluster"
    database: str = "postgresql"  # or "sqlite" (embedded only)
    rooms: int = 50
    target: int = 500
    outage_seconds: float = 10.0
    drop_every_s: float = 8.0  # mean time between two drops of one client
    max_seconds: float = 270.0
    seed: int = 11
    workdir: Path | None = None


@dataclass
class Report:
    mode: str
    database: str
    rooms: int = 0
    target: int = 0
    rounds_seen: int = 0
    rounds_stored: int = 0
    stored_unseen: int = 0
    frames_audited: int = 0
    commands: int = 0
    drops: int = 0
    reconnects: int = 0
    leaks: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    lost_rounds: list[str] = field(default_factory=list)
    duplicated_rounds: list[str] = field(default_factory=list)
    matches_started: int = 0
    matches_finished: int = 0  # seen over by the clients
    matches_finished_stored: int = 0
    faults: list[str] = field(default_factory=list)
    match_seconds: tuple[float, float] = (0.0, 0.0)  # first and last match over, into the run
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # seconds each
    evidence: str = ""  # where the frames of the leaks found were written

    @property
    def clean(self) -> bool:
        return not (
            self.leaks
            or self.violations
            or self.lost_rounds
            or self.duplicated_rounds
            or self.matches_started < self.rooms
            or self.matches_finished < self.matches_started
            or self.matches_finished_stored < self.matches_started
        )

    def lines(self) -> list[str]:
        reduced = "" if self.target >= 500 else f" (reduced from 500: {self.target})"
        out = [
            f"soak {self.mode} on {self.database}: {self.seconds:.0f} s "
            f"({', '.join(f'{k} {v} s' for k, v in self.phases.items())})",
            f"  rooms: {self.rooms}, target score{reduced}: {self.target}",
            f"  rounds: {self.rounds_seen} seen ended by clients, {self.rounds_stored} in the "
            f"database ({self.stored_unseen} stored but never seen ended: a restart between "
            "the record and the frame)",
            f"  commands: {self.commands}, client drops: {self.drops}, "
            f"reconnects: {self.reconnects}",
            f"  frames audited: {self.frames_audited}",
            f"  faults: {'; '.join(self.faults) or 'none'}",
            f"  matches over between t={self.match_seconds[0]:.0f}s and "
            f"t={self.match_seconds[1]:.0f}s",
            f"  violations: {len(self.violations)}",
            f"  leaks: {len(self.leaks)}" + (f" (frames in {self.evidence})" * bool(self.evidence)),
            f"  lost rounds: {len(self.lost_rounds)}, duplicated rounds: "
            f"{len(self.duplicated_rounds)}",
            f"  matches finished: {self.matches_finished}/{self.matches_started} seen by "
            f"clients, {self.matches_finished_stored}/{self.matches_started} finished in the "
            "database",
        ]
        for name, items in (
            ("violation", self.violations),
            ("leak", self.leaks),
            ("lost", self.lost_rounds),
            ("duplicated", self.duplicated_rounds),
        ):
            out += [f"    {name}: {item}" for item in items[:10]]
        return out


class Refused(Exception):
    """The socket closed before its `welcome` (with this close code)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed before the welcome ({code})")
        self.code = code


class SoakPlayer(Player):
    """The cluster harness's client, whose `connect` gives up as soon as the socket closes
    before the welcome (a server restoring rooms, or down) instead of waiting it out."""

    def __post_init__(self) -> None:
        pass  # the soak audits its own clients (not the cluster tests' CREATED list)

    async def connect(self, process: Process) -> None:
        await self.close()
        self.ws = await websockets.connect(
            f"ws://127.0.0.1:{process.port}/ws/rooms/{self.room}", open_timeout=CONNECT_TIMEOUT_S
        )
        since = self.version if self.version >= 0 else None
        await self.ws.send(json.dumps({"type": "hello", "token": self.token, "since": since}))
        welcomed = asyncio.Event()
        self._reader = asyncio.create_task(self._read(welcomed))
        waiter = asyncio.create_task(welcomed.wait())
        await asyncio.wait(
            {waiter, self._reader}, timeout=REPLY_TIMEOUT_S, return_when="FIRST_COMPLETED"
        )
        waiter.cancel()
        if not welcomed.is_set():
            code = self.ws.close_code
            await self.close()
            raise Refused(code)


@dataclass
class Seat:
    player: SoakPlayer
    seat: int | None  # None: the spectator
    host: bool = False
    refused: list[int | None] = field(default_factory=list)


@dataclass
class Room:
    code: str
    seats: list[Seat]
    finished: bool = False
    finished_at: float = 0.0  # seconds into the run
    done: asyncio.Event = field(default_factory=asyncio.Event)  # set once it is finished

    def finish(self, at: float) -> None:
        """The room is done: its chaos task and its clients' waits stop at once."""
        self.finished, self.finished_at = True, at
        self.done.set()
        for p in self.players:
            p._changed.set()

    @property
    def players(self) -> list[SoakPlayer]:
        return [s.player for s in self.seats]

    def version(self) -> int:
        return max(p.version for p in self.players)

    def match_ended_a_round(self) -> bool:
        """Whether the match the room is in has ended a round (as its clients saw it)."""
        newest = max(self.players, key=lambda p: p.version)
        match_id = (newest.view or {}).get("match_id")
        return any(m == match_id for m, _ in self.rounds_ended())

    def dealt(self) -> bool:
        return any(e["kind"] == "round_started" for p in self.players for e in p.history.values())

    def rounds_ended(self) -> set[tuple[str, int]]:
        """(match id, round) of every round end any of its clients saw."""
        return {
            (e["match_id"], e["round"])
            for p in self.players
            for e in p.history.values()
            if e["kind"] == "round_ended"
        }


class Servers:
    """The server processes of one mode and what can be done to them."""

    def __init__(self, options: Options, workdir: Path) -> None:
        self.options = options
        self.workdir = workdir
        self.processes: list[Process] = []
        self.env: dict[str, str] = {}
        self.proxy: TcpProxy | None = None
        self.redis: PrivateRedis | None = None
        self.database_url = ""  # direct, for the final comparison
        self.drop_database: Callable[[], Awaitable[Any]] | None = None
        self.up = asyncio.Event()

    async def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("REDIS_")}
        env.update(
            UNO_TEST_HOOKS="1",
            CREATE_RATE_PER_SECOND="1000",
            CREATE_RATE_BURST="100000",
            WS_CONNECT_RATE_PER_SECOND="1000",
            WS_CONNECT_RATE_BURST="100000",
            MAX_OPEN_PER_ADDRESS="100000",
            ADDRESS_FRAMES_PER_SECOND="1000000",
            ADDRESS_FRAMES_BURST="1000000",
            UNO_GC=os.environ.get("UNO_GC", "paced"),
        )
        if self.options.database == "sqlite":
            self.database_url = f"sqlite+aiosqlite:///{self.workdir}/uno.db"
            env["DATABASE_URL"] = self.database_url
        else:
            self.database_url, self.drop_database = await _fresh_database()
            self.proxy = TcpProxy(make_url(self.database_url).port or 5432)
            await self.proxy.open()
            via = make_url(self.database_url).set(port=self.proxy.port)
            env["DATABASE_URL"] = via.render_as_string(hide_password=False)
        count = 1
        if self.options.mode == "cluster":
            self.redis = PrivateRedis(self.workdir / "redis")
            await self.redis.start()
            env.update(REDIS_URL=self.redis.url, REDIS_PREFIX=f"s{uuid.uuid4().hex[:8]}")
            count = 2
        self.env = env
        self.processes = [_start(free_port(), self.workdir / f"p{i}", env) for i in range(count)]
        await asyncio.gather(*(_healthy(p) for p in self.processes))
        self.up.set()

    def alive(self) -> list[Process]:
        return [p for p in self.processes if p.proc.poll() is None]

    def pick(self) -> Process:
        alive = self.alive()
        return random.choice(alive or self.processes)

    async def kill_and_restart(self) -> float:
        """SIGKILL of the first process, then a new one on its port and work directory (its
        recorder outbox); the seconds until it is healthy again."""
        victim = self.processes[0]
        started = time.monotonic()
        if self.options.mode == "embedded":
            self.up.clear()  # nowhere to go meanwhile
        victim.kill()
        self.processes[0] = _start(victim.port, self.workdir / "p0", self.env)
        await _healthy(self.processes[0])
        self.up.set()
        return time.monotonic() - started

    async def outage(self, seconds: float) -> None:
        assert self.proxy is not None
        await self.proxy.close()
        await asyncio.sleep(seconds)
        await self.proxy.open()

    async def restart_redis(self) -> float:
        assert self.redis is not None
        started = time.monotonic()
        self.redis.kill()
        await asyncio.sleep(0.5)
        await self.redis.start()  # the same port and AOF
        return time.monotonic() - started

    async def stop(self) -> None:
        for p in self.processes:
            if p.proc.poll() is None:
                p.proc.terminate()
        for p in self.processes:
            try:
                await asyncio.to_thread(p.proc.wait, 15)
            except subprocess.TimeoutExpired:
                p.kill()
        if self.proxy is not None:
            await self.proxy.close()
        if self.redis is not None:
            self.redis.kill()

    async def cleanup(self) -> None:
        if self.drop_database is not None:
            with contextlib.suppress(Exception):
                await self.drop_database()


class Soak:
    def __init__(
        self,
        options: Options,
        servers: Servers,
        report: Report,
        phase: Callable[[str], None] = lambda name: None,
    ) -> None:
        self.phase = phase
        self.options = options
        self.servers = servers
        self.report = report
        self.rooms: list[Room] = []
        self.deadline = time.monotonic() + options.max_seconds
        self.started = time.monotonic()
        self.killed = False
        self.faults_done = False

    def violation(self, text: str) -> None:
        self.report.violations.append(text)

    # --- set-up ------------------------------------------------------------------------

    async def make_room(self, index: int) -> Room:
        humans = 2 + index % 3
        settings = {
            "target_score": self.options.target,
            "turn_seconds": 0,  # a dropped player's turn waits for its return
            "next_round_seconds": 2,  # a fallback: the host deals at once
            "bot_delay_ms": 20,
        }
        base = self.servers.pick().http
        async with httpx.AsyncClient(base_url=base, timeout=20) as http:
            created = (
                await http.post("/api/rooms", json={"name": "Host", "settings": settings})
            ).json()
            code = created["room"]
            seats = [Seat(SoakPlayer(code, created["token"]), created["seat"], host=True)]
            for n in range(1, humans):
                joined = (
                    await http.post(f"/api/rooms/{code}/players", json={"name": f"P{n}"})
                ).json()
                seats.append(Seat(SoakPlayer(code, joined["token"]), joined["seat"]))
            watcher = (
                await http.post(f"/api/rooms/{code}/spectators", json={"name": "Eve"})
            ).json()
            seats.append(Seat(SoakPlayer(code, watcher["token"]), None))
        room = Room(code, seats)
        for s in seats:
            await self.reconnect(s)
        host = seats[0].player
        if index % 2 == 0:
            await self.must(host, "add_bot")
        await self.must(host, "start")
        return room

    async def must(self, player: SoakPlayer, kind: str) -> None:
        reply = await player.act(kind)
        if reply["type"] != "ack":
            raise RuntimeError(f"{kind}: {reply}")

    # --- clients -----------------------------------------------------------------------

    async def reconnect(self, seat: Seat) -> None:
        """Back in on any live process, resuming with `since`, until the deadline."""
        player = seat.player
        delay = 0.05
        while time.monotonic() < self.deadline:
            await self.servers.up.wait()
            try:
                await player.connect(self.servers.pick())
            except Refused as exc:
                seat.refused.append(exc.code)
                if exc.code == 4401:
                    self.violation(f"room {player.room[:6]} seat {seat.seat}: token refused")
                    raise
            except (
                OSError,
                TimeoutError,
                websockets.InvalidHandshake,
                websockets.ConnectionClosed,
            ):
                pass
            else:
                self.report.reconnects += 1
                if player.seat != seat.seat:
                    self.violation(f"seat {seat.seat} welcomed as seat {player.seat}")
                return
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)
        raise TimeoutError("deadline")

    async def drive(self, room: Room, seat: Seat) -> None:
        """Play this seat (or watch) until the room is done (its host decides)."""
        player = seat.player
        acted_at = -1
        dealt_at = -1
        while not room.finished and time.monotonic() < self.deadline:
            if not player.connected:
                await asyncio.sleep(random.uniform(0.02, 0.6))
                await self.reconnect(seat)
                acted_at = -1
            view = player.view or {}
            move = scripted_move(view) if seat.seat is not None else None
            # The host alone decides, at a match's end, whether the room plays another (until
            # every fault is through; not before the kill, which must find every room's
            # match past a round end) or is done: another seat may still see the old match
            # over when the host has started the next.
            if view.get("status") == "match_over" and seat.host and dealt_at != player.version:
                if self.faults_done:
                    room.finish(time.monotonic() - self.started)
                    break
                if self.killed:
                    dealt_at = player.version
                    move = ("start", {})
            if view.get("status") == "round_over" and seat.host and dealt_at != player.version:
                dealt_at = player.version
                move = ("start", {})
            if move is None or acted_at == player.version:
                await self.changed(player, room)
                continue
            kind, fields = move
            acted_at = player.version
            self.report.commands += 1
            try:
                reply = await player.act(kind, at=player.version, **fields)
            except websockets.ConnectionClosed:
                continue  # dropped meanwhile: back in, then look again
            except TimeoutError:
                if player.connected:
                    self.violation(f"room {room.code[:6]}: a {kind} unanswered for 20 s")
                continue
            if reply["type"] == "error":
                await asyncio.sleep(0.1)  # a race with another move or a timer: look again
                acted_at = -1 if player.version == acted_at else acted_at
                dealt_at = -1 if kind == "start" else dealt_at

    @staticmethod
    async def changed(player: SoakPlayer, room: Room) -> None:
        """Until the player's version moves, its socket closes or the room is done (1 s)."""
        version = player.version
        with contextlib.suppress(TimeoutError):
            await player.until(
                lambda: player.version != version or not player.connected or room.finished,
                timeout=1.0,
            )

    async def chaos(self, room: Room, rng: random.Random) -> None:
        """Drops the room's clients now and then: a clean close or a cut connection."""
        while not room.finished and time.monotonic() < self.deadline:
            pause = rng.expovariate(len(room.seats) / self.options.drop_every_s)
            with contextlib.suppress(TimeoutError):  # the room done meanwhile: no more drops
                await asyncio.wait_for(room.done.wait(), pause)
            seat = rng.choice(room.seats)
            ws = seat.player.ws
            if room.finished or ws is None or not seat.player.connected:
                continue
            self.report.drops += 1
            if rng.random() < 0.5:
                with contextlib.suppress(Exception):
                    ws.transport.abort()
            else:
                with contextlib.suppress(Exception):
                    await ws.close()

    # --- faults ------------------------------------------------------------------------

    async def ready_for_the_kill(self) -> None:
        """Embedded, a room restores from its latest round end, so a match still in its first
        round would be lost (as documented), not a finding: the kill waits until every
        room's match ended a round. With Redis the rooms outlive a process: every room
        dealt and a few seconds of play are enough."""
        embedded = self.options.mode == "embedded"
        while time.monotonic() < self.deadline:
            if embedded and all(r.match_ended_a_round() for r in self.rooms):
                return
            played = time.monotonic() - self.started > 3
            if not embedded and played and all(r.dealt() for r in self.rooms):
                return
            await asyncio.sleep(0.2)

    def at(self) -> str:
        return f"t={time.monotonic() - self.started:.0f}s"

    async def faults(self) -> None:
        await self.ready_for_the_kill()
        if time.monotonic() >= self.deadline:
            return
        at = self.at()
        took = await self.servers.kill_and_restart()
        self.killed = True
        which = "the server" if self.options.mode == "embedded" else "process 1 of 2"
        self.report.faults.append(f"SIGKILL of {which} at {at}, back in {took:.1f} s")
        if self.servers.proxy is not None:
            await asyncio.sleep(1)
            self.report.faults.append(
                f"database cut for {self.options.outage_seconds:.0f} s at {self.at()}"
            )
            await self.servers.outage(self.options.outage_seconds)
        if self.servers.redis is not None:
            await asyncio.sleep(1)
            took = await self.servers.restart_redis()
            self.report.faults.append(
                f"Redis SIGKILL and restart from its AOF at {self.at()} ({took:.1f} s)"
            )
        self.faults_done = True

    # --- the run -----------------------------------------------------------------------

    async def run(self) -> None:
        rng = random.Random(self.options.seed)
        random.seed(self.options.seed)
        semaphore = asyncio.Semaphore(10)

        async def made(i: int) -> Room:
            async with semaphore:
                return await self.make_room(i)

        self.rooms = list(await asyncio.gather(*(made(i) for i in range(self.options.rooms))))
        self.report.rooms = len(self.rooms)
        self.phase("rooms")
        self.started = time.monotonic()
        tasks = [
            asyncio.create_task(self.drive(room, seat))
            for room in self.rooms
            for seat in room.seats
        ]
        tasks += [asyncio.create_task(self.chaos(room, rng)) for room in self.rooms]
        faults = asyncio.create_task(self.faults())
        watchdog = asyncio.create_task(self.watchdog())
        results = await asyncio.gather(*tasks, return_exceptions=True)
        faults.cancel()
        watchdog.cancel()
        await asyncio.gather(faults, watchdog, return_exceptions=True)
        ends = [r.finished_at for r in self.rooms if r.finished]
        self.report.match_seconds = (min(ends, default=0.0), max(ends, default=0.0))
        if not self.faults_done:
            self.violation("not every fault was injected: the matches ended first (raise --target)")
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, Refused):
                if isinstance(result, TimeoutError):
                    continue  # the deadline: counted as unfinished matches
                self.violation(f"a client failed: {type(result).__name__}: {result}")
        for room in self.rooms:
            # Whatever was in flight arrives before the audit.
            for p in room.players:
                await p.close()

    async def watchdog(self) -> None:
        """A room with no new version for STALL_S while its servers are up has stalled."""
        last: dict[str, tuple[int, float]] = {}
        while True:
            await asyncio.sleep(2)
            now = time.monotonic()
            for room in self.rooms:
                if room.finished:
                    continue
                version = room.version()
                seen, since = last.get(room.code, (-2, now))
                if version != seen or not self.servers.up.is_set():
                    last[room.code] = (version, now)
                elif now - since > STALL_S:
                    self.violation(f"room {room.code[:6]} stalled at version {version}")
                    last[room.code] = (version, now)


# --- the audit ---------------------------------------------------------------------------


def audit_versions(player: SoakPlayer, where: str) -> list[str]:
    """Versions never repeat or go backwards; only a welcome may skip ahead."""
    problems = []
    top = -1
    for raw in player.frames:
        frame = json.loads(raw)
        kind = frame.get("type")
        if kind == "welcome":
            if frame["version"] < top:
                problems.append(f"{where}: welcome at {frame['version']} after {top}")
            top = max(top, frame["version"])
        elif kind == "events":
            first = frame["events"][0]["version"]
            if first <= top:
                problems.append(f"{where}: version {first} again after {top}")
            elif first != top + 1:
                problems.append(f"{where}: events skip from {top} to {first} without a welcome")
            top = max(top, frame["version"])
    return problems


def signature(event: dict[str, Any]) -> tuple[Any, ...]:
    """What every member is told alike of an event (a drawn card or a dealt hand is the
    recipient's own): two clients given different signatures at one version saw two
    histories."""
    card = event.get("card") if event["kind"] == "card_played" else None
    return (
        event["kind"],
        event.get("seat"),
        card.get("id") if isinstance(card, dict) else None,
        event.get("round"),
        event.get("winner"),
        tuple(event.get("points") or ()),
    )


async def stored_rounds(
    url: str, match_ids: set[str]
) -> tuple[dict[tuple[str, int], list[int]], Counter[str], set[str]]:
    """Per (match, round) the per-seat points in the database, the rows per round key, and the
    matches whose status is finished."""
    engine = create_async_engine(url)
    points: dict[tuple[str, int], list[int]] = {}
    rows: Counter[str] = Counter()
    try:
        async with engine.connect() as conn:
            result = await conn.execute(
                select(
                    RoundPlayer.match_id, RoundPlayer.number, RoundPlayer.seat, RoundPlayer.points
                )
                .where(RoundPlayer.match_id.in_(match_ids))
                .order_by(RoundPlayer.match_id, RoundPlayer.number, RoundPlayer.seat)
            )
            for match_id, number, seat, value in result:
                key = (match_id, number)
                seats = points.setdefault(key, [])
                if seat == len(seats):
                    seats.append(value)
                rows[f"{match_id}/{number}/{seat}"] += 1
            finished = set(
                (
                    await conn.execute(
                        select(Match.id).where(Match.id.in_(match_ids), Match.status == "finished")
                    )
                ).scalars()
            )
    finally:
        await engine.dispose()
    return points, rows, finished


async def audit(soak: Soak, servers: Servers) -> None:
    report = soak.report
    players = [p for room in soak.rooms for p in room.players]
    report.frames_audited = sum(len(p.frames) for p in players)
    evidence: list[dict[str, Any]] = []
    report.leaks = leaks(players, evidence)
    if evidence:  # kept for whoever investigates: the frames of each leak
        path = Path(tempfile.gettempdir()) / f"soak-leaks-{soak.options.mode}-{os.getpid()}.json"
        path.write_text(json.dumps(evidence, indent=1))
        report.evidence = str(path)
    seen: dict[tuple[str, int], list[int]] = {}
    finished_seen: set[str] = set()
    started: set[str] = set()
    for room in soak.rooms:
        public: dict[int, tuple[Any, ...]] = {}
        for seat in room.seats:
            p = seat.player
            report.violations += audit_versions(p, f"room {room.code[:6]} seat {seat.seat}")
            for version, event in p.history.items():
                known = public.setdefault(version, signature(event))
                if known != signature(event):
                    report.violations.append(
                        f"room {room.code[:6]}: version {version} was {known} for one client"
                        f" and {signature(event)} for another"
                    )
                if event["kind"] == "round_ended":
                    key = (event["match_id"], event["round"])
                    points = list(event["points"])
                    if seen.setdefault(key, points) != points:
                        report.duplicated_rounds.append(
                            f"{key[0][:6]} round {key[1]} ended twice: {seen[key]} and {points}"
                        )
                if event["kind"] == "match_ended":
                    finished_seen.add(event["match_id"])
                if event["kind"] == "round_started":
                    started.add(event["match_id"])
        # A match whose last round ended while its clients were away shows as over in the
        # welcome only: its id is the view's.
        for p in room.players:
            if p.view and p.view.get("status") == "match_over":
                finished_seen.add(p.view["match_id"])
    report.rounds_seen = len(seen)
    match_ids = {key[0] for key in seen} | finished_seen | started
    stored: dict[tuple[str, int], list[int]] = {}
    finished_stored: set[str] = set()
    deadline = time.monotonic() + 30  # the recorders deliver their outboxes meanwhile
    while True:
        stored, rows, finished_stored = await stored_rounds(servers.database_url, match_ids)
        if set(seen) <= set(stored) and finished_seen | started <= finished_stored:
            break
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    for name, count in rows.items():
        if count > 1:
            report.duplicated_rounds.append(f"{name} stored {count} times")
    report.rounds_stored = len(stored)
    report.stored_unseen = len(set(stored) - set(seen))
    for key, points in sorted(seen.items()):
        if key not in stored:
            report.lost_rounds.append(f"{key[0][:6]} round {key[1]} not in the database")
        elif stored[key] != points:
            report.lost_rounds.append(
                f"{key[0][:6]} round {key[1]}: seen {points}, stored {stored[key]}"
            )
    report.matches_started = len(started)
    report.matches_finished = len(started & finished_seen)
    report.matches_finished_stored = len(started & finished_stored)
    missing = finished_seen - finished_stored
    report.violations += [f"match {m[:6]} over but not finished in the database" for m in missing]


async def run_mode(options: Options) -> Report:
    report = Report(options.mode, options.database, target=options.target)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        workdir = options.workdir or Path(tmp)
        servers = Servers(options, workdir)
        mark = time.monotonic()

        def phase(name: str) -> None:
            nonlocal mark
            report.phases[name] = round(time.monotonic() - mark, 1)
            mark = time.monotonic()

        try:
            await servers.start()
            phase("start")
            soak = Soak(options, servers, report, phase)
            await soak.run()
            phase("play")
            await audit(soak, servers)
            phase("audit")
        finally:
            await servers.stop()
            await servers.cleanup()
            phase("stop")
    report.seconds = time.monotonic() - started
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("embedded", "cluster", "both"), default="both")
    parser.add_argument("--database", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--target", type=int, default=500, help="target score (50..10000)")
    parser.add_argument("--outage-seconds", type=float, default=10.0)
    parser.add_argument("--drop-every", type=float, default=8.0, help="mean s between drops")
    parser.add_argument("--max-seconds", type=float, default=270.0, help="per mode")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    modes = ("embedded", "cluster") if args.mode == "both" else (args.mode,)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"soak {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
        f"{platform.machine()} {os.cpu_count()} CPUs, "
        f"PostgreSQL {POSTGRES_ADMIN.rsplit('@', 1)[-1]}",
        flush=True,
    )
    failed = False
    for mode in modes:
        options = Options(
            mode=mode,
            database=args.database if mode == "embedded" else "postgresql",
            rooms=args.rooms,
            target=args.target,
            outage_seconds=args.outage_seconds,
            drop_every_s=args.drop_every,
            max_seconds=args.max_seconds,
            seed=args.seed,
        )
        try:
            report = asyncio.run(run_mode(options))
        except (pytest.skip.Exception, pytest.fail.Exception) as exc:  # a service missing
            print(f"soak {mode}: cannot run: {exc}", flush=True)
            failed = True
            continue
        print("\n".join(report.lines()), flush=True)
        failed = failed or not report.clean
    print("soak: FAILED" if failed else "soak: clean", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
