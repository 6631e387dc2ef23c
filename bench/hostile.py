"""Other tables' latency while one hostile client attacks (issue 11 "Done when").

One server process on its default limits (memory store), started as `make run` starts it
(`python -m app.main`: app/server.py's limits and WebSocket protocol). Victims: `--rooms`
rooms of two players chatting, each measuring the time from a `chat` command to its `ack`.
First a quiet phase (the baseline), then the same load while hostile sockets attack at
once: one floods invalid frames and never reads, one floods `hello` with the oldest `since`
and never reads, one sends valid frames far over the rate limit, each from a process of its
own, spawned before the phase starts. With `--reconnect` each attacker opens a new socket
as soon as one is closed, for the whole phase. Prints the victims' p50/p99 in both phases,
their ratio, the server's RSS growth, how long each attacker's first socket stayed open and
how many sockets it opened.

    .venv/bin/python bench/hostile.py [--rooms 20] [--seconds 15] [--reconnect] [--json]

Talks only to 127.0.0.1; every loop is bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from load import proc_rss_mb  # bench/ is the script's directory, as for gc_churn.py
from move_latency import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("garbage", "resume", "rate")
mp = multiprocessing.get_context("spawn")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def _victim(base: str, room: str, token: str, stop: float, out: list[float]) -> None:
    async with websockets.connect(f"{base}/ws/rooms/{room}") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
        while json.loads(await ws.recv())["type"] != "welcome":
            pass
        n = 0
        while time.monotonic() < stop:
            n += 1
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "chat", "id": f"v{n}", "text": "hi"}))
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if frame["type"] in ("ack", "error") and frame.get("id") == f"v{n}":
                    break
            out.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(1.0)  # within the default chat limit (1 a second)


async def _hostile(
    base: str, room: str, token: str, kind: str, start: float, stop: float, reconnect: bool
) -> tuple[float | None, int]:
    """Attack from `start` until `stop` (with `reconnect`, a closed socket is replaced by a new
    one at once). The seconds the first socket stayed open (None: never closed) and how many
    sockets were opened."""
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    first: float | None = None
    sockets = 0
    while time.monotonic() < stop:
        try:
            ws = await websockets.connect(f"{base}/ws/rooms/{room}", max_queue=1)
        except (OSError, websockets.WebSocketException):
            await asyncio.sleep(0.05)
            continue
        sockets += 1
        opened = time.monotonic()
        n = 0
        try:
            await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
            while time.monotonic() < stop:
                n += 1
                if kind == "garbage":
                    await ws.send("not json " * 20)
                elif kind == "resume":
                    await ws.send(json.dumps({"type": "hello", "token": token, "since": 0}))
                else:
                    await ws.send(json.dumps({"type": "ping", "id": f"h{n}"}))
                if n % 50 == 0:
                    await asyncio.sleep(0)
        except (websockets.ConnectionClosed, OSError):
            if first is None:
                first = time.monotonic() - opened
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)
        if not reconnect:
            break
    return first, sockets


def _attack_process(
    base: str,
    room: str,
    token: str,
    kind: str,
    start: float,
    seconds: float,
    reconnect: bool,
    out: Any,
) -> None:
    """One hostile socket in a process of its own, so its flood does not slow the victims'
    client loop (only the server is shared). The process is spawned (and has imported what
    it needs) before `start`: its start-up is not counted against the server. It runs at the
    lowest priority: on this machine the attackers share the server's two CPUs, where a real
    attacker floods from a machine of its own; niced, they take the CPU the server and the
    victims leave, which on two CPUs is still a full core's worth of flood."""
    os.nice(19)
    result = asyncio.run(_hostile(base, room, token, kind, start, start + seconds, reconnect))
    out.put((kind, result))


async def _room(http: httpx.AsyncClient) -> tuple[str, str, str]:
    created = (await http.post("/api/rooms", json={"name": "A"})).json()
    joined = (await http.post(f"/api/rooms/{created['room']}/players", json={"name": "B"})).json()
    return created["room"], created["token"], joined["token"]


def _stall(probe: Path, start: float, end: float) -> float:
    """The longest late wake the server's probe logged between `start` and `end`."""
    worst = 0.0
    with contextlib.suppress(OSError):
        for line in probe.read_text().splitlines():
            entry = json.loads(line)
            if start + 1.0 <= entry["t"] <= end:
                worst = max(worst, entry["late_max_ms"])
    return worst


