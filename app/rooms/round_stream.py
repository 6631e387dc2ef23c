"""Completed rounds from the shared store's round stream into the match database.

The commit function appends a round to the stream atomically with the move that ended it.
Every process runs one consumer of one consumer group, so each round is handed to exactly
one recorder (whose writes are idempotent on (match_id, number) besides). An entry is
acknowledged only once the recorder took it; a consumer that died leaves its entries
pending, and another claims them after `claim_idle_ms` (XAUTOCLAIM).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError, ResponseError

from app.rooms.shared import decode_round
from app.rooms.stopping import stop_task
from app.store.recorder import MatchRecorder

log = logging.getLogger(__name__)

GROUP = "recorders"


class RoundStreamConsumer:
    def __init__(
        self,
        client: Redis,
        key: str,
        recorder: MatchRecorder,
        *,
        claim_idle_ms: int = 30_000,
        block_ms: int = 1000,
        name: str | None = None,
    ) -> None:
        self.client = client
        self.key = key
        self.recorder = recorder
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self._claim_idle_ms = claim_idle_ms
        self._block_ms = block_ms
        self._task: asyncio.Task[None] | None = None
        self.recorded = 0

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="round-stream")

    async def stop(self) -> None:
        await stop_task(self._task)
        self._task = None

    async def ensure_group(self) -> None:
        try:
            await self.client.xgroup_create(self.key, GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def _run(self) -> None:
        ready = False
        reclaim_at = 0.0
        while True:
            try:
                if not ready:
                    await self.ensure_group()
                    ready = True
                if time.monotonic() >= reclaim_at:
                    # Half the idle time: a dead consumer's round waits at most 1.5× that.
                    reclaim_at = time.monotonic() + self._claim_idle_ms / 2000
                    await self.reclaim()
                await self.step()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                if isinstance(exc, ResponseError) and "NOGROUP" in str(exc):
                    # The stream or its group is gone (Redis flushed, or restarted without its
                    # AOF): made again first, or no new round would ever be recorded.
                    log.warning("round stream group missing; creating it again")
                    ready = False
                else:
                    log.warning("round stream unreachable: %s", type(exc).__name__)
                await asyncio.sleep(1.0)
            except Exception:
                log.exception("round stream consumer failed")
                await asyncio.sleep(1.0)

    async def step(self, block_ms: int | None = None) -> int:
        """Read new entries (and this consumer's own unacknowledged ones) and record them."""
        own = await self.client.xreadgroup(GROUP, self.name, {self.key: "0"}, count=32)
        handled = await self._handle(own)
        if handled:
            return handled
        block = self._block_ms if block_ms is None else block_ms
        fresh = await self.client.xreadgroup(
            GROUP, self.name, {self.key: ">"}, count=32, block=block
        )
        return await self._handle(fresh)

    async def reclaim(self) -> int:
        """Take over the entries a dead consumer left pending; they are recorded by `step`."""
        reply = await self.client.xautoclaim(
            self.key, GROUP, self.name, self._claim_idle_ms, start_id="0-0", count=64
        )
        claimed = reply[1] if len(reply) > 1 else []
        return len(claimed)

    async def _handle(self, reply: Any) -> int:
        handled = 0
        for _stream, entries in reply or []:
            for entry_id, fields in entries:
                blob = fields.get(b"r") if fields else None
                if blob is not None:
                    try:
                        record = decode_round(blob)
                    except Exception:
                        log.exception("unreadable round in the stream; dropped")
                    else:
                        await self.recorder.round_completed(record)  # raises: stays pending
                        self.recorded += 1
                await self.client.xack(self.key, GROUP, entry_id)
                handled += 1
        return handled
