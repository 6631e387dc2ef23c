"""PROTOCOL section 6: POST /api/tournaments, entrants, start; GET the tournament and /me;
and the extension GET /api/tournaments/{t}/events, the page's pushed updates (server-sent
events, docs/protocol.md "Tournament updates")."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, StrictStr

from app.rooms.service import RoomError
from app.store.shared import StoreUnavailable
from app.tournaments.service import TournamentService


class Register(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: StrictStr


async def _object(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except (ValueError, RecursionError) as exc:  # nested past the decoder's depth: still input
        raise RoomError("bad_request", "the body must be a JSON object", 400) from exc
    if not isinstance(body, dict):
        raise RoomError("bad_request", "the body must be a JSON object", 400)
    return body


@contextmanager
def _reachable() -> Iterator[None]:
    """Redis unreachable: a retryable 503, as for rooms."""
    try:
        yield
    except StoreUnavailable as exc:
        raise RoomError("unavailable", "tournaments cannot be reached now, retry", 503) from exc


def build_router(service: TournamentService) -> APIRouter:
    router = APIRouter(prefix="/api/tournaments")

    @router.post("", status_code=201)
    async def create_tournament(request: Request) -> JSONResponse:
        body = await _object(request)
        with _reachable():
            created = await service.create(body)
        return JSONResponse(
            {"tournament": created.code, "url": f"/t/{created.code}", "token": created.token},
            status_code=201,
        )

    @router.post("/{code}/entrants", status_code=201)
    async def register(code: str, body: Register) -> JSONResponse:
        with _reachable():
            registered = await service.register(code, body.name)
        return JSONResponse(
            {
                "entrant_id": registered.entrant_id,
                "token": registered.token,
                "name": registered.name,
            },
            status_code=201,
        )

    @router.delete("/{code}/entrants/{entrant_id}", status_code=204)
    async def remove_entrant(
        code: str, entrant_id: str, authorization: str | None = Header(default=None)
    ) -> Response:
        with _reachable():
            await service.remove(code, entrant_id, authorization)
        return Response(status_code=204)

    @router.post("/{code}/start")
    async def start(code: str, authorization: str | None = Header(default=None)) -> dict[str, Any]:
        with _reachable():
            return await service.start(code, authorization)

    @router.get("/{code}")
    async def tournament(code: str) -> dict[str, Any]:
        with _reachable():
            return await service.public(code)

    @router.get("/{code}/events")
    async def events(code: str) -> StreamingResponse:
        with _reachable():
            await service.public(code)  # an unknown tournament: 404 with the error shape
        return StreamingResponse(
            service.updates(code),
            media_type="text/event-stream",
            # X-Accel-Buffering: nginx (docker-compose) passes each event on as it comes.
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @router.get("/{code}/me")
    async def me(code: str, authorization: str | None = Header(default=None)) -> dict[str, Any]:
        with _reachable():
            return await service.me(code, authorization)

    return router
