"""JSON bytes sized to their content, for bytes kept beyond the call that made them.

orjson (3.12 on) hands back its whole output buffer as the `bytes` object: 4 KiB at least,
grown by powers of two and never shrunk (`sys.getsizeof` counts only the content). A frame
written and dropped costs nothing more, but JSON kept for long holds all of it: a room's history
of packed commits held ~4-8 KiB per commit where the JSON was 0.1-1 KiB (tracemalloc,
2026-12-06), so a host filling its lobby's history with settings changes held 2.2 MB per room.
Copying once into a `bytes` of the right size costs ~0.2 µs per KiB.
"""

from __future__ import annotations

from typing import Any

import orjson


def kept(blob: bytes) -> bytes:
    """`blob` in an object of its own size (a copy: `bytes(blob)` would return `blob`)."""
    return bytes(memoryview(blob))


def dumps_kept(value: Any, option: int | None = None) -> bytes:
    return kept(orjson.dumps(value, option=option))
