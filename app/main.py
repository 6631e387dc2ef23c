"""The ASGI application: settings → stores → bus → rooms; mounts the API, the socket, the web.

`uvicorn app.main:app` serves it; tests build their own with `create_app(settings)`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI

from app import gc_tuning, loop_probe
from app.api import errors, health, logfilter, matches, metrics, rooms, tournaments, web
from app.api.limits import CreationLimit
from app.api.middleware import HardeningMiddleware
from app.api.open_cap import OpenConnectionCap, OpenConnections
from app.bus import MemoryBus
from app.bus.base import Bus
from app.rooms.checkpoints import Checkpointer
from app.rooms.service import RoomService
from app.rooms.tables import RoomTables
from app.settings import AppSettings
from app.store.recorder import MatchRecorder, MemoryRecorder
from app.store.rooms import MemoryRoomStore, RoomStore
from app.tournaments.service import TournamentService
from app.tournaments.store import MemoryTournamentStore, TournamentStore
from app.transport import ws
from app.transport.hub import Hub

if TYPE_CHECKING:
    from app.rooms.cluster import Cluster

log = logging.getLogger(__name__)


def _recorder(database_url: str | None) -> MatchRecorder:
    try:
        from app.store.matches import create_recorder
    except ImportError:  # persistence not installed: matches live in memory
        log.warning("match database support missing; keeping matches in memory")
        return MemoryRecorder()
    try:
        return create_recorder(database_url)
    except NotImplementedError:
        log.warning("no recorder for the configured database; keeping matches in memory")
        return MemoryRecorder()


def _tournament_store(
    config: AppSettings, cluster: Cluster | None, recorder: MatchRecorder
) -> TournamentStore:
    """Redis when the rooms are there, else memory; with a database, a copy at each result."""
    store: TournamentStore
    if cluster is not None:
        from app.store.redis.tournaments import RedisTournamentStore

        store = RedisTournamentStore(
            cluster.client,
            prefix=config.redis_prefix,
            ttl_seconds=max(config.redis_room_ttl_seconds, config.room_idle_seconds),
        )
    else:
        store = MemoryTournamentStore()
    engine = getattr(recorder, "engine", None)  # the SQL recorder's: same database, migrated
    if engine is None:
        return store
    from app.store.sql.tournaments import SqlTournamentArchive
    from app.tournaments.archive import ArchivedStore

    return ArchivedStore(store, SqlTournamentArchive(engine))


def create_app(settings: AppSettings | None = None) -> FastAPI:
    config = settings or AppSettings()
    recorder = _recorder(config.database_url)
    cluster: Cluster | None = None
    store: RoomStore
    bus: Bus
    if config.redis_url:
        from app.rooms.cluster import Cluster

        cluster = Cluster(config, recorder)
        store, bus = cluster.store, cluster.bus
    else:
        store, bus = MemoryRoomStore(config.history_limit, config.history_max_bytes), MemoryBus()
    service = RoomService(config, store, bus, recorder)
    checkpoints: Checkpointer | None = None
    if cluster is not None:
        cluster.serve(service)
    elif not isinstance(recorder, MemoryRecorder) and config.embedded_checkpoint_seconds > 0:
        # One process with a database: rooms in progress come back after a restart as they
        # were at their last checkpoint (app/rooms/checkpoints.py), not at their last round end.
        assert isinstance(store, MemoryRoomStore)
        checkpoints = Checkpointer(
            store, recorder, service.clock, interval=config.embedded_checkpoint_seconds
        )
        store.written = checkpoints.changed_rooms
    hub = Hub(bus, history=service.commits_since, clock=service.clock)
    service.has_sockets = lambda room: bool(hub.connections(room))
    service.commit_observers.append(hub.tally.observe)
    if cluster is not None:
        cluster.store.prepare = hub.prepare
    cup_store = _tournament_store(config, cluster, recorder)
    cups = TournamentService(RoomTables(service), cup_store, bus=bus)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        logfilter.install()
        await recorder.start()
        if cluster is not None:
            await cluster.start()
        await service.start()
        if checkpoints is not None:
            await checkpoints.start()
        await cups.watch()
        if settings is None:  # the served app; an app embedded in tests keeps the collector
            gc_tuning.after_start_up()
        probe = loop_probe.start_if_enabled()
        try:
            yield
        finally:
            if probe is not None:
                probe.cancel()
            await cups.stop()
            await cup_store.close()
            if cluster is not None:
                await cluster.stop()
            if checkpoints is not None:
                await checkpoints.stop()  # a last pass: a stop on purpose loses no room
            await service.stop()
            await hub.close()
            await bus.close()
            await store.close()
            await recorder.close()

    app = FastAPI(title="UNO", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.config = config
    app.state.rooms = service
    app.state.tournaments = cups
    app.state.hub = hub
    app.state.recorder = recorder

    app.add_middleware(
        HardeningMiddleware,
        allowed_origins=config.allowed_origins,
        body_timeout=config.header_timeout_seconds,
    )
    app.add_middleware(
        CreationLimit,
        rate=config.create_rate_per_second,
        burst=config.create_rate_burst,
        trusted_proxies=config.trusted_proxies,
    )
    # Added last, so outermost: every request and socket is counted, even one the limits
    # inside refuse (it holds a connection all the same while it is answered).
    app.state.open_connections = OpenConnections(
        config.max_open_per_address, refused=hub.tally.over_open_cap
    )
    app.add_middleware(
        OpenConnectionCap,
        connections=app.state.open_connections,
        trusted_proxies=config.trusted_proxies,
    )
    errors.install(app)
    app.include_router(rooms.build_router(service))
    app.include_router(matches.build_router(recorder))
    app.include_router(tournaments.build_router(cups))
    app.include_router(health.build_router(store, bus, recorder))
    app.include_router(ws.build_router(service, hub, config))
    if config.metrics_token:
        app.include_router(
            metrics.build_router(
                config.metrics_token,
                hub,
                lambda: service.shared.conflicts if service.shared is not None else 0,
                started=time.time(),
            )
        )
    web.mount(app)
    return app


app = create_app()


if __name__ == "__main__":  # `python -m app.main`: serve on the configured HOST and PORT
    import uvicorn

    from app.server import uvicorn_options

    # With the server's limits (app/server.py): head size, head deadline, keep-alive,
    # concurrency and WebSocket message size.
    uvicorn.run(app, **uvicorn_options(app.state.config))
