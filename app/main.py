"""The ASGI application: settings → stores → bus → rooms; mounts the API, the socket, the web.

`uvicorn app.main:app` serves it; tests build their own with `create_app(settings)`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app import gc_tuning, loop_probe
from app.api import errors, health, logfilter, matches, rooms, tournaments, web
from app.api.middleware import HardeningMiddleware
from app.bus import create_bus
from app.rooms.service import RoomService
from app.settings import AppSettings
from app.store.recorder import MatchRecorder, MemoryRecorder
from app.store.rooms import MemoryRoomStore
from app.tournaments.service import TournamentService
from app.tournaments.store import MemoryTournamentStore
from app.transport import ws
from app.transport.hub import Hub

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


def create_app(settings: AppSettings | None = None) -> FastAPI:
    config = settings or AppSettings()
    store = MemoryRoomStore(config.history_limit)
    bus = create_bus(config.redis_url)
    recorder = _recorder(config.database_url)
    service = RoomService(config, store, bus, recorder)
    hub = Hub(bus)
    service.has_sockets = lambda room: bool(hub.connections(room))
    cups = TournamentService(service, MemoryTournamentStore())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        logfilter.install()
        await recorder.start()
        await service.start()
        if settings is None:  # the served app; an app embedded in tests keeps the collector
            gc_tuning.after_start_up()
        probe = loop_probe.start_if_enabled()
        try:
            yield
        finally:
            if probe is not None:
                probe.cancel()
            await cups.stop()
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

    app.add_middleware(HardeningMiddleware)
    errors.install(app)
    app.include_router(rooms.build_router(service))
    app.include_router(matches.build_router(recorder))
    app.include_router(tournaments.build_router(cups))
    app.include_router(health.build_router(store, bus, recorder))
    app.include_router(ws.build_router(service, hub, config))
    web.mount(app)
    return app


app = create_app()


if __name__ == "__main__":  # `python -m app.main`: serve on the configured HOST and PORT
    import uvicorn

    _config = AppSettings()
    # Frames over 16 KiB are answered `too_large`; far larger ones are not even read.
    uvicorn.run("app.main:app", host=_config.host, port=_config.port, ws_max_size=1 << 20)
