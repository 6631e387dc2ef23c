"""What the bench clients read in a server frame, on wire v1 and v2 alike.

v1 sends one `event` frame per event: `{"type":"event","version":v,"event":{...},"view":{...}}`.
v2 sends one `events` frame per commit and recipient:
`{"type":"events","version":V_LAST,"events":[{"version":v,"kind":...}, ...],"view":{...}}`.
Both send a `welcome` with a view. A bench measures either server with the same code, so a run
before the v2 fan-out and one after it compare like for like.
"""

from __future__ import annotations

import json
import re
from typing import Any

VIEW_FRAMES = frozenset({"event", "events", "welcome"})
# The servers write "type" then "version" first; reading the version from the head of a frame
# spares a client that only needs it from decoding a view of a few KB.
_HEAD = re.compile(r'"version":\s*(\d+)')
HEAD_CHARS = 80


def kinds(frame: dict[str, Any]) -> list[str]:
    """The event kinds a frame carries, in order (none for a welcome, an ack, an error)."""
    kind = frame.get("type")
    if kind == "event":
        return [frame["event"]["kind"]]
    if kind == "events":
        return [event["kind"] for event in frame["events"]]
    return []


def carries_view(frame: dict[str, Any]) -> bool:
    return frame.get("type") in VIEW_FRAMES and "view" in frame


def version_of(raw: str) -> int:
    """The frame's version (the last event's, for a v2 `events` frame); -1 if none."""
    match = _HEAD.search(raw, 0, HEAD_CHARS)
    if match is not None:
        return int(match.group(1))
    frame = json.loads(raw)
    version = frame.get("version") if isinstance(frame, dict) else None
    return version if isinstance(version, int) else -1


def wire_of(frame_type: str | None) -> str:
    """ "v2" for an `events` frame, "v1" for an `event` frame, "" otherwise."""
    return {"events": "v2", "event": "v1"}.get(frame_type or "", "")
