"""POST /api/rooms, /players, /spectators; GET the public summary and the deck listing."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, StrictStr

from app.rooms.service import RoomError, RoomService

MAX_CODE_LENGTH = 64


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class CreateRoom(_Body):
    name: StrictStr
    settings: dict[str, Any] | None = None


class JoinRoom(_Body):
    name: StrictStr


class Watch(_Body):
    name: StrictStr | None = None  # optional: null or blank is the default name


def _check_code(room: str) -> None:
    if not 0 < len(room) <= MAX_CODE_LENGTH:
        raise RoomError("not_found", "no such room", 404)


def build_router(service: RoomService) -> APIRouter:
    router = APIRouter(prefix="/api/rooms")

    @router.post("", status_code=201)
    async def create_room(body: CreateRoom) -> JSONResponse:
        created = await service.create_room(body.name, body.settings, drop_departed=True)
        return JSONResponse(
            {
                "room": created.room,
                "url": f"/r/{created.room}",
                "player_id": created.player_id,
                "seat": created.seat,
                "token": created.token,
            },
            status_code=201,
        )

    @router.post("/{room}/players", status_code=201)
    async def join_room(room: str, body: JoinRoom) -> JSONResponse:
        _check_code(room)
        joined = await service.join(room, body.name, by_link=True)
        return JSONResponse(
            {
                "player_id": joined.player_id,
                "seat": joined.seat,
                "token": joined.token,
                "name": joined.name,
            },
            status_code=201,
        )

    @router.post("/{room}/spectators", status_code=201)
    async def watch_room(room: str, body: Watch | None = None) -> JSONResponse:
        _check_code(room)
        spectator_id, token = await service.spectate(room, (body or Watch()).name or "")
        return JSONResponse({"token": token, "spectator_id": spectator_id}, status_code=201)

    @router.get("/{room}")
    async def room_summary(room: str) -> dict[str, Any]:
        _check_code(room)
        return await service.summary(room)

    @router.get("/{room}/deck")
    async def room_deck(room: str) -> dict[str, Any]:
        _check_code(room)
        return await service.deck(room)

    return router
