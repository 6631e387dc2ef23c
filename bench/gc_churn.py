"""Socket churn per collector mode: RSS growth per connection opened and closed.

One UNO server per mode (UNO_GC), 40 rooms of 4 seats; each seat's socket is opened, greeted
and closed again and again for 40 s. A mode that never frees cycles among frozen objects
(`rolling`) shows here as extra RSS per connection.

Usage: python bench/gc_churn.py tuned rolling default
"""

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

import websockets
from load import Server, proc_rss_mb
from load_paced import Http
from move_latency import ROOM_SETTINGS


async def main(mode: str, seconds: float):
    s = Server("uno", "uno", Path(tempfile.mkdtemp()) / "u", players=4, extra_env={"UNO_GC": mode})
    await s.launch()
    try:
        http = Http(s.port)
        rooms = []
        for _ in range(40):
            _, created = await http.post("/api/rooms", {"name": "S0", "settings": ROOM_SETTINGS})
            toks = [created["token"]]
            for k in range(1, 4):
                _, j = await http.post(f"/api/rooms/{created['room']}/players", {"name": f"S{k}"})
                toks.append(j["token"])
            rooms.append((created["room"], toks))

        async def cycle(code, tok):
            ws = await websockets.connect(
                f"ws://127.0.0.1:{s.port}/ws/rooms/{code}", compression=None, ping_interval=None
            )
            await ws.send(json.dumps({"type": "hello", "token": tok, "since": None}))
            await ws.recv()
            await ws.close()

        # warm-up
        for code, toks in rooms:
            await asyncio.gather(*(cycle(code, t) for t in toks))
        r0 = proc_rss_mb(s.pid)
        n = 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            for code, toks in rooms:
                await asyncio.gather(*(cycle(code, t) for t in toks))
                n += 4
        await asyncio.sleep(1)
        r1 = proc_rss_mb(s.pid)
        per = 1024 * (r1 - r0) / max(n, 1)
        print(
            f"{mode}: {n} connections opened and closed in {seconds:.0f} s; "
            f"RSS {r0:.1f} -> {r1:.1f} MB ({per:.2f} KB per connection)"
        )
    finally:
        s.stop()


for mode in sys.argv[1:]:
    asyncio.run(main(mode, 40))
