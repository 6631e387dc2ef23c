"""The baseline of bench/load.py: a bare `websockets` fan-out server, no game behind it.

A socket's first frame is `{"room": "<name>"}`: it joins that room. Every later frame is a
request `{"id": "...", "n": N, "b": B, "t": T}`: the server sends N frames of B characters of
type T (`event`, wire v1's frame per event, or `events`, wire v2's frame per commit; `event`
when absent) to every socket of the room (the sender included), then
`{"type": "ack", "id": "...", "version": V}` to the sender. This is the shape of a move on the
UNO server (its event frames to every seat, then the ack to the mover), without the engine, the
views or the JSON encoding of a state: what is left is the WebSocket I/O and the loop in
Python, on the same `websockets` library and asyncio.

It runs on uvloop, like uvicorn when uvloop is installed (`--asyncio` for the standard loop).

Usage: python bench/baseline_ws.py --port P [--asyncio] (prints "ready" once it listens)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

rooms: dict[str, list[ServerConnection]] = {}
versions: dict[str, int] = {}
payloads: dict[tuple[int, str], str] = {}
FRAME_TYPES = ("event", "events")


def payload(size: int, frame_type: str = "event") -> str:
    """A JSON object of `size` characters (at least its fixed part), built once per size."""
    text = payloads.get((size, frame_type))
    if text is None:
        head = f'{{"type":"{frame_type}","version":0,"pad":"'
        text = head + "x" * max(0, size - len(head) - 2) + '"}'
        payloads[(size, frame_type)] = text
    return text


async def handler(ws: ServerConnection) -> None:
    hello: dict[str, Any] = json.loads(await ws.recv())
    room = str(hello["room"])
    peers = rooms.setdefault(room, [])
    peers.append(ws)
    try:
        async for raw in ws:
            request = json.loads(raw)
            frame_type = str(request.get("t") or "event")
            if frame_type not in FRAME_TYPES:
                frame_type = "event"
            frame = payload(int(request["b"]), frame_type)
            for _ in range(int(request["n"])):
                for peer in peers:
                    with contextlib.suppress(Exception):
                        await peer.send(frame)
            versions[room] = versions.get(room, 0) + 1
            await ws.send(
                json.dumps({"type": "ack", "id": request["id"], "version": versions[room]})
            )
    finally:
        peers.remove(ws)


async def main(port: int) -> None:
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    async with serve(handler, "127.0.0.1", port, max_size=1 << 20, compression=None):
        print("ready", flush=True)
        await stop


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--asyncio", action="store_true", help="the standard event loop, not uvloop"
    )
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        if args.asyncio:
            asyncio.run(main(args.port))
        else:  # the loop uvicorn picks when uvloop is installed, as for the UNO server
            import uvloop

            uvloop.run(main(args.port))
