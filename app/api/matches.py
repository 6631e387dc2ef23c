"""GET /api/matches/{match_id}: a match as the recorder keeps it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.rooms.service import RoomError
from app.store.recorder import MatchRecorder, RecorderUnavailable


def build_router(recorder: MatchRecorder) -> APIRouter:
    router = APIRouter(prefix="/api/matches")

    @router.get("/{match_id}")
    async def get_match(match_id: str) -> dict[str, Any]:
        if not 0 < len(match_id) <= 128:
            raise RoomError("not_found", "no such match", 404)
        try:
            match = await recorder.get_match(match_id)
        except RecorderUnavailable as exc:
            raise RoomError("unavailable", "the match database is unavailable", 503) from exc
        if match is None:
            raise RoomError("not_found", "no such match", 404)
        return match

    return router
