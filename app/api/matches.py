"""GET /api/matches/{match_id}: a match as the recorder keeps it.

PROTOCOL lists a `room` field; it is there, always null. A match id is shared (a results link)
and the room code would let anyone who has it watch the room (docs/reliability.md, finding
10), so the record keeps the field's place without the code: a client reading the contract's
fields finds every one of them."""

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
        return {"match_id": match["match_id"], "room": None, **match}

    return router
