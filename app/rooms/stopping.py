"""Stopping a background task that talks to Redis.

redis-py can swallow a cancellation that lands inside a command (the connection is dropped
and the CancelledError turned into a connection error, which a polling loop catches and
retries), so one `cancel()` may not end the task: cancel until it is done.
"""

from __future__ import annotations

import asyncio
import contextlib


async def stop_task(task: asyncio.Task[None] | None, *, patience: float = 0.5) -> None:
    if task is None:
        return
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=patience)
    with contextlib.suppress(asyncio.CancelledError, Exception):
        task.result()
