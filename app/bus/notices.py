"""The rooms' bus messages: "room R is at version V", and with the Redis store the commit.

A notice is one JSON object, `{"room": R, "version": V}`. The Redis store's commit function
publishes the commit along with it, after a newline: the room's state, its events and write
counter (app/store/redis/rooms.py), so that the other processes holding sockets of the room
take the commit from the notice instead of reading it back from Redis. A reader that only
wants the version parses the first line; a notice without a body (the watchdog's repairs,
the memory bus) is read from the history as before.
"""

from __future__ import annotations

import orjson


def notice(room: str, version: int, body: bytes = b"") -> bytes:
    head = orjson.dumps({"room": room, "version": version})
    return head + b"\n" + body if body else head


def parse(message: bytes) -> tuple[int, bytes] | None:
    """The notice's version and its body (b"" when it has none); None when malformed."""
    head, _, body = message.partition(b"\n")
    try:
        return int(orjson.loads(head)["version"]), body
    except (ValueError, KeyError, TypeError):
        return None
