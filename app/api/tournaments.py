"""PROTOCOL section 6: POST /api/tournaments, entrants, start; GET the tournament and /me."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, StrictStr

from app.rooms.service import RoomError
from app.tournaments.service import TournamentService


class Register(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: StrictStr


async def _object(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError as exc:
        raise RoomError("bad_request", "the body must be a JSON object", 400) from exc
    if not isinstance(body, dict):
        raise RoomError("bad_request", "the body must be a JSON object", 400)
    return body


def build_router(service: TournamentService) -> APIRouter:
    router = APIRouter(prefix="/api/tournaments")

    @router.post("", status_code=201)
    async def create_tournament(request: Request) -> JSONResponse:
        created = await service.create(await _object(request))
        return JSONResponse(
            {"tournament": created.code, "url": f"/t/{created.code}", "token": created.token},
            status_code=201,
        )

    @router.post("/{code}/entrants", status_code=201)
    async def register(code: str, body: Register) -> JSONResponse:
        registered = await service.register(code, body.name)
        return JSONResponse(
            {"entrant_id": registered.entrant_id, "token": registered.token}, status_code=201
        )

    @router.delete("/{code}/entrants/{entrant_id}", status_code=204)
    async def remove_entrant(
        code: str, entrant_id: str, authorization: str | None = Header(default=None)
    ) -> Response:
        await service.remove(code, entrant_id, authorization)
        return Response(status_code=204)

    @router.post("/{code}/start")
    async def start(code: str, authorization: str | None = Header(default=None)) -> dict[str, Any]:
        return await service.start(code, authorization)

    @router.get("/{code}")
    async def tournament(code: str) -> dict[str, Any]:
        return await service.public(code)

    @router.get("/{code}/me")
    async def me(code: str, authorization: str | None = Header(default=None)) -> dict[str, Any]:
        return await service.me(code, authorization)

    return router
