"""Other tables' latency while one hostile client attacks (issue 11 "Done when").

One server process on its default limits (memory store). Victims: `--rooms` rooms of two
players chatting, each measuring the time from a `chat` command to its `ack`. First a quiet
phase (the baseline), then the same load while hostile sockets attack at once: one floods
invalid frames and never reads, one floods `hello` with the oldest `since` and never reads,
one sends valid frames far over the rate limit, each from a process of its own. Prints the
victims' p50/p99 in both phases, their ratio, the server's RSS growth, and how long each
hostile socket stayed open.

    .venv/bin/python bench/hostile.py [--rooms 20] [--seconds 15] [--json]

Talks only to 127.0.0.1; every loop is bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

import httpx
import websockets
from load import proc_rss_mb  # bench/ is the script's directory, as for gc_churn.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("garbage", "resume", "rate")
mp = multiprocessing.get_context("spawn")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
            await asyncio.sleep(0.2)


async def _hostile(base: str, room: str, token: str, kind: str, stop: float) -> float | None:
    """Attack until closed or `stop`; the seconds the socket stayed open (None: never closed)."""
    ws = await websockets.connect(f"{base}/ws/rooms/{room}", max_queue=1)
    await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
    opened = time.monotonic()
    n = 0
    try:
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
    except websockets.ConnectionClosed:
        return time.monotonic() - opened
    finally:
        await ws.close()
    return None


def _attack_process(base: str, room: str, token: str, kind: str, seconds: float, out: Any) -> None:
    """One hostile socket in a process of its own, so its flood does not slow the victims'
    client loop (only the server is shared)."""
    out.put((kind, asyncio.run(_hostile(base, room, token, kind, time.monotonic() + seconds))))


async def _room(http: httpx.AsyncClient) -> tuple[str, str, str]:
    created = (await http.post("/api/rooms", json={"name": "A"})).json()
    joined = (await http.post(f"/api/rooms/{created['room']}/players", json={"name": "B"})).json()
    return created["room"], created["token"], joined["token"]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    port = _free_port()
    env = dict(os.environ, DATABASE_URL="memory://", PYTHONPATH=ROOT, CREATE_RATE_BURST="100000")
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port)),
            *("--log-level", "warning", "--ws-max-size", "1048576"),
        ],
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

            async def phase(hostile: bool) -> tuple[list[float], list[float | None]]:
                lat: list[float] = []
                stop = time.monotonic() + args.seconds
                victims = [
                    _victim(base, room, tok, stop, lat) for room, a, b in rooms for tok in (a, b)
                ]
                procs = []
                results: Any = mp.Queue()
                if hostile:
                    for tok, kind in zip(spectators, KINDS, strict=True):
                        proc = mp.Process(
                            target=_attack_process,
                            args=(base, target[0], tok, kind, args.seconds, results),
                        )
                        proc.start()
                        procs.append(proc)
                await asyncio.gather(*victims)
                open_for = dict(results.get(timeout=30) for _ in procs)
                for proc in procs:
                    proc.join(10)
                return lat, [open_for.get(kind) for kind in KINDS] if hostile else []

            quiet, _ = await phase(False)
            rss_before = proc_rss_mb(server.pid)
            loud, open_for = await phase(True)
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
        "hostile_open_s": {
            k: (None if v is None else round(v, 1))
            for k, v in zip(("garbage", "resume", "rate"), open_for, strict=True)
        },
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>16}: {value}")


if __name__ == "__main__":
    main()
