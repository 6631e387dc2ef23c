"""GET /healthz: 200 when this process can serve rooms; reports each backend."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.bus.base import Bus
from app.store.recorder import MatchRecorder
from app.store.rooms import RoomStore

log = logging.getLogger(__name__)
PROBE_TIMEOUT_SECONDS = 2.0


async def _probe(name: str, check: Awaitable[bool]) -> bool:
    try:
        return bool(await asyncio.wait_for(check, PROBE_TIMEOUT_SECONDS))
    except Exception as exc:
        log.warning("health probe %s failed: %s", name, type(exc).__name__)
        return False


def build_router(store: RoomStore, bus: Bus, recorder: MatchRecorder) -> APIRouter:
    router = APIRouter()

    @router.api_route("/healthz", methods=["GET", "HEAD"])
    async def healthz() -> JSONResponse:
        store_ok = await _probe("store", store.healthy())
        bus_ok = await _probe("bus", bus.healthy())
        db_ok = await _probe("db", recorder.healthy())
        # Rooms need the store and the bus; completed rounds wait in the recorder's outbox
        # while the database is away, so the database alone does not make us unhealthy.
        ok = store_ok and bus_ok
        return JSONResponse(
            {
                "status": "ok" if ok else "unavailable",
                "store": store_ok,
                "bus": bus_ok,
                "db": db_ok,
            },
            status_code=200 if ok else 503,
        )

    return router
