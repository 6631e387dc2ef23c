"""The top entries of a py-spy profile (`py-spy record -f raw`, as `bench/load.py --py-spy` writes).

Prints the functions with the largest share of the samples, inclusive (the function or anything
it called) and self (the function itself was running), and a few named areas of the server's
hot path. Samples of start-up (imports) are left out, so the shares are of the serving time.

Usage: python bench/profile_top.py FILE [--top 25] [--markdown]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

# Areas of the hot path, matched on a frame ("function (file:line)"), first match wins per
# area; a sample counts once per area.
AREAS: dict[str, str] = {
    # v1: Connection._event_frame (a view per event and seat, json); v2: app/transport/frames
    # (views once per commit, orjson). The compiled engine (engine.view, redact) runs as C:
    # its time shows as its Python caller's own time.
    "building frames (views, redaction, encoding)": (
        r"Connection\._event_frame|Connection\._welcome|app/transport/frames\.py"
    ),
    "JSON encoding (json / orjson)": r"\(json/encoder|orjson|\bdumps \(",
    "WebSocket send (starlette, uvicorn, websockets)": (
        r"send(_text)? \((starlette|uvicorn|websockets|wsproto)/"
    ),
    "receiving commands (read, parse, rate limit)": (
        r"WebSocket\.receive|receive_text|app/transport/commands\.py|JSONDecoder|TokenBucket"
    ),
    "RoomService.submit (room path, engine, store)": r"RoomService\.submit",
    "history reads (events/commits since)": r"events_since|commits_since|_History\.since",
    "asyncio.wait_for around sends (a timeout per frame)": r"wait_for \(asyncio/tasks",
    "HTTP requests (FastAPI routes)": r"httptools_impl\.py.*run_asgi|RequestResponse",
}
# Leaves that are the event loop's own C code (uvloop: polling, socket reads, scheduling).
LOOP_LEAF = re.compile(r"^Runner\.run \(")
STARTUP = re.compile(r"_find_and_load|import_from_string|_call_with_frames_removed")
FRAME = re.compile(r"^(?P<func>.+?) \((?P<file>[^:]+)(:\d+)?\)$")


def short(frame: str) -> str:
    """`func (path/to/site-packages/pkg/mod.py:12)` → `func (pkg/mod.py)`."""
    match = FRAME.match(frame)
    if match is None:
        return frame
    path = match.group("file")
    for marker in ("site-packages/", "/lib/python3.11/", "/work/"):
        if marker in path:
            path = path.split(marker, 1)[1]
    path = re.sub(r"^wt-[^/]+/|^main/", "", path)
    return f"{match.group('func')} ({path})"


def load(path: Path) -> tuple[Counter[str], Counter[str], Counter[str], int]:
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    areas: Counter[str] = Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        if STARTUP.search(stack):
            continue
        count = int(count_text)
        frames = [short(f) for f in stack.split(";")]
        total += count
        for name in set(frames):
            inclusive[name] += count
        own[frames[-1]] += count
        if LOOP_LEAF.match(frames[-1]):
            areas["event loop itself (uvloop, Runner.run self)"] += count
        for area, pattern in AREAS.items():
            if re.search(pattern, stack):
                areas[area] += count
    return inclusive, own, areas, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    inclusive, own, areas, total = load(args.file)
    if not total:
        print("no samples")
        return 1
    print(f"{total} samples (start-up left out)")
    sections = [
        ("area", areas.most_common()),
        # The frames every sample shares (runpy, uvicorn's main, the loop) say nothing.
        ("inclusive", [r for r in inclusive.most_common() if r[1] < 0.9 * total][: args.top]),
        ("self", own.most_common(args.top)),
    ]
    for title, rows in sections:
        if args.markdown:
            print(f"\n| {title} | samples | share |\n|---|---:|---:|")
            for name, n in rows:
                print(f"| `{name}` | {n} | {100 * n / total:.1f}% |")
        else:
            print(f"\n{title}:")
            for name, n in rows:
                print(f"  {100 * n / total:5.1f}%  {n:6d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
