"""A host's Connection on a fresh room in memory, started and welcomed: for tests that drive
one socket's sender directly (no server, no hub)."""

from __future__ import annotations

import asyncio
from typing import Any

from app.bus.memory import MemoryBus
from app.rooms.service import Identity, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.rooms import MemoryRoomStore
from app.transport.connection import Connection


async def settled(conn: Connection, version: int) -> None:
    async with asyncio.timeout(5):
        while conn.version < version:
            await asyncio.sleep(0.01)


async def welcomed_connection(ws: Any) -> tuple[RoomService, str, Identity, Connection]:
    """`ws`: a stand-in for the WebSocket (its `scope`, `send_text`, `close`)."""
    service = RoomService(
        AppSettings(database_url="memory://"), MemoryRoomStore(), MemoryBus(), MemoryRecorder()
    )
    created = await service.create_room("A", None)
    who = await service.identify(created.room, created.token)
    assert who is not None
    conn = Connection(ws, created.room, who, service)
    conn.start()
    record = await service.store.load(created.room)
    assert record is not None
    await settled(conn, record.version)
    return service, created.room, who, conn
