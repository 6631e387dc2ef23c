"""Move latency as a player sees it, with match persistence off versus on, end to end.

One real server process per configuration (`uvicorn app.main:app` on a free loopback port):
"off" keeps matches in memory (DATABASE_URL=memory://), "sqlite" records them in a SQLite file,
"postgres" in a fresh PostgreSQL database created for the run and dropped after it (skipped
with a note when PostgreSQL is unreachable). This process is the only client: on each server
it creates a room with the same settings, seats three humans, each on its own WebSocket with a
reader task that drains it continuously, and plays whole matches with a deterministic policy
read from the views (`you.moves`). Games differ between servers (the deals are random; no test
hook is used), so the counts are reported.

What is timed: from sending a move (`play`, `draw`, `pass`, `choose`, `accept`) to receiving
its `ack` on the mover's socket, which comes after the events the move produced (PROTOCOL
section 3): the server's whole path (engine, recording, fan-out to the three seats) and the
loopback. The client decodes event frames after taking the time, so one seat's ack does not
wait for this shared client to decode the other seats' views. One move on each server in turn
(in a new order every turn, from --seed), so machine noise falls on all configurations alike.
A move whose events include `round_ended` is a "round end" (the round is recorded before that
event is sent). Not timed: dealing (`start`, by the host) and the first round on each server
(--warmup-rounds). The players' policy is deterministic given --seed; the servers run with
their rate limit lifted (one client plays every seat, faster than people do).

Usage: python bench/move_latency.py [--matches N] [--seed S] [--markdown] [--control]
(about a minute with the default 15 matches on 2 CPUs)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import platform
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
import wire
from websockets.asyncio.client import ClientConnection

REPO = Path(__file__).resolve().parents[1]
POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
PLAYERS = 3
# The same room settings on every server: no turn timer and no automatic deal, so nothing
# but the players' moves (and the host's `start`) changes a room. The rest are the defaults.
ROOM_SETTINGS: dict[str, Any] = {"turn_seconds": 0, "next_round_seconds": 0}
REPLY_TIMEOUT_S = 10.0  # longest wait for one ack before the server is declared stuck
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
# Frames longer than this (events and welcomes: they carry a view) are decoded after the
# timing; shorter ones (acks, errors) at once. Any frame is handled right either way.
SMALL_FRAME = 1024
LAUNCH_ATTEMPTS = 3
MAX_ERRORS = 100  # refused moves (none expected) before the run is called broken


class BenchError(Exception):
    """The run cannot go on (a server died or stopped answering)."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def policy(view: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """The seat's move in this view, if it has one: name a color when asked, accept a
    challengeable card, else play a legal card chosen by `rng` (declaring UNO when it leaves
    one card), else draw, else pass. Never catches, challenges or jumps in."""
    you = view.get("you")
    if not you or view["status"] != "playing":
        return None
    moves = you["moves"]
    if moves.get("choose"):
        return "choose", {"color": moves["choose"][0]}
    if moves.get("accept"):
        return "accept", {}
    if moves.get("play"):
        option = rng.choice(moves["play"])
        fields: dict[str, Any] = {"card": option["card"]}
        if option.get("colors"):
            fields["color"] = rng.choice(option["colors"])
        if option.get("targets"):
            fields["target"] = rng.choice(option["targets"])
        if len(you["hand"]) == 2:
            fields["uno"] = True
        return "play", fields
    if moves.get("draw"):
        return "draw", {}
    if moves.get("pass"):
        return "pass", {}
    return None


@dataclass
class Seat:
    """One player's socket, drained by its reader task.

    The reader decodes only what it must to take the time of an ack: small frames, to find
    acks and errors. Every other frame (an event or welcome carries the whole view, a few KB)
    is kept, in order, and decoded by `catch_up` outside the timed window, so the time of one
    seat's ack does not include decoding the other seats' views on this shared client."""

    ws: ClientConnection
    server: Server
    view: dict[str, Any] = field(default_factory=dict)
    version: int = -1
    backlog: list[str] = field(default_factory=list)  # event frames not decoded yet
    pending: dict[str, asyncio.Future[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    kinds: list[str] = field(default_factory=list)  # event kinds since the last command sent
    closed: BaseException | None = None

    async def read(self) -> None:
        try:
            async for raw in self.ws:
                received = time.perf_counter_ns()
                assert isinstance(raw, str)
                if len(raw) > SMALL_FRAME:
                    self.backlog.append(raw)
                else:
                    frame = json.loads(raw)
                    if frame["type"] in ("ack", "error"):
                        future = self.pending.pop(frame.get("id"), None)
                        if future is not None and not future.done():
                            future.set_result((received, frame))
                    else:
                        self.backlog.append(raw)
                self.server.changed.set()
            raise ConnectionError("the server closed the socket")
        except BaseException as exc:
            self.closed = exc
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError(f"socket lost: {exc!r}"))
            self.server.changed.set()
            if not isinstance(exc, Exception):
                raise

    def catch_up(self) -> None:
        """Decode the frames received so far, in order: the latest view, the event kinds."""
        backlog, self.backlog = self.backlog, []
        for raw in backlog:
            frame = json.loads(raw)
            if wire.carries_view(frame):  # v1 `event`, v2 `events`, `welcome`
                self.view, self.version = frame["view"], frame["version"]
                self.kinds.extend(wire.kinds(frame))

    async def command(self, type_: str, fields: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Send one command; return (nanoseconds to its ack or error, that frame)."""
        self.server.ids += 1
        command_id = f"c{self.server.ids}"
        text = json.dumps({"type": type_, "id": command_id, "at": self.version, **fields})
        future: asyncio.Future[tuple[int, dict[str, Any]]] = (
            asyncio.get_running_loop().create_future()
        )
        self.pending[command_id] = future
        self.kinds = []
        sent = time.perf_counter_ns()
        try:
            await self.ws.send(text)
            received, reply = await asyncio.wait_for(future, REPLY_TIMEOUT_S)
        except (TimeoutError, ConnectionError, websockets.ConnectionClosed) as exc:
            self.server.check_alive()
            raise BenchError(f"{self.server.name}: no reply to {type_} ({exc!r})") from exc
        return received - sent, reply


