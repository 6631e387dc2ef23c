"""The rooms shared through Redis (REDIS_URL set): the Redis client and everything on it.

Built by app/main.py instead of the memory store and bus: the room store, the pub/sub bus,
the wake-up poller (timers and bots), the consumer that writes completed rounds to the
database, the record of which process holds which seat's socket (app/rooms/presence.py)
and the checkpointer that writes changed rooms to the database every few seconds
(app/rooms/checkpoints.py). `start` loads the function library (FUNCTION LOAD REPLACE)
before serving.
"""

from __future__ import annotations

import asyncio
import logging

from app.bus.redis import RedisBus
from app.rooms.checkpoints import Checkpointer
from app.rooms.presence import Presence
from app.rooms.round_stream import RoundStreamConsumer
from app.rooms.service import RoomService
from app.rooms.wakeups import WakePoller
from app.settings import AppSettings
from app.store.recorder import MatchRecorder
from app.store.redis import RedisRoomStore, connect, load_functions
from app.store.redis.rooms import ROOMS_CACHED_MIN

log = logging.getLogger(__name__)

START_TRIES = 30  # one a second: Redis may come up after the app (docker compose)


class Cluster:
    def __init__(self, config: AppSettings, recorder: MatchRecorder) -> None:
        assert config.redis_url
        self.client = connect(
            config.redis_url,
            max_connections=config.redis_pool_size,
            timeout=config.redis_timeout_seconds,
            wait=config.redis_timeout_seconds,
            name=config.redis_prefix,
        )
        self.store = RedisRoomStore(
            self.client,
            prefix=config.redis_prefix,
            history_limit=config.history_limit,
            idle_ttl_seconds=config.redis_room_ttl_seconds,
            # Every room this process holds a socket of stays decoded here: at most one room
            # per connection (beyond it, commands would read their room back from Redis).
            rooms_cached=max(ROOMS_CACHED_MIN, config.max_connections),
        )
        self.bus = RedisBus(
            self.client,
            self.store.channel,
            self.store.versions,
            check_seconds=config.redis_check_seconds,
            heard=self.store.heard,
        )
        self.store.listening = self.bus.listening_test()
        self.store.announce = self.bus.local
        self.rounds = RoundStreamConsumer(
            self.client,
            self.store.rounds_key,
            recorder,
            claim_idle_ms=config.redis_round_claim_ms,
        )
        self._config = config
        self._recorder = recorder
        self.wakeups: WakePoller | None = None
        self.checkpoints: Checkpointer | None = None
        self.presence: Presence | None = None

    def serve(self, service: RoomService) -> None:
        service.share(self.store)
        self.checkpoints = Checkpointer(
            self.store,
            self._recorder,
            service.clock,
            interval=self._config.checkpoint_seconds,
        )
        if self._config.checkpoint_seconds > 0:
            self.store.written = self.checkpoints.changed_rooms
        self.presence = Presence(
            self.client,
            self._config.redis_prefix,
            service.clock,
            lease_ms=self._config.redis_presence_lease_ms,
        )
        self.presence.service = service
        service.presence = self.presence
        service.restorer.held = self.presence.held
        self.wakeups = WakePoller(
            self.store,
            service.wake,
            service.clock,
            interval=self._config.redis_poll_ms / 1000,
            lease_ms=self._config.redis_claim_lease_ms,
        )

    async def start(self) -> None:
        for attempt in range(START_TRIES):
            try:
                await load_functions(self.client)
                await self.rounds.ensure_group()
                break
            except Exception as exc:
                if attempt == START_TRIES - 1:
                    raise
                log.warning("Redis not ready (%s); retrying", type(exc).__name__)
                await asyncio.sleep(1.0)
        await self.rounds.start()
        if self.wakeups is not None:
            await self.wakeups.start()
        if self.checkpoints is not None:
            await self.checkpoints.start()
        if self.presence is not None:
            await self.presence.start()

    async def stop(self) -> None:
        if self.presence is not None:
            await self.presence.stop()
        if self.checkpoints is not None:
            await self.checkpoints.stop()
        if self.wakeups is not None:
            await self.wakeups.stop()
        await self.rounds.stop()
        await self.bus.close()
