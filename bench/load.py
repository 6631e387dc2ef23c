"""Load: many rooms played at once on one UNO server, against a bare WebSocket baseline.

Server under test: one `python -m app.main` process (as `make run` starts it) on a free port with
DATABASE_URL=memory:// (`--sqlite` adds a second one recording matches in a SQLite file), its
rate limit lifted, no test hook (no bot: every seat is a human driven by this client).
Baseline, started in the same run: bench/baseline_ws.py, a bare `websockets` fan-out server
(asyncio, no game): a request frame makes it send N frames of B characters to each of the 3
sockets of a "room", then an ack to the sender. Both servers run on uvloop (uvicorn picks it
when it is installed; the header checks what each process mapped), and so does this client
unless --client-loop asyncio.

Load: rooms of 3 human seats, one WebSocket per seat with a reader task, each room played as
fast as its views allow (one command in flight per room: wait until every seat has the room's
latest version, then the seat to move sends its move by the policy of bench/move_latency.py;
the host sends `start` when the table waits for a deal). The rooms are ramped in steps (by
default 10, 50, 100): at each step the UNO server(s) then the baseline get the same number of
rooms for a warm-up then a measured window. Per step and server: moves/s accepted (acks;
`start` not counted), frames/s and KB/s received by the client's sockets, command-to-ack
latency p50/p99, the server process's CPU% (utime+stime from /proc/<pid>/stat) and RSS, and
the client's own CPU% (time.process_time): a client near 100% is the bottleneck, and then the
figures say what one Python client drives, not what the server can take.

The baseline replays the UNO server's shape measured at the same step: per move, the average
number of event frames each seat received (spread over moves so the average is exact) and
their average size, then one ack. The ratios are UNO moves/s over baseline acks/s and UNO p99
over baseline p99: the server's cost over raw socket I/O on this machine.

Both wires are read alike (bench/wire.py): v1's `event` frame per event and v2's `events` frame
per commit; the baseline replays the type, count and size measured. `--json` prints one JSON
object last for the saturation step (moves_per_s, cpu_ms_per_move, baseline_cpu_ms_per_move,
cpu_ratio, p50_ms, p99_ms, rss_mb, the frame shape, the machine's other CPU and the time the
server and the client waited for a CPU). `--paced` and `--idle` run bench/load_paced.py (rooms
at a person's pace, many sockets, client processes, a stall probe in the server). `--app-dir`,
`--server-env`, `--uvicorn-arg` and `--py-spy` change or profile the UNO server.

Usage: python bench/load.py [--rooms 100] [--steps 10,50,100] [--max-seconds 90] [--markdown]
       [--json] | --paced --rooms 2000 --players 4 --interval 4 | --idle 10000 [--playing 500]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
import wire
from move_latency import ROOM_SETTINGS, BenchError, code_version, free_port, policy
from websockets.asyncio.client import ClientConnection

REPO = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
REPLY_TIMEOUT_S = 15.0
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
SMALL_FRAME = 1024  # shorter frames (acks, errors, pongs) are decoded on arrival
SETUP_CONCURRENCY = 10
MAX_ERRORS = 200
TICKS = os.sysconf("SC_CLK_TCK")


def app_commit(server: Server) -> str:
    """The commit of a checkout exported for --app-dir (its COMMIT file), if any."""
    with contextlib.suppress(OSError):
        return (server.app_dir / "COMMIT").read_text().strip()
    return "commit unknown"


def python() -> str:
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv if venv.exists() else sys.executable)


def proc_cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def proc_sys_seconds(pid: int) -> float:
    """stime of a process (its system calls), in seconds."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[12]) / TICKS


def machine_cpu_seconds() -> tuple[float, float]:
    """CPU seconds of the whole machine (all CPUs) busy, and stolen by the hypervisor."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    # user nice system idle iowait irq softirq steal guest guest_nice (guests are in user)
    busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
    return busy / TICKS, fields[7] / TICKS


def proc_run_queue_seconds(pid: int) -> float:
    """Time the process's main thread spent runnable but waiting for a CPU (taken by other
    processes): on a shared machine, what a loop stall or a latency owes to the neighbours."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[1]) / 1e9
    return float("nan")


def own_run_queue_seconds() -> float:
    return proc_run_queue_seconds(os.getpid())


def proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclass
class Counters:
    """Cumulative counts of one server's load; a window is the difference of two snapshots."""

    moves: int = 0  # acked game moves
    starts: int = 0  # acked deals
    errors: dict[str, int] = field(default_factory=dict)
    frames: int = 0  # frames received on all sockets
    chars: int = 0
    acks: int = 0  # acks received (moves and starts): the frames that are not events
    ack_chars: int = 0
    recording: bool = False
    event_type: str = ""  # the type of the server's event frames: "event" (v1), "events" (v2)
    latencies_ns: list[int] = field(default_factory=list)  # of moves, while recording

    def snapshot(self) -> tuple[int, int, int, int, int, int]:
        return self.moves, self.starts, self.frames, self.chars, self.acks, self.ack_chars


@dataclass
class Seat:
    ws: ClientConnection
    room: Room
    view: dict[str, Any] = field(default_factory=dict)
    version: int = -1
    backlog: list[str] = field(default_factory=list)  # large frames not decoded yet
    received: int = 0  # large frames received (the baseline counts its events with it)
    pending: dict[str, asyncio.Future[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    closed: BaseException | None = None

    async def read(self) -> None:
        counters = self.room.server.counters
        try:
            async for raw in self.ws:
                now = time.perf_counter_ns()
                assert isinstance(raw, str)
                counters.frames += 1
                counters.chars += len(raw)
                if len(raw) > SMALL_FRAME:
                    self.backlog.append(raw)
                    self.received += 1
                else:
                    frame = json.loads(raw)
                    kind = frame.get("type")
                    if kind in ("ack", "error"):
                        counters.acks += 1
                        counters.ack_chars += len(raw)
                        future = self.pending.pop(frame.get("id"), None)
                        if future is not None and not future.done():
                            future.set_result((now, frame))
                    else:
                        self.backlog.append(raw)
                        self.received += 1
                self.room.changed.set()
            raise ConnectionError("the server closed the socket")
        except BaseException as exc:
            self.closed = exc
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError(f"socket lost: {exc!r}"))
            self.room.changed.set()
            if not isinstance(exc, Exception):
                raise

    def catch_up(self) -> None:
        """Decode the latest frame carrying a view (v1 `event`, v2 `events` or `welcome`: each
        carries the whole view, so the earlier ones are skipped: the client's work per move
        stays small)."""
        backlog, self.backlog = self.backlog, []
        for raw in reversed(backlog):
            frame = json.loads(raw)
            if wire.carries_view(frame):
                self.view, self.version = frame["view"], frame["version"]
                if frame["type"] != "welcome":
                    self.room.server.counters.event_type = frame["type"]
                return
            if "version" in frame:  # the baseline's events: no view
                self.version = frame["version"]
                return

    async def command(self, type_: str, fields: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        server = self.room.server
        server.ids += 1
        command_id = f"c{server.ids}"
        text = json.dumps({"type": type_, "id": command_id, "at": self.version, **fields})
        future: asyncio.Future[tuple[int, dict[str, Any]]] = (
            asyncio.get_running_loop().create_future()
        )
        self.pending[command_id] = future
        sent = time.perf_counter_ns()
        try:
            await self.ws.send(text)
            received, reply = await asyncio.wait_for(future, REPLY_TIMEOUT_S)
        except (TimeoutError, ConnectionError, websockets.ConnectionClosed) as exc:
            server.check_alive()
            raise BenchError(f"{server.name}: no reply to {type_} ({exc!r})") from exc
        return received - sent, reply


@dataclass
class Room:
    server: Server
    rng: random.Random
    seats: list[Seat] = field(default_factory=list)
    readers: list[asyncio.Task[None]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    expected: list[int] = field(default_factory=list)  # baseline: frames per seat
    carry: float = 0.0  # baseline: fractional event frames per seat not sent yet
    mover: int = 0  # baseline: the next seat to send

    async def wait(self, ready: Any) -> None:
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while True:
            for seat in self.seats:
                if seat.closed is not None:
                    raise BenchError(f"{self.server.name}: socket lost ({seat.closed!r})")
            if ready():
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise BenchError(f"{self.server.name}: the seats did not catch up")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def settle(self) -> dict[str, Any]:
        """Every seat at the room's latest version; seat 0's view."""

        def ready() -> bool:
            for seat in self.seats:
                seat.catch_up()
            latest = max(s.version for s in self.seats)
            return latest >= 0 and all(s.version == latest for s in self.seats)

        await self.wait(ready)
        return self.seats[0].view

    async def uno_step(self) -> None:
        counters = self.server.counters
        view = await self.settle()
        if view["status"] != "playing":
            _, reply = await self.seats[view["host"]].command("start", {})
            if reply["type"] != "ack":
                raise BenchError(f"{self.server.name}: start refused: {reply.get('code')}")
            counters.starts += 1
            return
        turn = view["state"]["turn"]
        for index in [turn, *(s for s in range(len(self.seats)) if s != turn)]:
            seat = self.seats[index]
            move = policy(seat.view, self.rng)
            if move is None:
                continue
            elapsed, reply = await seat.command(*move)
            if reply["type"] != "ack":
                code = str(reply.get("code"))
                counters.errors[code] = counters.errors.get(code, 0) + 1
                if code == "internal" or sum(counters.errors.values()) > MAX_ERRORS:
                    raise BenchError(f"{self.server.name}: refused moves {counters.errors}")
                return
            counters.moves += 1
            if counters.recording:
                counters.latencies_ns.append(elapsed)
            return
        raise BenchError(f"{self.server.name}: nobody can move at version {view['version']}")

    async def baseline_step(self, per_seat: float, size: int, frame_type: str) -> None:
        """One request shaped like an average UNO move, then wait for every seat's frames."""
        counters = self.server.counters
        self.carry += per_seat
        n = int(self.carry)
        self.carry -= n
        seat = self.seats[self.mover]
        self.mover = (self.mover + 1) % len(self.seats)
        elapsed, reply = await seat.command("move", {"n": n, "b": size, "t": frame_type})
        if reply["type"] != "ack":
            raise BenchError(f"{self.server.name}: unexpected reply {reply}")
        counters.moves += 1
        if counters.recording:
            counters.latencies_ns.append(elapsed)
        self.expected = [e + n for e in self.expected or [0] * len(self.seats)]

        def ready() -> bool:
            if all(s.received >= e for s, e in zip(self.seats, self.expected, strict=True)):
                for s in self.seats:
                    s.catch_up()
                return True
            return False

        await self.wait(ready)

    async def close(self) -> None:
        for seat in self.seats:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(seat.ws.close(), 2)
        for task in self.readers:
            task.cancel()
        for task in self.readers:
            with contextlib.suppress(BaseException):
                await task


@dataclass
class Server:
    name: str
    kind: str  # "uno" or "baseline"
    workdir: Path
    database_url: str = "memory://"
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    rooms: list[Room] = field(default_factory=list)
    counters: Counters = field(default_factory=Counters)
    ids: int = 0
    stop_flag: bool = False
    players: int = 3
    extra_env: dict[str, str] = field(default_factory=dict)
    py_spy: str = ""  # the UNO server runs under `py-spy record` into this file
    app_dir: Path = REPO  # the checkout whose app/ the UNO server runs
    uvicorn_args: list[str] = field(default_factory=list)
    shape: tuple[float, int, str] = (1.0, 2000, "event")  # baseline: frames per seat, size, type

    @property
    def log(self) -> Path:
        return self.workdir / "server.log"

    async def launch(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        env = {
            k: v
            for k, v in os.environ.items()
            if k.upper() not in ("DATABASE_URL", "REDIS_URL", "UNO_TEST_HOOKS")
        }
        env.update(
            {
                "DATABASE_URL": self.database_url,
                "UNO_TEST_HOOKS": "0",
                "RATE_LIMIT_PER_SECOND": "1000000",
                "RATE_LIMIT_BURST": "1000000",
                "CREATE_RATE_BURST": "1000000",
                "WS_CONNECT_RATE_BURST": "1000000",
                "MAX_OPEN_PER_ADDRESS": "1000000",  # every socket is 127.0.0.1's
                "ADDRESS_FRAMES_PER_SECOND": "1000000",
                "ADDRESS_FRAMES_BURST": "1000000",
                "PYTHONPATH": os.pathsep.join(
                    filter(None, [str(self.app_dir), env.get("PYTHONPATH")])
                ),
                **self.extra_env,
            }
        )
        if self.kind == "uno" and not self.uvicorn_args:
            # As `make run` and the container start it: app/server.py's options and WebSocket
            # protocol (its direct send path included).
            env.update({"HOST": "127.0.0.1", "PORT": str(self.port), "MAX_CONNECTIONS": "30000"})
            command = [python(), "-m", "app.main"]
        elif self.kind == "uno":  # another uvicorn set-up to compare (e.g. --ws=websockets)
            command = [
                python(),
                *("-m", "uvicorn", "app.main:app", "--host", "127.0.0.1"),
                *("--port", str(self.port), "--ws-max-size", "1048576", "--log-level", "warning"),
                *self.uvicorn_args,
            ]
        else:
            command = [python(), str(BENCH / "baseline_ws.py"), "--port", str(self.port)]
        if self.py_spy:
            spy = str(Path(python()).with_name("py-spy"))
            # --nonblocking: sample without pausing the server (it would slow what is measured)
            served = command
            command = [spy, "record", "-r", "100", "--nonblocking", "-f", "raw"]
            command += ["-o", self.py_spy, "--", *served]
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                command, cwd=self.workdir, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        async with httpx.AsyncClient(timeout=5) as http:
            while True:
                self.check_alive()
                if self.kind == "uno":
                    with contextlib.suppress(httpx.TransportError):
                        url = f"http://127.0.0.1:{self.port}/healthz"
                        if (await http.get(url)).status_code == 200:
                            return
                elif "ready" in self.log.read_text(errors="replace"):
                    return
                if time.monotonic() > deadline:
                    raise BenchError(f"{self.name}: not ready after {START_TIMEOUT_S} s")
                await asyncio.sleep(0.1)

    @property
    def pid(self) -> int:
        """The server's process (under py-spy: py-spy's child)."""
        assert self.proc is not None
        if not self.py_spy:
            return self.proc.pid
        for _ in range(50):
            with contextlib.suppress(OSError, ValueError):
                children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
                return int(children.read_text().split()[0])
            time.sleep(0.1)
        raise BenchError(f"{self.name}: no server process under py-spy")

    def check_alive(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise BenchError(f"{self.name}: the server exited with code {self.proc.returncode}")

    def build(self) -> str:
        """The event loop the process mapped (uvloop or asyncio) and, for UNO, the engine's
        build (native: the mypyc-compiled modules)."""
        try:
            lines = Path(f"/proc/{self.pid if self.proc else 0}/maps").read_text().split("\n")
        except OSError:
            return f"{self.name}: unknown"
        loop = "uvloop" if any("/uvloop/" in line for line in lines) else "asyncio"
        if self.kind != "uno":
            return f"{self.name}: {loop}"
        compiled = any("/app/engine/" in line and line.endswith(".so") for line in lines)
        where = "" if self.app_dir == REPO else f", app from {self.app_dir} ({app_commit(self)})"
        return f"{self.name}: {loop}, engine {'native' if compiled else 'pure'}{where}"

    async def add_room(self, index: int, seed: int) -> None:
        room = Room(self, random.Random(seed * 1_000_003 + index))
        ws_base = f"ws://127.0.0.1:{self.port}"
        if self.kind == "uno":
            base = f"http://127.0.0.1:{self.port}"
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                response = await http.post(
                    "/api/rooms", json={"name": "Seat 0", "settings": ROOM_SETTINGS}
                )
                if response.status_code != 201:
                    raise BenchError(f"{self.name}: POST /api/rooms: {response.status_code}")
                created = response.json()
                code, tokens = created["room"], {created["seat"]: created["token"]}
                for i in range(1, self.players):
                    response = await http.post(
                        f"/api/rooms/{code}/players", json={"name": f"Seat {i}"}
                    )
                    if response.status_code != 201:
                        raise BenchError(f"{self.name}: join: {response.status_code}")
                    tokens[response.json()["seat"]] = response.json()["token"]
            hellos = [
                {"type": "hello", "token": token, "since": None}
                for _, token in sorted(tokens.items())
            ]
            url = f"{ws_base}/ws/rooms/{code}"
        else:
            hellos = [{"room": f"r{index}"}] * self.players
            url = ws_base
        for hello in hellos:
            ws = await websockets.connect(url, max_size=1 << 22, compression=None)
            seat = Seat(ws, room)
            room.seats.append(seat)
            room.readers.append(asyncio.create_task(seat.read()))
            await ws.send(json.dumps(hello))
        if self.kind == "uno":
            await room.settle()
        self.rooms.append(room)

    async def grow(self, rooms: int, seed: int) -> None:
        limit = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def one(index: int) -> None:
            async with limit:
                await self.add_room(index, seed)

        await asyncio.gather(*(one(i) for i in range(len(self.rooms), rooms)))

    async def drive(self, room: Room) -> None:
        while not self.stop_flag:
            if self.kind == "uno":
                await room.uno_step()
            else:
                await room.baseline_step(*self.shape)

    async def close(self) -> None:
        for room in self.rooms:
            await room.close()

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        if self.py_spy:  # stop the server; py-spy then writes its file and exits
            with contextlib.suppress(BenchError, OSError):
                os.kill(self.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(STOP_TIMEOUT_S * 3)
                return
        self.proc.terminate()
        try:
            self.proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT_S)

    def log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return ""


@dataclass
class Window:
    """What one server did with a number of rooms during one measured window."""

    server: str
    rooms: int
    players: int
    event_type: str
    seconds: float
    moves: int
    starts: int
    frames: int
    chars: int
    acks: int
    ack_chars: int
    errors: int
    p50_ms: float
    p99_ms: float
    server_cpu: float  # percent of one CPU
    rss_mb: float
    client_cpu: float
    other_cpu: float  # the rest of the machine: busy CPU not spent by the server or client
    run_queue: float  # percent of the window the server waited for a CPU while runnable
    client_run_queue: float  # the same for this client
    steal: float  # percent of one CPU taken by the hypervisor

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds

    @property
    def cpu_ms_per_move(self) -> float:
        """The server's CPU per acked move (the baseline: per request), in milliseconds."""
        return 10 * self.server_cpu / self.moves_per_s if self.moves else float("nan")

    @property
    def frames_per_s(self) -> float:
        return self.frames / self.seconds

    @property
    def kb_per_s(self) -> float:
        return self.chars / self.seconds / 1000

    def shape(self) -> tuple[float, int, str]:
        """Event frames each seat receives per command, their average size and their type
        (v1: several `event` frames per command; v2: one `events` frame per commit)."""
        commands = self.moves + self.starts
        events = self.frames - self.acks
        if commands == 0 or events == 0:
            return 1.0, 2000, self.event_type or "event"
        size = (self.chars - self.ack_chars) / events
        per_seat = events / commands / self.players
        return per_seat, max(SMALL_FRAME + 1, round(size)), self.event_type or "event"


def pct(values: list[int], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6


async def measure(server: Server, rooms: int, args: argparse.Namespace, window: float) -> Window:
    """Grow to `rooms`, play them all for the warm-up then the window, stop, and report."""
    assert server.proc is not None
    await server.grow(rooms, args.seed)
    server.stop_flag = False
    counters = server.counters
    drivers = [asyncio.create_task(server.drive(room)) for room in server.rooms]
    try:
        await asyncio.sleep(args.warmup)
        for task in drivers:
            if task.done():
                task.result()  # raises what stopped it
        counters.latencies_ns = []
        counters.recording = True
        before = counters.snapshot()
        errors_before = sum(counters.errors.values())
        pid = server.pid
        queue0, client_queue0 = proc_run_queue_seconds(pid), own_run_queue_seconds()
        cpu0, client0, t0 = proc_cpu_seconds(pid), time.process_time(), time.monotonic()
        busy0, steal0 = machine_cpu_seconds()
        await asyncio.sleep(window)
        cpu1, client1, t1 = proc_cpu_seconds(pid), time.process_time(), time.monotonic()
        queue1, client_queue1 = proc_run_queue_seconds(pid), own_run_queue_seconds()
        busy1, steal1 = machine_cpu_seconds()
        after = counters.snapshot()
        counters.recording = False
        latencies = counters.latencies_ns
        rss = proc_rss_mb(pid)
        errors = sum(counters.errors.values()) - errors_before
    finally:
        server.stop_flag = True
        done, _ = await asyncio.wait(drivers, timeout=REPLY_TIMEOUT_S)
        for task in drivers:
            task.cancel()
    for task in done:
        task.result()
    server.check_alive()
    delta = [a - b for a, b in zip(after, before, strict=True)]
    moves, starts, frames, chars, acks, ack_chars = delta
    elapsed = t1 - t0
    return Window(
        server.name,
        rooms,
        server.players,
        counters.event_type,
        elapsed,
        moves,
        starts,
        frames,
        chars,
        acks,
        ack_chars,
        errors,
        pct(latencies, 0.5),
        pct(latencies, 0.99),
        100 * (cpu1 - cpu0) / elapsed,
        rss,
        100 * (client1 - client0) / elapsed,
        100 * max(0.0, (busy1 - busy0) - (cpu1 - cpu0) - (client1 - client0)) / elapsed,
        100 * (steal1 - steal0) / elapsed,
        100 * (queue1 - queue0) / elapsed,
        100 * (client_queue1 - client_queue0) / elapsed,
    )


def steps_of(args: argparse.Namespace) -> list[int]:
    if args.steps:
        return sorted({int(s) for s in args.steps.split(",") if int(s) > 0})
    n = args.rooms
    return sorted({max(1, n // 10), max(1, n // 2), n})


async def run(args: argparse.Namespace, work: Path) -> tuple[list[Window], list[str]]:
    began = time.monotonic()
    steps = steps_of(args)
    extra_env = dict(item.split("=", 1) for item in args.server_env)
    unos = [
        Server(
            "uno memory",
            "uno",
            work / "uno",
            players=args.players,
            extra_env=extra_env,
            py_spy=str(Path(args.py_spy).resolve()) if args.py_spy else "",
            app_dir=Path(args.app_dir).resolve() if args.app_dir else REPO,
            uvicorn_args=args.uvicorn_arg,
        )
    ]
    if args.sqlite:
        unos.append(
            Server(
                "uno sqlite",
                "uno",
                work / "sqlite",
                f"sqlite+aiosqlite:///{work / 'sqlite' / 'bench.db'}",
                players=args.players,
                extra_env=extra_env,
            )
        )
    baseline = Server("baseline ws", "baseline", work / "baseline", players=args.players)
    servers = [*unos, baseline]
    # The window per server: what the time guard leaves after start-up (about 10 s with the
    # rooms' set-up), shared by every step and server, at most --window seconds.
    slots = len(steps) * len(servers)
    window = min(args.window, max(1.0, (args.max_seconds - 12) / slots - args.warmup))
    results: list[Window] = []
    notes: list[str] = []
    try:
        async with asyncio.timeout(args.max_seconds + 60):  # a stuck server, not slow steps
            await asyncio.gather(*(s.launch() for s in servers))
            await asyncio.sleep(0.5)  # the baseline imports uvloop after saying nothing yet
            notes.append(", ".join(s.build() for s in servers))
            for rooms in steps:
                spent = time.monotonic() - began
                need = len(servers) * (args.warmup + window + 0.05 * rooms)
                if spent + need > args.max_seconds:
                    notes.append(f"step {rooms} rooms skipped: --max-seconds {args.max_seconds}")
                    break
                for uno in unos:
                    results.append(await measure(uno, rooms, args, window))
                baseline.shape = results[-len(unos)].shape()
                results.append(await measure(baseline, rooms, args, window))
                per_seat, size, frame_type = baseline.shape
                notes.append(
                    f"{rooms} rooms: baseline shape {per_seat:.2f} `{frame_type}` frames of "
                    f"{size} characters per seat per request"
                )
    except TimeoutError:
        raise BenchError(
            f"stuck: not finished within --max-seconds {args.max_seconds} + 60"
        ) from None
    except BenchError:
        for s in servers:
            print(f"--- {s.name} log (tail) ---\n{s.log_tail()}", file=sys.stderr)
        raise
    finally:
        for s in servers:
            await s.close()
        for s in servers:
            s.stop()
    notes.append(f"took {time.monotonic() - began:.0f} s, window {window:.1f} s per server")
    return results, notes


def header(args: argparse.Namespace, load_before: str) -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{platform.node()} · {cpu} · {os.cpu_count()} CPUs · load average {load_before} before,"
        f" {load} after · Python {platform.python_version()} · websockets "
        f"{websockets.__version__} · {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · "
        f"{code_version()}"
    )


def table(results: list[Window]) -> list[dict[str, str]]:
    out = []
    base = {w.rooms: w for w in results if w.server == "baseline ws"}
    for w in results:
        b = base.get(w.rooms)
        uno = w.server != "baseline ws" and b is not None
        bound = []
        if w.client_cpu >= 85:
            bound.append("client")
        if w.server_cpu >= 85:
            bound.append("server")
        out.append(
            {
                "server": w.server,
                "rooms": str(w.rooms),
                "sockets": str(w.rooms * w.players),
                "moves/s": f"{w.moves_per_s:.0f}",
                "frames/s": f"{w.frames_per_s:.0f}",
                "KB/s": f"{w.kb_per_s:.0f}",
                "p50 ms": f"{w.p50_ms:.2f}",
                "p99 ms": f"{w.p99_ms:.2f}",
                "server CPU%": f"{w.server_cpu:.0f}",
                "server CPU ms/move": f"{w.cpu_ms_per_move:.3f}",
                "RSS MB": f"{w.rss_mb:.0f}",
                "client CPU%": f"{w.client_cpu:.0f}",
                "other CPU%": f"{w.other_cpu:.0f}",
                "steal%": f"{w.steal:.0f}",
                "server waits for CPU%": f"{w.run_queue:.0f}",
                "bound": "+".join(bound) or "-",
                "errors": str(w.errors),
                "moves/s ÷ base": f"{w.moves_per_s / b.moves_per_s:.2f}" if uno and b else "",
                "p99 ÷ base": f"{w.p99_ms / b.p99_ms:.2f}" if uno and b else "",
                "CPU/move ÷ base": (
                    f"{w.cpu_ms_per_move / b.cpu_ms_per_move:.2f}" if uno and b else ""
                ),
            }
        )
    return out


NOTE = (
    "moves/s: acked moves (the baseline: acked requests); frames/s and KB/s: received by the "
    "client's sockets; p50/p99: command to ack; CPU%: of one CPU during the window; bound: a "
    "process at 85% or more of a CPU (client: this Python client is the limit, and that row "
    "shows what it drives, not what its server could take); other: the machine's busy CPU not "
    "spent by the server or the client (other work, the kernel); steal: taken by the "
    "hypervisor; server waits for CPU: the time its main thread was runnable but another "
    "process had the CPU (/proc/<pid>/task/<pid>/schedstat); ÷ base: over the baseline at "
    "the same number of rooms (CPU/move holds when "
    "the baseline is client-bound, moves/s then does not)."
)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=100, help="rooms at the last step (100)")
    parser.add_argument(
        "--steps", default="", help="rooms per step, e.g. 10,50,100 (default rooms/10, /2, all)"
    )
    parser.add_argument("--window", type=float, default=8.0, help="measured seconds (at most)")
    parser.add_argument("--warmup", type=float, default=1.5, help="seconds before each window")
    parser.add_argument("--sqlite", action="store_true", help="also a UNO server on SQLite")
    parser.add_argument("--seed", type=int, default=1, help="seed of the players' policy")
    parser.add_argument(
        "--players", type=int, default=0, help="human seats per room (3; --paced and --idle: 4)"
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object last (the saturation step)"
    )
    paced = parser.add_argument_group("paced and idle modes (bench/load_paced.py)")
    paced.add_argument(
        "--paced", action="store_true", help="each room makes a move every --interval seconds"
    )
    paced.add_argument(
        "--idle", type=int, default=0, metavar="SOCKETS", help="this many sockets connected"
    )
    paced.add_argument(
        "--playing", type=int, default=500, help="--idle: sockets of them playing (500)"
    )
    paced.add_argument("--interval", type=float, default=4.0, help="seconds between a room's moves")
    paced.add_argument(
        "--clients", type=int, default=0, help="client processes (default: one per 2,500 sockets)"
    )
    paced.add_argument(
        "--processes", type=int, default=1, help="UNO server processes (more than one: --redis)"
    )
    paced.add_argument(
        "--placement",
        choices=("seat", "room"),
        default="seat",
        help="with --processes: each room's seats spread over the processes (seat: every move"
        " crosses Redis), or a room's sockets on one process, rooms spread (room: as the"
        " balancer's hash of the room places them, docs/deploy/nginx.conf)",
    )
    paced.add_argument(
        "--pin-servers",
        action="store_true",
        help="pin server i (all its threads) to CPU i modulo the machine's CPUs, as an operator"
        " would with taskset or a container's cpuset",
    )
    paced.add_argument(
        "--spy-window",
        default="",
        metavar="PREFIX",
        help="py-spy attached to each server for the measured window only (PREFIX.<i>.txt)",
    )
    paced.add_argument(
        "--cprofile-window",
        default="",
        metavar="PREFIX",
        help="each server profiles itself with cProfile in CPU time for the measured window only"
        " (PREFIX.<pid>.prof; bench/profile_site, compared by bench/profile_diff.py); the"
        " profiler's own cost inflates that run's CPU figures",
    )
    paced.add_argument(
        "--redis",
        action="store_true",
        help="the servers share a private redis-server (REDIS_URL) started for the run",
    )
    paced.add_argument(
        "--client",
        choices=("light", "websockets"),
        default="light",
        help="the load generator's WebSocket client: bench/light_ws.py (light, the default:"
        " least CPU taken from the servers) or the websockets library",
    )
    paced.add_argument(
        "--redis-unix",
        action="store_true",
        help="with --redis: the servers reach it through a Unix socket, not loopback TCP",
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment of the UNO server (e.g. UNO_GC=off), repeatable",
    )
    parser.add_argument(
        "--uvicorn-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an extra argument of the UNO server's uvicorn, e.g. --uvicorn-arg=--ws=websockets",
    )
    parser.add_argument(
        "--app-dir",
        default="",
        metavar="DIR",
        help="run the UNO server from this checkout's app/ (e.g. a `git archive` of an older "
        "commit with its compiled engine copied in), to measure two commits in one session",
    )
    parser.add_argument(
        "--py-spy",
        default="",
        metavar="FILE",
        help="run the UNO server under `py-spy record` (collapsed stacks into FILE)",
    )
    parser.add_argument(
        "--client-loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="this client's event loop (default uvloop, as the servers')",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=90.0, help="time guard for the whole run (90)"
    )
    args = parser.parse_args()
    if args.processes > 1 and not args.redis and args.placement != "room":
        # Without Redis each process keeps its own rooms: only placement by room works (the
        # cost of several processes alone, with nothing shared).
        parser.error("several server processes share rooms only through --redis")
    if args.paced or args.idle:
        import load_paced

        args.players = args.players or 4
        return load_paced.main(args)
    args.players = args.players or 3
    load_before = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    work = Path(tempfile.mkdtemp(prefix="bench-load-"))
    try:
        if args.client_loop == "uvloop":
            import uvloop

            results, notes = uvloop.run(run(args, work))
        else:
            results, notes = asyncio.run(run(args, work))
    except BenchError as exc:
        print(f"load: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = table(results)
    print(header(args, load_before))
    print(
        f"{args.players} human seats per room, one socket each, room settings "
        f"{json.dumps(ROOM_SETTINGS)}; "
        f"client loop {args.client_loop}; baseline: bench/baseline_ws.py (bare websockets "
        f"fan-out); {'; '.join(notes)}"
    )
    if not rows:
        print("no step measured")
        return 1
    columns = list(rows[0])
    if args.markdown:
        print("\n| " + " | ".join(columns) + " |")
        print("|---|" + "---:|" * (len(columns) - 1))
        for r in rows:
            print("| " + " | ".join(r[c] for c in columns) + " |")
        print(f"\n{NOTE}")
    else:
        widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in columns}
        print("  ".join(c.rjust(widths[c]) for c in columns))
        for r in rows:
            print("  ".join(r[c].rjust(widths[c]) for c in columns))
        print(NOTE)
    if args.json:
        print(json.dumps(saturation_summary(results, header(args, load_before))))
    return 0


def saturation_summary(results: list[Window], machine: str) -> dict[str, Any]:
    """The figures of issue 9 for the saturation step: the last step with a UNO row and a
    baseline row (every step saturates the server; the last has the most rooms)."""
    base = {w.rooms: w for w in results if w.server == "baseline ws"}
    uno = [w for w in results if w.server == "uno memory" and w.rooms in base]
    if not uno:
        return {"error": "no step measured"}
    w, b = uno[-1], base[uno[-1].rooms]
    per_seat, size, frame_type = w.shape()
    return {
        "mode": "saturation",
        "wire": wire.wire_of(w.event_type),
        "rooms": w.rooms,
        "players": w.players,
        "sockets": w.rooms * w.players,
        "moves_per_s": round(w.moves_per_s, 1),
        "cpu_ms_per_move": round(w.cpu_ms_per_move, 4),
        "baseline_cpu_ms_per_move": round(b.cpu_ms_per_move, 4),
        "cpu_ratio": round(w.cpu_ms_per_move / b.cpu_ms_per_move, 3),
        "baseline_moves_per_s": round(b.moves_per_s, 1),
        "p50_ms": round(w.p50_ms, 3),
        "p99_ms": round(w.p99_ms, 3),
        "baseline_p99_ms": round(b.p99_ms, 3),
        "rss_mb": round(w.rss_mb, 1),
        "server_cpu_pct": round(w.server_cpu, 1),
        "client_cpu_pct": round(w.client_cpu, 1),
        "baseline_client_cpu_pct": round(b.client_cpu, 1),
        "other_cpu_pct": round(w.other_cpu, 1),
        "server_run_queue_pct": round(w.run_queue, 1),
        "client_run_queue_pct": round(w.client_run_queue, 1),
        "baseline_other_cpu_pct": round(b.other_cpu, 1),
        "frames_per_seat_per_command": round(per_seat, 3),
        "frame_chars": size,
        "frame_type": frame_type,
        "errors": w.errors,
        "machine": machine,
    }


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
