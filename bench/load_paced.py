"""Paced and idle load (`bench/load.py --paced` / `--idle`): many rooms at a person's pace.

`--paced --rooms 2000 --players 4 --interval 4`: 2,000 rooms of 4 human seats (8,000 sockets)
on one UNO server process; each room makes one move every 4 s (a random phase per room, so the
moves spread evenly: 500 moves/s here). `--idle 10000 [--playing 500]`: 10,000 sockets in rooms
of 4, every table dealt, and only 500 of the sockets (125 rooms) playing at that pace.

The server is `python -m app.main` (memory store, rate limit lifted, no test hook) with the
environment variable UNO_LOOP_PROBE set: a probe task inside it (app/loop_probe.py) sleeps 10 ms
again and again and logs, once a second, how late it woke at worst and the garbage collections
of that second. The clients are separate processes (`--clients`, by default one per 2,500
sockets; each is this module with `--worker`), so the client's own Python does not share a
thread with the server's. Every process raises its open-files limit to the hard limit.

`--processes N --redis`: N such server processes sharing a private redis-server started for
the run (no persistence); each room's seats are spread over the processes, so a move's frames
reach players held by other processes through Redis. CPU, RSS and collections are the sum
over the processes, Redis's CPU is reported beside them, the stall is the worst process's.
`--placement room` puts each room's sockets on one process instead (the balancer's hash);
with it `--processes N` also runs without `--redis`, each process keeping its own rooms in
memory: the cost of several processes with nothing shared. `--spy-window PREFIX` attaches
py-spy to each server for the measured window only (PREFIX.<i>.txt, collapsed stacks).

Timed: from sending a command to the moment the LAST seat of the room received a frame whose
version reaches the command's (the ack's version): what the slowest player of the table waits
for. Only commands sent inside the measured window count. A room sends its next command at its
next tick, or at once when the previous one took longer than the interval ("late ticks": the
server is not keeping up). Measured over the window: server CPU% (utime+stime; the system
calls' share, stime, beside it), RSS at the end
and the process's peak (VmHWM), the client processes' CPU%, the rest of the machine's busy CPU
(/proc/stat), and the longest event-loop stall reported by the probe.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import light_ws
import websockets
import wire
from load import (
    BENCH,
    REPO,
    Server,
    header,
    machine_cpu_seconds,
    pct,
    proc_cpu_seconds,
    proc_rss_mb,
    proc_run_queue_seconds,
    proc_sys_seconds,
    python,
)
from move_latency import ROOM_SETTINGS, BenchError, free_port, policy

SOCKETS_PER_CLIENT = 2500
SETUP_CONCURRENCY = 16
REPLY_TIMEOUT_S = 30.0  # an overloaded server answers late; a stuck one is reported
READY_TIMEOUT_S = 600.0  # 2,000 rooms take ~40 s on a quiet machine, minutes on a busy one
DRAIN_S = 10.0  # after the window: commands sent inside it may still complete
LAUNCHED: list[Server] = []  # stopped again on the way out, whatever interrupted the run


def _spy_on(pids: list[int], prefix: str, seconds: float) -> list[subprocess.Popen[bytes]]:
    """`--spy-window PREFIX`: py-spy attached to each server process for the measured window
    only (no set-up, no teardown), collapsed stacks into PREFIX.<i>.txt."""
    if not prefix:
        return []
    spy = str(Path(sys.executable).with_name("py-spy"))
    return [
        subprocess.Popen(
            [
                spy,
                "record",
                "--pid",
                str(pid),
                "--duration",
                str(max(1, int(seconds) - 1)),
                "-r",
                "100",
                "--nonblocking",
                "-f",
                "raw",
                "-o",
                f"{prefix}.{i}.txt",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i, pid in enumerate(pids)
    ]


def _pin(pids: list[int]) -> str:
    """`--pin-servers`: server i, every thread of it, on CPU i modulo the machine's CPUs (the
    load generator and Redis stay free to run anywhere)."""
    cpus = sorted(os.sched_getaffinity(0))
    placed = []
    for i, pid in enumerate(pids):
        cpu = cpus[i % len(cpus)]
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(ProcessLookupError):
                os.sched_setaffinity(int(task), {cpu})
        placed.append(f"{pid} on CPU {cpu}")
    return "servers pinned: " + ", ".join(placed)


def _signal_all(pids: list[int], signum: signal.Signals | None) -> None:
    """`--cprofile-window`: start (SIGUSR1) or stop and write (SIGUSR2) each server's profile."""
    if signum is None:
        return
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