@dataclass
class Server:
    """One server process and the room played on it."""

    name: str
    database_url: str
    workdir: Path
    rng: random.Random
    proc: subprocess.Popen[bytes] | None = None
    base: str = ""
    seats: list[Seat] = field(default_factory=list)
    readers: list[asyncio.Task[None]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    ids: int = 0
    moves_ns: list[int] = field(default_factory=list)
    round_end: list[bool] = field(default_factory=list)  # per timed move
    errors: dict[str, int] = field(default_factory=dict)
    matches_done: int = 0
    rounds_done: int = 0  # warm-up included
    recorded: int | None = None  # rounds found in the database after the run
    code: str = ""  # the commit and engine build the server runs

    @property
    def log(self) -> Path:
        return self.workdir / "server.log"

    async def launch(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        port = free_port()
        env = {
            k: v
            for k, v in os.environ.items()
            if k.upper() not in ("DATABASE_URL", "REDIS_URL", "UNO_TEST_HOOKS")
        }
        env.update(
            {
                "DATABASE_URL": self.database_url,
                "UNO_TEST_HOOKS": "0",
                # One client drives every seat, faster than a person: no rate limit.
                "RATE_LIMIT_PER_SECOND": "1000000",
                "RATE_LIMIT_BURST": "1000000",
                "CREATE_RATE_BURST": "1000000",
                "WS_CONNECT_RATE_BURST": "1000000",
                "MAX_OPEN_PER_ADDRESS": "1000000",  # every socket is 127.0.0.1's
                "ADDRESS_FRAMES_PER_SECOND": "1000000",
                "ADDRESS_FRAMES_BURST": "1000000",
                "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
            }
        )
        python = REPO / ".venv" / "bin" / "python"
        command = [
            str(python if python.exists() else sys.executable),
            *("-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)),
            *("--ws-max-size", "1048576", "--log-level", "warning"),
        ]
        # The working directory is the server's own (a PostgreSQL outbox goes to ./data).
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                command, cwd=self.workdir, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        self.base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=self.base, timeout=5) as http:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                self.check_alive()
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/healthz")).status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise BenchError(f"{self.name}: not healthy after {START_TIMEOUT_S} s")
                await asyncio.sleep(0.1)

    def engine_build(self) -> str:
        """ "native" when the server process mapped the mypyc-compiled engine, else "pure"."""
        try:
            maps = Path(f"/proc/{self.proc.pid if self.proc else 0}/maps").read_text()
        except OSError:
            return "unknown"
        compiled = any("/app/engine/" in line and line.endswith(".so") for line in maps.split("\n"))
        return "native" if compiled else "pure"

    def check_alive(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise BenchError(f"{self.name}: the server exited with code {self.proc.returncode}")

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            tail = self.log.read_text(errors="replace").splitlines()[-lines:]
            return "\n".join(tail) or "(empty)"
        return ""

    async def seat_players(self) -> None:
        async with httpx.AsyncClient(base_url=self.base, timeout=10) as http:
            response = await http.post(
                "/api/rooms", json={"name": "Seat 0", "settings": ROOM_SETTINGS}
            )
            if response.status_code != 201:
                raise BenchError(f"{self.name}: POST /api/rooms: {response.status_code}")
            created = response.json()
            room, tokens = created["room"], {created["seat"]: created["token"]}
            for i in range(1, PLAYERS):
                response = await http.post(f"/api/rooms/{room}/players", json={"name": f"Seat {i}"})
                if response.status_code != 201:
                    raise BenchError(f"{self.name}: join: {response.status_code}")
                joined = response.json()
                tokens[joined["seat"]] = joined["token"]
        url = f"{self.base.replace('http://', 'ws://')}/ws/rooms/{room}"
        if sorted(tokens) != list(range(PLAYERS)):
            raise BenchError(f"{self.name}: unexpected seats {sorted(tokens)}")
        for _, token in sorted(tokens.items()):
            ws = await websockets.connect(url, max_size=1 << 22, compression=None)
            seat = Seat(ws, self)
            self.seats.append(seat)
            self.readers.append(asyncio.create_task(seat.read()))
            await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
        await self.settle()

    async def settle(self) -> dict[str, Any]:
        """Wait until every seat has seen the room's latest version; return seat 0's view."""
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while True:
            for seat in self.seats:
                seat.catch_up()
                if seat.closed is not None:
                    raise BenchError(f"{self.name}: socket lost ({seat.closed!r})")
            latest = max(s.version for s in self.seats)
            if latest >= 0 and all(s.version == latest for s in self.seats):
                return self.seats[0].view
            left = deadline - time.monotonic()
            if left <= 0:
                raise BenchError(f"{self.name}: the seats did not catch up")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    def done(self, matches: int) -> bool:
        return self.matches_done >= matches

    async def step(self, matches: int, warmup_rounds: int) -> None:
        """Deal if the table waits for it (untimed), then one move, timed after the warm-up."""
        self.check_alive()
        view = await self.settle()
        while view["status"] != "playing":
            if view["status"] == "match_over":
                self.matches_done += 1
                if self.done(matches):
                    return
            _, reply = await self.seats[view["host"]].command("start", {})
            if reply["type"] != "ack":
                raise BenchError(f"{self.name}: start refused: {reply.get('code')}")
            view = await self.settle()
        turn = view["state"]["turn"]
        for index in [turn, *(s for s in range(PLAYERS) if s != turn)]:
            seat = self.seats[index]
            move = policy(seat.view, self.rng)
            if move is None:
                continue
            elapsed, reply = await seat.command(*move)
            if reply["type"] != "ack":
                code = str(reply.get("code"))
                self.errors[code] = self.errors.get(code, 0) + 1
                if code == "internal":
                    raise BenchError(f"{self.name}: a {move[0]} failed inside the server")
                if sum(self.errors.values()) > MAX_ERRORS:
                    raise BenchError(f"{self.name}: too many refused moves {self.errors}")
                return
            seat.catch_up()
            ended = "round_ended" in seat.kinds
            if self.rounds_done >= warmup_rounds:
                self.moves_ns.append(elapsed)
                self.round_end.append(ended)
            self.rounds_done += ended
            return
        raise BenchError(f"{self.name}: nobody can move at version {view['version']}")

    async def close(self) -> None:
        for seat in self.seats:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(seat.ws.close(), 2)
        for task in self.readers:
            task.cancel()
        for task in self.readers:
            with contextlib.suppress(BaseException):
                await task

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT_S)

    def ordinary(self) -> list[int]:
        return [ns for ns, end in zip(self.moves_ns, self.round_end, strict=True) if not end]

    def round_ends(self) -> list[int]:
        return [ns for ns, end in zip(self.moves_ns, self.round_end, strict=True) if end]


# --- PostgreSQL: a fresh database for the run -------------------------------------------------


async def create_database(url: str) -> str | None:
    """CREATE DATABASE bench_<hex> next to `url`'s; its URL, or None (with a note) if
    PostgreSQL cannot be reached."""
    from sqlalchemy import text
    from sqlalchemy.engine import make_url
    from sqlalchemy.ext.asyncio import create_async_engine

    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(url, isolation_level="AUTOCOMMIT", connect_args={"timeout": 3})
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        print(f"PostgreSQL unreachable at {url} ({type(exc).__name__}): postgres skipped")
        return None
    finally:
        await admin.dispose()
    return make_url(url).set(database=name).render_as_string(hide_password=False)


async def drop_database(admin_url: str, url: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.engine import make_url
    from sqlalchemy.ext.asyncio import create_async_engine

    name = make_url(url).database
    admin = create_async_engine(
        admin_url, isolation_level="AUTOCOMMIT", connect_args={"timeout": 3}
    )
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    except Exception as exc:
        print(f"could not drop PostgreSQL database {name}: {type(exc).__name__}: {exc}")
    finally:
        await admin.dispose()


async def recorded_rounds(url: str) -> int | None:
    """How many rounds the server left in its database (a check that persistence was on)."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return int((await conn.execute(text("SELECT count(*) FROM rounds"))).scalar_one())
    except Exception as exc:
        print(f"could not count the rounds in {url}: {type(exc).__name__}: {exc}")
        return None
    finally:
        await engine.dispose()


def code_fingerprint() -> str:
    """Names, sizes and times of the server's code (sources and compiled engine)."""
    files = [*(REPO / "app").rglob("*.py"), *(REPO / "app").rglob("*.so"), *REPO.glob("*.so")]
    digest = hashlib.sha256()
    for path in sorted(files):
        with contextlib.suppress(OSError):
            st = path.stat()
            digest.update(f"{path}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


async def launch_all(servers: list[Server]) -> None:
    """Start every server on the same code: the checkout is shared, and a server starting
    while someone edits app/ or rebuilds the engine would run other code than the rest."""
    for attempt in range(LAUNCH_ATTEMPTS):
        before = code_fingerprint()
        await asyncio.gather(*(s.launch() for s in servers))
        builds = {s.engine_build() for s in servers}
        if code_fingerprint() == before and len(builds) == 1:
            code = f"{code_version()}, engine {builds.pop()}"
            for s in servers:
                s.code = code
            return
        for s in servers:
            s.stop()
        if attempt + 1 < LAUNCH_ATTEMPTS:
            print("the code under app/ changed while the servers started: starting them again")
            await asyncio.sleep(5)
    raise BenchError("the code under app/ kept changing while the servers started")


def code_version() -> str:
    """The commit measured, and whether app/ differs from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "app"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "commit unknown"
    return f"commit {head}" + (" with app/ modified" if dirty else "")


# --- the run ----------------------------------------------------------------------------------


async def run(args: argparse.Namespace, work: Path) -> list[Server]:
    servers = [
        Server("off (memory)", "memory://", work / "off", random.Random(args.seed)),
        Server(
            "sqlite",
            f"sqlite+aiosqlite:///{work / 'sqlite' / 'bench.db'}",
            work / "sqlite",
            random.Random(args.seed),
        ),
    ]
    if args.control:  # a second server without persistence: the ratios' noise floor
        servers.insert(
            1, Server("off again", "memory://", work / "off-again", random.Random(args.seed))
        )
    pg_url = await create_database(args.postgres) if args.postgres else None
    if pg_url is not None:
        servers.append(Server("postgres", pg_url, work / "postgres", random.Random(args.seed)))
    try:
        async with asyncio.timeout(args.max_seconds):
            await launch_all(servers)
            for s in servers:
                await s.seat_players()
            order = random.Random(args.seed)
            while not all(s.done(args.matches) for s in servers):
                # Interleaved: one move on each server in turn, in a new order every turn so
                # that no server always moves right after another (whose background work,
                # such as a delivery to the database, could land on the next one's move).
                for s in order.sample(servers, len(servers)):
                    if not s.done(args.matches):
                        await s.step(args.matches, args.warmup_rounds)
        for s in servers:
            s.check_alive()
    except TimeoutError:
        raise BenchError(f"not finished within --max-seconds {args.max_seconds}") from None
    except BenchError as exc:
        for s in servers:
            if (s.proc is not None and s.proc.poll() is not None) or s.name in str(exc):
                print(f"--- {s.name} server log (tail) ---\n{s.log_tail()}", file=sys.stderr)
        raise
    finally:
        for s in servers:
            await s.close()
        for s in servers:
            s.stop()  # a graceful stop: the recorder delivers what its outbox still holds
        for s in servers:
            if s.database_url.startswith(("sqlite", "postgresql")):
                s.recorded = await recorded_rounds(s.database_url)
        if pg_url is not None:
            await drop_database(args.postgres, pg_url)
    return servers


def pct(values: list[int], q: float) -> float:
    """The q-quantile in milliseconds (nearest rank); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6


def machine() -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{platform.node()} · {platform.machine()} · {os.cpu_count()} CPUs · load average {load}"
        f" · Python {platform.python_version()} · "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )


def rows(servers: list[Server]) -> list[dict[str, Any]]:
    base = servers[0]
    out = []
    for s in servers:
        all_p99, other, ends = pct(s.moves_ns, 0.99), s.ordinary(), s.round_ends()
        out.append(
            {
                "name": s.name,
                "matches": s.matches_done,
                "moves": len(s.moves_ns),
                "ends": len(ends),
                "errors": sum(s.errors.values()),
                "p50": pct(s.moves_ns, 0.5),
                "p99": all_p99,
                "ratio": all_p99 / pct(base.moves_ns, 0.99),
                "other_p99": pct(other, 0.99),
                "other_ratio": pct(other, 0.99) / pct(base.ordinary(), 0.99),
                "end_p50": pct(ends, 0.5),
                "end_p99": pct(ends, 0.99),
                "end_ratio": pct(ends, 0.99) / pct(base.round_ends(), 0.99),
            }
        )
    return out


NOTE = (
    "ms from sending a move to its ack on loopback; ratio: p99 over p99 with persistence off; "
    "'others': moves that do not end a round; round ends: moves whose events include "
    "round_ended (the round is recorded before that event is sent)."
)


def recorded_note(servers: list[Server]) -> str:
    counts = [
        f"{s.name} {'?' if s.recorded is None else s.recorded}/{s.rounds_done}"
        for s in servers
        if s.database_url != "memory://"
    ]
    return "rounds in the database after the run / rounds played: " + ", ".join(counts)


def report(servers: list[Server], args: argparse.Namespace) -> None:
    print(machine())
    print(
        f"{servers[0].code}; room settings {json.dumps(ROOM_SETTINGS)}, {PLAYERS} humans, "
        f"seed {args.seed}"
    )
    print(
        f"{'config':<14}{'matches':>8}{'moves':>7}{'errors':>7}{'p50':>8}{'p99':>8}{'ratio':>7}"
        f"{'| others p99':>13}{'ratio':>7}{'| round ends':>13}{'p50':>8}{'p99':>8}{'ratio':>7}"
    )
    for r in rows(servers):
        print(
            f"{r['name']:<14}{r['matches']:>8}{r['moves']:>7}{r['errors']:>7}{r['p50']:>8.3f}"
            f"{r['p99']:>8.3f}{r['ratio']:>7.2f}{r['other_p99']:>13.3f}{r['other_ratio']:>7.2f}"
            f"{r['ends']:>13}{r['end_p50']:>8.3f}{r['end_p99']:>8.3f}{r['end_ratio']:>7.2f}"
        )
    print(NOTE)
    print(recorded_note(servers))


def markdown(servers: list[Server], args: argparse.Namespace) -> None:
    print(
        f"{machine()}; {servers[0].code}; room settings `{json.dumps(ROOM_SETTINGS)}`, "
        f"{PLAYERS} humans, "
        f"seed {args.seed}, `--matches {args.matches}`\n"
    )
    print(
        "| configuration | matches | moves | p50 ms | p99 ms | p99 ratio | others p99 ms "
        "| others ratio | round ends | round end p50 ms | round end p99 ms | round end ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows(servers):
        print(
            f"| {r['name']} | {r['matches']} | {r['moves']} | {r['p50']:.3f} | {r['p99']:.3f} "
            f"| {r['ratio']:.2f} | {r['other_p99']:.3f} | {r['other_ratio']:.2f} | {r['ends']} "
            f"| {r['end_p50']:.3f} | {r['end_p99']:.3f} | {r['end_ratio']:.2f} |"
        )
    print(f"\n{NOTE} The {recorded_note(servers)}.")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=15, help="matches per configuration")
    parser.add_argument("--seed", type=int, default=1, help="seed of the players' policy")
    parser.add_argument(
        "--postgres", default=POSTGRES_URL, help="PostgreSQL server URL ('' to skip postgres)"
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--control",
        action="store_true",
        help="add a second server without persistence ('off again'): how far from 1 the "
        "ratios stray by noise alone",
    )
    parser.add_argument(
        "--warmup-rounds",
        type=int,
        default=1,
        help="rounds played on each server before the timing starts (default 1)",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=600.0, help="give up after this long (default 600)"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-move-latency-"))
    try:
        servers = asyncio.run(run(args, work))
    except BenchError as exc:
        print(f"move_latency: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for s in servers:
        if s.errors:
            print(f"{s.name}: refused moves {s.errors}", file=sys.stderr)
    (markdown if args.markdown else report)(servers, args)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
