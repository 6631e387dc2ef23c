"""The WebSocket endpoint `/ws/rooms/{room}` (PROTOCOL section 3)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from app.rooms.service import Identity, RoomError, RoomService
from app.settings import AppSettings
from app.transport.commands import Command, FrameError, Hello, Ping, decode, parse, readable_id
from app.transport.connection import Connection
from app.transport.hub import Hub
from app.transport.ratelimit import TokenBucket

log = logging.getLogger(__name__)

CLOSE_UNAUTHORIZED = 4401
CLOSE_FORBIDDEN_ORIGIN = 4403
CLOSE_REPLACED = 4409
CLOSE_TRY_AGAIN = 1013  # RFC 6455 "try again later": the client reconnects as usual


def origin_allowed(origin: str | None, host: str | None, allowed: list[str]) -> bool:
    """Same origin, or listed; a missing Origin is a non-browser client and is allowed."""
    if origin is None:
        return True
    if origin in allowed:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return host is not None and parts.netloc.lower() == host.lower()


def error_frame(code: str, message: str, command_id: str | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if command_id is not None:
        frame["id"] = command_id
    return frame


def build_router(service: RoomService, hub: Hub, config: AppSettings) -> APIRouter:
    router = APIRouter()

    @router.websocket("/ws/rooms/{room}")
    async def room_socket(websocket: WebSocket, room: str) -> None:
        headers = websocket.headers
        if not origin_allowed(headers.get("origin"), headers.get("host"), config.allowed_origins):
            await websocket.close(code=CLOSE_FORBIDDEN_ORIGIN)
            return
        await websocket.accept()
        greeting = await _handshake(websocket, room, service, config)
        if greeting is None:
            return
        identity, hello = greeting
        conn = Connection(websocket, room, identity, service, hello.since)
        replaced = await hub.attach(conn)
        if replaced is not None:
            replaced.close(CLOSE_REPLACED)
        conn.start()
        try:
            if identity.role == "player":
                await service.set_connected(room, identity.member_id, True)
            await _serve(websocket, conn, service, config)
        except WebSocketDisconnect:
            pass
        finally:
            await conn.stop()
            if await hub.detach(conn) and identity.role == "player":
                await service.set_connected(room, identity.member_id, False)

    return router


async def _handshake(
    websocket: WebSocket, room: str, service: RoomService, config: AppSettings
) -> tuple[Identity, Hello] | None:
    """Wait for `hello`; on anything else close with 4401 and return None."""
    try:
        message = await asyncio.wait_for(websocket.receive(), config.hello_timeout_seconds)
    except TimeoutError:
        await websocket.close(code=CLOSE_UNAUTHORIZED)
        return None
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    try:
        if not isinstance(text, str):
            raise FrameError("bad_frame", "frames are JSON text")
        if len(text.encode("utf-8", "surrogatepass")) > config.max_frame_bytes:
            raise FrameError("too_large", f"frames are limited to {config.max_frame_bytes} bytes")
        frame = parse(decode(text))
        if not isinstance(frame, Hello):
            raise FrameError("unauthorized", "the first frame must be hello")
    except FrameError as exc:
        await _refuse(websocket, exc.code, exc.message)
        return None
    try:
        identity = await service.identify(room, frame.token)
    except RoomError as exc:  # the room may exist, but the database cannot say now
        await websocket.send_json(error_frame(exc.code, exc.message))
        await websocket.close(code=CLOSE_TRY_AGAIN)
        return None
    if identity is None:
        await _refuse(websocket, "unauthorized", "unknown room or token")
        return None
    return identity, frame


async def _refuse(websocket: WebSocket, code: str, message: str) -> None:
    await websocket.send_json(error_frame(code, message))
    await websocket.close(code=CLOSE_UNAUTHORIZED)


async def _serve(
    websocket: WebSocket, conn: Connection, service: RoomService, config: AppSettings
) -> None:
    bucket = TokenBucket(config.rate_limit_per_second, config.rate_limit_burst)
    while not conn.closed:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        allowed = bucket.take()
        text = message.get("text")
        if not isinstance(text, str):
            conn.send(error_frame("bad_frame", "frames are JSON text"))
            continue
        # Characters never outnumber bytes, so most frames skip the encoding.
        if len(text) > config.max_frame_bytes // 4 and (
            len(text.encode("utf-8", "surrogatepass")) > config.max_frame_bytes
        ):
            conn.send(
                error_frame("too_large", f"frames are limited to {config.max_frame_bytes} bytes")
            )
            continue
        try:
            data = decode(text)
        except FrameError as exc:
            conn.send(error_frame(exc.code, exc.message))
            continue
        if not allowed:
            conn.send(error_frame("rate_limited", "too many frames, slow down", readable_id(data)))
            continue
        try:
            frame = parse(data)
        except FrameError as exc:
            conn.send(error_frame(exc.code, exc.message, exc.command_id))
            continue
        if isinstance(frame, Ping):
            pong: dict[str, Any] = {"type": "pong", "server_time": int(time.time() * 1000)}
            if frame.command_id is not None:
                pong["id"] = frame.command_id
            conn.send(pong)
        elif isinstance(frame, Hello):
            await _hello_again(conn, service, frame)
        else:
            await _command(conn, service, frame)


async def _hello_again(conn: Connection, service: RoomService, hello: Hello) -> None:
    """The server always answers `hello` with a `welcome` (PROTOCOL.md): the same credential
    again resumes this socket from `since`; another one cannot switch its identity."""
    try:
        identity = await service.identify(conn.room, hello.token)
    except RoomError as exc:
        conn.send(error_frame(exc.code, exc.message))
        return
    if identity is None or identity.member_id != conn.identity.member_id:
        conn.send(error_frame("bad_frame", "this socket is already authenticated"))
        return
    conn.resume(hello.since)


async def _command(conn: Connection, service: RoomService, command: Command) -> None:
    if conn.identity.role != "player":
        conn.send(error_frame("unauthorized", "spectators are read-only", command.command_id))
        return
    try:
        outcome = await service.submit(conn.room, conn.identity, command)
    except Exception:  # an engine or store bug must not drop the player's socket
        log.exception("command %s failed", command.type)
        conn.send(error_frame("internal", "the server could not apply that", command.command_id))
        return
    if outcome.version is None:
        conn.refuse(error_frame(outcome.code or "bad_command", outcome.message, command.command_id))
        return
    conn.ack(command.command_id, outcome.version)