class RedisServer:
    """A private redis-server on a free loopback port (`--redis`): the bench never touches a
    shared Redis, and a run starts from an empty one. No persistence: what is measured is the
    servers' path through Redis, not the disk."""

    def __init__(self, workdir: Path, *, unix: bool = False) -> None:
        self.workdir = workdir
        self.port = free_port()
        # `--redis-unix`: the servers reach it through a Unix socket (what processes on the
        # same machine as their Redis can use), the readiness check still through the port.
        self.socket = workdir / "redis.sock" if unix else None
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.socket is not None:
            return f"unix://{self.socket}?db=0"
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def launch(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise BenchError("--redis needs redis-server on the PATH")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                *(binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""),
                *("--appendonly", "no", "--dir", str(self.workdir)),
                *(
                    ("--unixsocket", str(self.socket), "--unixsocketperm", "700")
                    if self.socket
                    else ()
                ),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 0.5) as conn,
            ):
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise BenchError("the private redis-server did not start")

    def commandstats(self) -> dict[str, tuple[int, float]]:
        """INFO commandstats: command → (calls, µs spent), for the window's difference."""
        out = subprocess.run(
            ["redis-cli", "-p", str(self.port), "INFO", "commandstats"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        stats: dict[str, tuple[int, float]] = {}
        for line in out.stdout.splitlines():
            if line.startswith("cmdstat_"):
                name, _, fields = line[len("cmdstat_") :].partition(":")
                values = dict(f.split("=", 1) for f in fields.split(","))
                stats[name] = (int(values["calls"]), float(values["usec"]))
        return stats

    def version(self) -> str:
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True)
        return next((w[2:] for w in out.stdout.split() if w.startswith("v=")), "?")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


REDIS_LAUNCHED: list[RedisServer] = []


def raise_open_files() -> str:
    """Raise this process's soft open-files limit to the hard limit (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    now = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return f"open-files limit raised from {soft} to {now} (hard {hard})"


def proc_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- the client worker ------------------------------------------------------------------------


@dataclass
class Counts:
    commands: int = 0
    moves: int = 0
    moves_in_window: int = 0
    starts: int = 0
    late_ticks: int = 0
    timeouts: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    frames: int = 0
    chars: int = 0
    latencies_ns: list[int] = field(default_factory=list)
    window: tuple[float, float] = (math.inf, math.inf)  # wall-clock window (time.time())


@dataclass
class Seat:
    room: Room
    ws: Any = None  # a light_ws.LightSocket, or the websockets library's ClientConnection
    latest: str = ""  # the newest frame carrying a view, not decoded yet
    view: dict[str, Any] = field(default_factory=dict)
    version: int = -1  # the newest version received
    version_ns: int = 0  # when it arrived
    pending: dict[str, asyncio.Future[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    closed: BaseException | None = None

    def handle(self, raw: str) -> None:
        """One message from the server."""
        now = time.perf_counter_ns()
        counts = self.room.counts
        counts.frames += 1
        counts.chars += len(raw)
        if raw.startswith('{"type":"ack"') or raw.startswith('{"type":"error"'):
            frame = json.loads(raw)
            future = self.pending.pop(frame.get("id"), None)
            if future is not None and not future.done():
                future.set_result((now, frame))
            return
        version = wire.version_of(raw)
        if '"view"' in raw:
            self.latest = raw
        if version > self.version:
            # One command in flight per room and no timers or bots: the versions a seat
            # receives are those of the room's last command.
            self.version, self.version_ns = version, now
            if version >= self.room.target:
                self.room.changed.set()

    def lost(self, exc: BaseException) -> None:
        if self.closed is not None:
            return
        self.closed = exc
        for future in self.pending.values():
            if not future.done():
                future.set_exception(ConnectionError(f"socket lost: {exc!r}"))
        self.room.changed.set()

    async def read(self) -> None:
        """The websockets library's client: its messages, one at a time."""
        try:
            async for raw in self.ws:
                assert isinstance(raw, str)
                self.handle(raw)
            raise ConnectionError("the server closed the socket")
        except BaseException as exc:
            self.lost(exc)
            if not isinstance(exc, Exception):
                raise

    async def send(self, text: str) -> None:
        if isinstance(self.ws, light_ws.LightSocket):
            self.ws.send(text)
        else:
            await self.ws.send(text)

    async def close(self) -> None:
        if isinstance(self.ws, light_ws.LightSocket):
            self.ws.close()
        elif self.ws is not None:
            await asyncio.wait_for(self.ws.close(), 2)

    def current_view(self) -> dict[str, Any]:
        if self.latest:
            frame = json.loads(self.latest)
            self.latest = ""
            if wire.carries_view(frame):
                self.view = frame["view"]
        return self.view

    async def command(
        self, type_: str, fields: dict[str, Any]
    ) -> tuple[int, float, dict[str, Any]]:
        """Send one command; (perf_counter_ns and wall time when sent, the ack or error)."""
        room = self.room
        room.ids += 1
        command_id = f"c{room.ids}"
        text = json.dumps({"type": type_, "id": command_id, "at": self.version, **fields})
        future: asyncio.Future[tuple[int, dict[str, Any]]] = (
            asyncio.get_running_loop().create_future()
        )
        self.pending[command_id] = future
        sent, sent_wall = time.perf_counter_ns(), time.time()
        await self.send(text)
        _, reply = await asyncio.wait_for(future, REPLY_TIMEOUT_S)
        return sent, sent_wall, reply


@dataclass
class Room:
    index: int
    counts: Counts
    rng: random.Random
    seats: list[Seat] = field(default_factory=list)
    readers: list[asyncio.Task[None]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    target: int = 1 << 62  # the version every seat must reach (the last command's)
    ids: int = 0

    async def all_reached(self, target: int) -> int:
        """Wait until every seat has a frame at `target` or later; when the last one got it."""
        self.target = target
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while True:
            for seat in self.seats:
                if seat.closed is not None:
                    raise BenchError(f"room {self.index}: socket lost ({seat.closed!r})")
            if all(seat.version >= target for seat in self.seats):
                return max(seat.version_ns for seat in self.seats)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def settle_connected(self) -> None:
        self.target = 0
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while True:
            versions = {seat.version for seat in self.seats}
            if len(versions) == 1 and versions != {-1}:
                view = self.seats[0].current_view()
                seats = view.get("seats") or view.get("players") or []
                if view.get("version") == self.seats[0].version and all(
                    s.get("connected") for s in seats
                ):
                    return
            if time.monotonic() > deadline:
                raise BenchError(f"room {self.index}: the seats did not settle")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 0.5)

    async def step(self) -> None:
        """One command: a deal when the table waits for one, else the move of a seat."""
        counts = self.counts
        view = self.seats[0].current_view()
        if view.get("status") != "playing":
            candidates: list[tuple[Seat, tuple[str, dict[str, Any]]]] = [
                (self.seats[view.get("host", 0)], ("start", {}))
            ]
        else:
            turn = view["state"]["turn"]
            candidates = []
            for index in [turn, *(s for s in range(len(self.seats)) if s != turn)]:
                seat = self.seats[index]
                move = policy(seat.current_view(), self.rng)
                if move is not None:
                    candidates.append((seat, move))
                    break
        if not candidates:
            counts.errors["no_move"] = counts.errors.get("no_move", 0) + 1
            return
        seat, (type_, fields) = candidates[0]
        self.target = 1 << 62
        try:
            sent, sent_wall, reply = await seat.command(type_, fields)
            counts.commands += 1
            if reply["type"] != "ack":
                code = str(reply.get("code"))
                counts.errors[code] = counts.errors.get(code, 0) + 1
                return
            last = await self.all_reached(int(reply["version"]))
        except TimeoutError:
            counts.timeouts += 1
            return
        if type_ == "start":
            counts.starts += 1
            return
        counts.moves += 1
        if counts.window[0] <= sent_wall <= counts.window[1]:
            counts.moves_in_window += 1
            counts.latencies_ns.append(last - sent)

    async def play(self, interval: float, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(self.rng.uniform(0, interval))
        tick = loop.time()
        while not stop.is_set():
            await self.step()
            tick += interval
            delay = tick - loop.time()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
            else:
                self.counts.late_ticks += 1
                tick = loop.time()

    async def close(self) -> None:
        for seat in self.seats:
            with contextlib.suppress(Exception):
                await seat.close()
        for task in self.readers:
            task.cancel()
        for task in self.readers:
            with contextlib.suppress(BaseException):
                await task


class Http:
    """A keep-alive HTTP/1.1 client for the set-up's JSON POSTs: httpx cost the client about
    as much CPU per request as the server spent answering it, and 2,000 rooms make 8,000."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if self.streams is not None:
            try:
                return await self._post(path, body)
            except (asyncio.IncompleteReadError, ConnectionError):
                # uvicorn closes a keep-alive connection idle for 5 s, and only an idle one:
                # the request was not read, so sending it again on a new connection is safe.
                self.close()
        return await self._post(path, body)

    async def _post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if self.streams is None:
            self.streams = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.streams
        data = json.dumps(body).encode()
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        lines = head.split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])
        }
        payload = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            writer.close()
            self.streams = None
        return status, json.loads(payload) if payload else None

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


async def set_up_room(
    http: Http,
    ports: list[int],
    index: int,
    players: int,
    counts: Counts,
    seed: int,
    placement: str = "seat",
    client: str = "light",
) -> Room:
    """`http` talks to one of `ports`; seat i's socket goes to ports[(index + i) % n], so with
    several server processes the players of one room sit on different processes, or with
    `placement` "room" every socket of room `index` to ports[index % n] (the balancer's hash
    of the room)."""
    room = Room(index, counts, random.Random(seed * 1_000_003 + index))
    status, created = await http.post("/api/rooms", {"name": "Seat 0", "settings": ROOM_SETTINGS})
    if status != 201:
        raise BenchError(f"POST /api/rooms: {status}")
    code, tokens = created["room"], {created["seat"]: created["token"]}
    for i in range(1, players):
        status, joined = await http.post(f"/api/rooms/{code}/players", {"name": f"Seat {i}"})
        if status != 201:
            raise BenchError(f"join: {status}")
        tokens[joined["seat"]] = joined["token"]
    for i, (_, token) in enumerate(sorted(tokens.items())):
        port = ports[(index + (0 if placement == "room" else i)) % len(ports)]
        seat = Seat(room)
        path = f"/ws/rooms/{code}"
        if client == "light":
            seat.ws = await light_ws.connect(
                "127.0.0.1", port, path, seat.handle, seat.lost, timeout=REPLY_TIMEOUT_S
            )
        else:
            seat.ws = await websockets.connect(
                f"ws://127.0.0.1:{port}{path}",
                max_size=1 << 22,
                compression=None,
                open_timeout=REPLY_TIMEOUT_S,  # a server busy setting up 2,000 rooms accepts late
                # Browsers send no pings (the server pings every socket, and that is measured).
                ping_interval=None,
            )
            room.readers.append(asyncio.create_task(seat.read()))
        room.seats.append(seat)
        await seat.send(json.dumps({"type": "hello", "token": token, "since": None}))
    # Every seat welcomed and seen connected by all, then the first deal (every table holds a
    # game, idle ones too). Each connection is an event: a deal sent before the last of them
    # reached every seat would act on an old view.
    await room.settle_connected()
    await room.step()
    return room


async def worker(config: dict[str, Any]) -> dict[str, Any]:
    counts = Counts()
    ports, players, interval = config["ports"], config["players"], config["interval"]
    rooms: list[Room] = []
    todo = list(reversed(config["rooms"]))

    async def set_up_some() -> None:
        https = [Http(port) for port in ports]
        try:
            while todo:
                index = todo.pop()
                http = https[index % len(https)]
                room = await set_up_room(
                    http,
                    ports,
                    index,
                    players,
                    counts,
                    config["seed"],
                    config["placement"],
                    config.get("client", "light"),
                )
                rooms.append(room)
                if len(rooms) % 100 == 0:
                    elapsed = time.monotonic() - began
                    print(f"{len(rooms)} rooms set up after {elapsed:.1f} s", file=sys.stderr)
        finally:
            for http in https:
                http.close()

    began = time.monotonic()
    await asyncio.gather(*(set_up_some() for _ in range(SETUP_CONCURRENCY)))
    rooms.sort(key=lambda r: r.index)
    ready = {
        "ready": len(rooms),
        "setup_s": round(time.monotonic() - began, 1),
        "setup_cpu_s": round(time.process_time(), 1),
    }
    print(json.dumps(ready))
    sys.stdout.flush()
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    go = json.loads(line)
    counts.window = (go["start"], go["end"])
    playing = set(config["playing"])
    stop = asyncio.Event()
    cpu0 = time.process_time()
    players_tasks = [
        asyncio.create_task(room.play(interval, stop)) for room in rooms if room.index in playing
    ]
    await asyncio.sleep(max(0.0, go["end"] - time.time()))
    cpu1 = time.process_time()
    stop.set()
    done, _ = await asyncio.wait(players_tasks, timeout=DRAIN_S) if players_tasks else (set(), None)
    failures = [repr(t.exception()) for t in done if t.exception() is not None]
    for task in players_tasks:
        task.cancel()
    for room in rooms:
        await room.close()
    return {
        "rooms": len(rooms),
        "commands": counts.commands,
        "moves": counts.moves,
        "moves_in_window": counts.moves_in_window,
        "starts": counts.starts,
        "late_ticks": counts.late_ticks,
        "timeouts": counts.timeouts,
        "errors": counts.errors,
        "frames": counts.frames,
        "chars": counts.chars,
        "latencies_ns": counts.latencies_ns,
        "cpu_s": cpu1 - cpu0,
        "failures": failures[:5],
    }


def worker_main(config_text: str) -> int:
    raise_open_files()
    import uvloop

    try:
        result = uvloop.run(worker(json.loads(config_text)))
    except BenchError as exc:
        print(json.dumps({"error": str(exc)}))
        return 1
    # The result is large (every latency); the event loop may have left stdout non-blocking,
    # where a big write to a pipe the coordinator is slow to read stops part way (one
    # saturation run lost its result so).
    os.set_blocking(sys.stdout.fileno(), True)
    print(json.dumps(result))
    return 0


# --- the coordinator --------------------------------------------------------------------------


@dataclass
class Client:
    proc: asyncio.subprocess.Process
    ready: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)

    async def line(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not raw:
            raise BenchError(f"client {self.proc.pid} exited (code {await self.proc.wait()})")
        message: dict[str, Any] = json.loads(raw)
        if "error" in message:
            raise BenchError(f"client {self.proc.pid}: {message['error']}")
        return message


def probe_window(path: Path, start: float, end: float) -> dict[str, Any]:
    """The probe's lines inside the window: the longest stall and the collections."""
    late, gc_count, gc_max, seconds = 0.0, [0, 0, 0], [0.0, 0.0, 0.0], 0
    gc_cpu_max, gc_cpu, collected = [0.0, 0.0, 0.0], 0.0, 0
    with contextlib.suppress(OSError):
        for text in path.read_text().splitlines():
            line = json.loads(text)
            # A line covers the second before its time stamp.
            if not (start + 1.0 <= line["t"] <= end):
                continue
            seconds += 1
            late = max(late, line["late_max_ms"])
            gc_count = [a + b for a, b in zip(gc_count, line["gc_count"], strict=True)]
            gc_max = [max(a, b) for a, b in zip(gc_max, line["gc_max_ms"], strict=True)]
            cpu_max = line.get("gc_cpu_max_ms", [0.0, 0.0, 0.0])
            gc_cpu_max = [max(a, b) for a, b in zip(gc_cpu_max, cpu_max, strict=True)]
            gc_cpu += line.get("gc_cpu_ms", 0.0)
            collected += line.get("gc_collected", 0)
    return {
        "stall_max_ms": late,
        "gc_count": gc_count,
        "gc_max_ms": gc_max,
        "gc_cpu_max_ms": gc_cpu_max,
        "gc_cpu_ms": round(gc_cpu, 1),
        "gc_collected": collected,
        "probe_seconds": seconds,
    }


async def coordinate(args: argparse.Namespace, work: Path, notes: list[str]) -> dict[str, Any]:
    players = args.players
    if args.idle:
        rooms = math.ceil(args.idle / players)
        playing_rooms = min(rooms, math.ceil(args.playing / players))
    else:
        rooms = args.rooms
        playing_rooms = rooms
    sockets = rooms * players
    clients = args.clients or max(1, math.ceil(sockets / SOCKETS_PER_CLIENT))
    extra_env = dict(item.split("=", 1) for item in args.server_env)
    processes = max(1, args.processes)
    app_dir = Path(args.app_dir).resolve() if args.app_dir else REPO
    if args.cprofile_window:
        # bench/profile_site/sitecustomize.py: the servers profile themselves between signals.
        extra_env["UNO_BENCH_CPROFILE"] = str(Path(args.cprofile_window).resolve())
        extra_env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(app_dir), str(BENCH / "profile_site"), os.environ.get("PYTHONPATH")])
        )
    redis: RedisServer | None = None
    if args.redis:
        redis = RedisServer(work / "redis", unix=args.redis_unix)
        REDIS_LAUNCHED.append(redis)
        redis.launch()
        extra_env["REDIS_URL"] = redis.url
        where = f"Unix socket {redis.socket}" if redis.socket else f"port {redis.port}"
        notes.append(f"private redis-server {redis.version()} on {where}, no persistence")
    kind = "redis" if redis else "memory"
    servers = [
        Server(
            f"uno {kind}" + (f" {i + 1}" if processes > 1 else ""),
            "uno",
            work / f"uno{i}",
            players=players,
            extra_env={**extra_env, "UNO_LOOP_PROBE": str(work / f"loop-probe{i}.jsonl")},
            py_spy=str(Path(args.py_spy).resolve()) if args.py_spy and i == 0 else "",
            app_dir=app_dir,
            uvicorn_args=args.uvicorn_arg,
        )
        for i in range(processes)
    ]
    procs: list[Client] = []
    LAUNCHED.extend(servers)
    began = time.monotonic()
    try:
        for server in servers:
            await server.launch()
        await asyncio.sleep(0.3)
        notes.extend(server.build() for server in servers)
        rss_empty = sum(proc_rss_mb(server.pid) for server in servers)
        # Rooms dealt round-robin, so every client holds playing rooms and idle ones alike.
        playing = list(range(playing_rooms))
        for c in range(clients):
            config = {
                "ports": [server.port for server in servers],
                "placement": args.placement,
                "client": args.client,
                "players": players,
                "interval": args.interval,
                "seed": args.seed,
                "rooms": list(range(c, rooms, clients)),
                "playing": [i for i in playing if i % clients == c],
            }
            proc = await asyncio.create_subprocess_exec(
                python(),
                str(Path(__file__).resolve()),
                "--worker",
                json.dumps(config),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                cwd=REPO,
                limit=1 << 26,
            )
            procs.append(Client(proc))
        for client in procs:
            try:
                client.ready = await client.line(READY_TIMEOUT_S)
            except TimeoutError:
                raise BenchError(f"the rooms were not set up in {READY_TIMEOUT_S} s") from None
        setup_s = time.monotonic() - began
        notes.append(
            "rooms set up by the clients in "
            + ", ".join(f"{c.ready['setup_s']} s (CPU {c.ready['setup_cpu_s']} s)" for c in procs)
            + f"; server CPU {sum(proc_cpu_seconds(x.pid) for x in servers):.1f} s so far;"
            f" with the server's launch {setup_s:.1f} s"
        )
        for server in servers:
            server.check_alive()
        rss_connected = sum(proc_rss_mb(server.pid) for server in servers)
        if args.pin_servers:
            notes.append(_pin([server.pid for server in servers]))
        start = time.time() + args.warmup
        end = start + args.window
        for client in procs:
            assert client.proc.stdin is not None
            client.proc.stdin.write((json.dumps({"start": start, "end": end}) + "\n").encode())
            await client.proc.stdin.drain()
        await asyncio.sleep(max(0.0, start - time.time()))
        pids = [server.pid for server in servers]
        queue0 = sum(proc_run_queue_seconds(pid) for pid in pids)
        cpu0, busy0 = sum(proc_cpu_seconds(pid) for pid in pids), machine_cpu_seconds()[0]
        sys0 = sum(proc_sys_seconds(pid) for pid in pids)
        redis0 = proc_cpu_seconds(redis.pid) if redis else 0.0
        commands0 = redis.commandstats() if redis else {}
        clients0 = sum(proc_cpu_seconds(c.proc.pid) for c in procs)
        t0 = time.monotonic()
        spies = _spy_on(pids, args.spy_window, args.window)
        _signal_all(pids, signal.SIGUSR1 if args.cprofile_window else None)
        await asyncio.sleep(max(0.0, end - time.time()))
        _signal_all(pids, signal.SIGUSR2 if args.cprofile_window else None)
        elapsed = time.monotonic() - t0
        cpu1, busy1 = sum(proc_cpu_seconds(pid) for pid in pids), machine_cpu_seconds()[0]
        sys1 = sum(proc_sys_seconds(pid) for pid in pids)
        redis1 = proc_cpu_seconds(redis.pid) if redis else 0.0
        commands1 = redis.commandstats() if redis else {}
        queue1 = sum(proc_run_queue_seconds(pid) for pid in pids)
        clients1 = sum(proc_cpu_seconds(c.proc.pid) for c in procs)
        rss = sum(proc_rss_mb(pid) for pid in pids)
        hwm = sum(proc_hwm_mb(pid) for pid in pids)
        for spy in spies:
            spy.wait(timeout=30)
        for client in procs:
            client.result = await client.line(DRAIN_S + 60)
        for server in servers:
            server.check_alive()
    finally:
        for client in procs:
            if client.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    client.proc.kill()
                await client.proc.wait()
        for server in servers:
            server.stop()
        if redis is not None:
            redis.stop()
    results = [c.result for c in procs]
    latencies = [x for r in results for x in r["latencies_ns"]]
    moves = sum(r["moves_in_window"] for r in results)
    if args.cprofile_window:  # what bench/profile_diff.py divides by
        Path(f"{args.cprofile_window}.json").write_text(json.dumps({"moves": moves}))
    server_cpu = 100 * (cpu1 - cpu0) / elapsed
    redis_cpu = 100 * (redis1 - redis0) / elapsed
    client_cpu = 100 * (clients1 - clients0) / elapsed
    errors: dict[str, int] = {}
    for r in results:
        for code, n in r["errors"].items():
            errors[code] = errors.get(code, 0) + n
    # The worst second of any process, and every process's collections.
    per_process = [
        probe_window(work / f"loop-probe{i}.jsonl", start, end) for i in range(processes)
    ]
    stalls = max(per_process, key=lambda p: p["stall_max_ms"])
    stalls["gc_count"] = [sum(p["gc_count"][g] for p in per_process) for g in range(3)]
    stalls["gc_cpu_ms"] = round(sum(p["gc_cpu_ms"] for p in per_process), 1)
    return {
        "mode": "idle" if args.idle else "paced",
        "store": kind,
        "processes": processes,
        "placement": args.placement if processes > 1 else None,
        "pinned": bool(args.pin_servers),
        "rooms": rooms,
        "players": players,
        "sockets": sockets,
        "playing_rooms": playing_rooms,
        "playing_sockets": playing_rooms * players,
        "interval_s": args.interval,
        "offered_moves_per_s": round(playing_rooms / args.interval, 1),
        "window_s": round(elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "moves_timed": len(latencies),
        "p50_ms": round(pct(latencies, 0.5), 2),
        "p99_ms": round(pct(latencies, 0.99), 2),
        "p999_ms": round(pct(latencies, 0.999), 2),
        "max_ms": round(max(latencies) / 1e6, 2) if latencies else float("nan"),
        "server_cpu_pct": round(server_cpu, 1),
        "server_sys_pct": round(100 * (sys1 - sys0) / elapsed, 1),
        "cpu_ms_per_move": round(10 * server_cpu / (moves / elapsed), 3) if moves else None,
        "redis_cpu_pct": round(redis_cpu, 1),
        "redis_cpu_ms_per_move": round(10 * redis_cpu / (moves / elapsed), 3) if moves else None,
        "rss_mb": round(rss, 1),
        "rss_peak_mb": round(hwm, 1),
        "rss_empty_mb": round(rss_empty, 1),
        "rss_connected_mb": round(rss_connected, 1),
        **stalls,
        "server_run_queue_pct": round(100 * (queue1 - queue0) / elapsed, 1),
        "client_processes": clients,
        "client_cpu_pct": round(client_cpu, 1),
        "other_cpu_pct": round(
            max(0.0, 100 * (busy1 - busy0) / elapsed - server_cpu - redis_cpu - client_cpu), 1
        ),
        # Redis's own time per move by command (INFO commandstats over the window).
        "redis_commands": {
            name: {
                "calls_per_move": round((calls - commands0.get(name, (0, 0.0))[0]) / moves, 3),
                "us_per_move": round((usec - commands0.get(name, (0, 0.0))[1]) / moves, 1),
            }
            for name, (calls, usec) in sorted(commands1.items())
            if moves and calls > commands0.get(name, (0, 0.0))[0]
        },
        "late_ticks": sum(r["late_ticks"] for r in results),
        "timeouts": sum(r["timeouts"] for r in results),
        "errors": errors,
        "frames_per_s": round(sum(r["frames"] for r in results) / (elapsed + args.warmup), 0),
        "setup_s": round(setup_s, 1),
        "failures": [f for r in results for f in r.get("failures", [])][:5],
    }


def main(args: argparse.Namespace) -> int:
    notes = [raise_open_files()]
    if args.window == 8.0:  # load.py's default window is for the saturation steps
        args.window = 30.0
    if args.warmup == 1.5:
        args.warmup = max(2 * args.interval, 8.0)
    load_before = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    work = Path(tempfile.mkdtemp(prefix="bench-paced-"))
    try:
        import uvloop

        summary = uvloop.run(coordinate(args, work, notes))
    except BenchError as exc:
        print(f"load: {exc}", file=sys.stderr)
        return 1
    finally:
        for server in LAUNCHED:
            server.stop()
        for redis in REDIS_LAUNCHED:
            redis.stop()
        shutil.rmtree(work, ignore_errors=True)
    summary["machine"] = header(args, load_before)
    summary["notes"] = notes
    summary["client"] = args.client
    print(summary["machine"])
    print("; ".join(notes))
    mode = (
        (
            f"idle: {summary['sockets']} sockets, {summary['playing_sockets']} playing"
            if args.idle
            else f"paced: {summary['rooms']} rooms × {summary['players']} seats"
        )
        + f" on {summary['processes']} server process(es), {summary['store']} store"
        + (f", placement by {summary['placement']}" if summary["placement"] else "")
    )
    print(
        f"{mode}, a move per room every {args.interval:g} s "
        f"(offered {summary['offered_moves_per_s']}/s), {summary['client_processes']} client "
        f"processes ({args.client} WebSocket client), window {summary['window_s']} s after "
        f"{args.warmup:g} s warm-up; set-up "
        f"{summary['setup_s']} s"
    )
    print(
        f"moves/s {summary['moves_per_s']} · command → last recipient p50 {summary['p50_ms']} "
        f"ms, p99 {summary['p99_ms']} ms, p99.9 {summary['p999_ms']} ms, max "
        f"{summary['max_ms']} ms ({summary['moves_timed']} moves) · longest loop stall "
        f"{summary['stall_max_ms']} ms · collections {summary['gc_count']} (longest "
        f"{summary['gc_max_ms']} ms per generation; CPU {summary['gc_cpu_max_ms']} ms, "
        f"{summary['gc_cpu_ms']} ms in all, {summary['gc_collected']} objects freed)"
    )
    print(
        f"server CPU {summary['server_cpu_pct']}% (system calls {summary['server_sys_pct']}%; "
        f"{summary['cpu_ms_per_move']} ms/move; redis "
        f"{summary['redis_cpu_pct']}%, {summary['redis_cpu_ms_per_move']} ms/move) · RSS "
        f"{summary['rss_mb']} MB (peak {summary['rss_peak_mb']}, empty {summary['rss_empty_mb']},"
        f" connected before play {summary['rss_connected_mb']}) · clients CPU "
        f"{summary['client_cpu_pct']}% · other busy CPU {summary['other_cpu_pct']}% · server "
        f"waited for a CPU {summary['server_run_queue_pct']}% of the window · late ticks "
        f"{summary['late_ticks']} · timeouts {summary['timeouts']} · errors {summary['errors']}"
    )
    if args.json:
        print(json.dumps(summary))
    return 0 if not summary["failures"] else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        sys.exit(worker_main(sys.argv[2]))
    print("run it as: python bench/load.py --paced ... or --idle ...", file=sys.stderr)
    sys.exit(2)