async def run(args: argparse.Namespace) -> dict[str, Any]:
    probe = Path(tempfile.mkdtemp(prefix="bench-hostile-")) / "loop-probe.jsonl"
    port = free_port()
    env = dict(
        os.environ,
        DATABASE_URL="memory://",
        PYTHONPATH=ROOT,
        CREATE_RATE_BURST="100000",
        # Attackers and victims all connect from 127.0.0.1: the per-address limit on new
        # sockets (tests/e2e/test_hostile_clients.py covers it) would refuse the victims too.
        WS_CONNECT_RATE_BURST="100000",
        # Likewise the cap on connections one address holds open at once.
        MAX_OPEN_PER_ADDRESS="100000",
        ADDRESS_FRAMES_PER_SECOND="1000000",
        ADDRESS_FRAMES_BURST="1000000",
        PORT=str(port),
        # Only to write the resume target's history quickly (200 lines); the victims chat
        # within the default limits and the attackers do not chat.
        UNO_LOOP_PROBE=str(probe),
        CHAT_PER_SECOND="1000",
        CHAT_BURST="1000",
        ROOM_CHAT_PER_SECOND="1000",
        ROOM_CHAT_BURST="1000",
    )
    # Started as `make run` starts it (app/server.py's limits and WebSocket protocol).
    server = subprocess.Popen(
        [sys.executable, "-m", "app.main"],
        cwd=ROOT,
        env=env,
    )
    base = f"ws://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            for _ in range(300):
                try:
                    await http.get("/healthz")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            rooms = [await _room(http) for _ in range(args.rooms)]
            target = await _room(http)
            # history for the resume attack
            async with websockets.connect(f"{base}/ws/rooms/{target[0]}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": target[1], "since": None}))
                for i in range(200):
                    await ws.send(json.dumps({"type": "chat", "id": f"x{i}", "text": "y" * 250}))
                    if i % 40 == 39:
                        await asyncio.sleep(1)
            spectators = [
                (await http.post(f"/api/rooms/{target[0]}/spectators", json={"name": "h"})).json()[
                    "token"
                ]
                for _ in range(3)
            ]

            async def phase(hostile: bool) -> tuple[list[float], dict[str, Any]]:
                lat: list[float] = []
                procs = []
                results: Any = mp.Queue()
                # Spawned first, attacking from `start`: both phases begin after the same
                # pause, so the attackers' start-up falls in neither window.
                start = time.monotonic() + 3.0
                if hostile:
                    for tok, kind in zip(spectators, KINDS, strict=True):
                        proc = mp.Process(
                            target=_attack_process,
                            args=(
                                *(base, target[0], tok, kind, start),
                                *(args.seconds, args.reconnect, results),
                            ),
                        )
                        proc.start()
                        procs.append(proc)
                await asyncio.sleep(max(0.0, start - time.monotonic()))
                stop = start + args.seconds
                victims = [
                    _victim(base, room, tok, stop, lat) for room, a, b in rooms for tok in (a, b)
                ]
                await asyncio.gather(*victims)
                got = dict(results.get(timeout=30) for _ in procs)
                for proc in procs:
                    proc.join(10)
                return lat, got

            t0 = time.time()
            quiet, _ = await phase(False)
            t1 = time.time()
            rss_before = proc_rss_mb(server.pid)
            loud, open_for = await phase(True)
            t2 = time.time()
            rss_after = proc_rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(10)
    result = {
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "victim_rooms": args.rooms,
        "quiet_p50_ms": round(statistics.median(quiet), 2),
        "quiet_p99_ms": round(_pct(quiet, 0.99), 2),
        "attack_p50_ms": round(statistics.median(loud), 2),
        "attack_p99_ms": round(_pct(loud, 0.99), 2),
        "p99_ratio": round(_pct(loud, 0.99) / _pct(quiet, 0.99), 2),
        "rss_growth_mb": round(rss_after - rss_before, 1),
        # The server's event loop: its longest late wake in each phase (app/loop_probe.py).
        "quiet_stall_ms": _stall(probe, t0, t1),
        "attack_stall_ms": _stall(probe, t1, t2),
        "reconnect": args.reconnect,
        # How long each attacker's first socket stayed open, and how many it opened in all.
        "hostile_open_s": {
            k: (None if open_for[k][0] is None else round(open_for[k][0], 1)) for k in KINDS
        },
        "hostile_sockets": {k: open_for[k][1] for k in KINDS},
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--reconnect", action="store_true", help="each attacker opens a new socket when closed"
    )
    args = parser.parse_args()
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>16}: {value}")


if __name__ == "__main__":
    main()
