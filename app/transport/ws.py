"""The WebSocket endpoint `/ws/rooms/{room}` (PROTOCOL section 3)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from functools import partial
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from app.api.limits import AddressBuckets, client_key, parse_networks
from app.engine.actions import Chat, Leave
from app.engine.errors import ErrorCode
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomError, RoomService
from app.settings import AppSettings
from app.transport import frames
from app.transport.commands import FrameError, Hello, Ping, decode, parse, readable_id
from app.transport.connection import CLOSE_POLICY, Connection
from app.transport.frames import ErrorFrame
from app.transport.hub import Hub
from app.transport.ratelimit import TokenBucket
from app.transport.tally import Tally

log = logging.getLogger(__name__)

CLOSE_UNAUTHORIZED = 4401
CLOSE_FORBIDDEN_ORIGIN = 4403
CLOSE_REPLACED = 4409
CLOSE_TRY_AGAIN = 1013  # RFC 6455 "try again later": the client reconnects as usual
CLOSE_LEFT = 1000  # the player left the room: a normal closure


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


def build_router(service: RoomService, hub: Hub, config: AppSettings) -> APIRouter:
    router = APIRouter()
    connects = AddressBuckets(config.ws_connect_rate_per_second, config.ws_connect_rate_burst)
    address_frames = AddressBuckets(config.address_frames_per_second, config.address_frames_burst)
    trusted = parse_networks(config.trusted_proxies)

    @router.websocket("/ws/rooms/{room}")
    async def room_socket(websocket: WebSocket, room: str) -> None:
        headers = websocket.headers
        if not origin_allowed(headers.get("origin"), headers.get("host"), config.allowed_origins):
            await websocket.close(code=CLOSE_FORBIDDEN_ORIGIN)
            return
        peer = websocket.client.host if websocket.client else ""
        address = client_key(peer, headers.get("x-forwarded-for"), trusted)
        if connects.take(address) > 0:
            await websocket.close(code=CLOSE_TRY_AGAIN)  # before accepting: HTTP 403
            return
        await websocket.accept()
        try:
            greeting = await _handshake(websocket, room, service, config, hub.tally)
        except WebSocketDisconnect:
            # Gone before its welcome or refusal was sent: nothing to answer, and nothing
            # for the error log (a client could fill it with one traceback per socket).
            return
        if greeting is None:
            return
        identity, hello = greeting
        conn = Connection(websocket, room, identity, service, hello.since)
        replaced = await hub.attach(conn)
        if replaced is not None:
            replaced.close(CLOSE_REPLACED)
        conn.start()
        try:
            await service.set_connected(room, identity.member_id, True)
            # Commands sent right behind the hello wait for the welcome to be built: applied
            # before it, their commits would be inside the welcome's version, and the client
            # would get their acks without the `events` frames (PROTOCOL 3: events, then ack).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(conn.welcomed.wait(), config.send_timeout_seconds)
            # Served in a task of its own, so each frame received and each store reply
            # resumes the few coroutine frames of `_serve`, not the ~17 of the ASGI and
            # middleware stack above this endpoint (a cancelled endpoint cancels the task).
            frames_from_address = partial(_took, address_frames, address)
            await asyncio.create_task(
                _serve(websocket, conn, service, config, hub, frames_from_address)
            )
        except WebSocketDisconnect:
            pass
        finally:
            await conn.stop()
            if conn.not_reading:
                hub.tally.closed["not reading"] += 1
            if await hub.detach(conn):
                await service.set_connected(room, identity.member_id, False)

    return router


async def _handshake(
    websocket: WebSocket, room: str, service: RoomService, config: AppSettings, tally: Tally
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
            # A command's refusal names it, as every other one does (its `id` if readable).
            raise FrameError("unauthorized", "the first frame must be hello", frame.command_id)
    except FrameError as exc:
        await _refuse(websocket, exc.code, exc.message, tally, exc.command_id)
        return None
    try:
        identity = await service.identify(room, frame.token)
    except RoomError as exc:  # the room may exist, but the database cannot say now
        tally.refused[exc.code] += 1
        await websocket.send_text(frames.encode(frames.error(exc.code, exc.message)).decode())
        await websocket.close(code=CLOSE_TRY_AGAIN)
        return None
    if identity is None:
        await _refuse(websocket, "unauthorized", "unknown room or token", tally)
        return None
    return identity, frame


async def _refuse(
    websocket: WebSocket,
    code: ErrorCode,
    message: str,
    tally: Tally,
    command_id: str | None = None,
) -> None:
    tally.refused[code] += 1
    await websocket.send_text(frames.encode(frames.error(code, message, command_id)).decode())
    await websocket.close(code=CLOSE_UNAUTHORIZED)


class _Limits:
    """Per-socket budgets (docs/protocol.md "Limits"). Every frame, valid or not, takes a
    token; refused frames also spend an error budget, and a client that exhausts it is
    closed instead of answered, so a flood cannot draw a reply per frame."""

    def __init__(self, config: AppSettings, tally: Tally) -> None:
        self.frames = TokenBucket(config.rate_limit_per_second, config.rate_limit_burst)
        self.errors = TokenBucket(config.error_budget_per_second, config.error_budget_burst)
        self.resumes = TokenBucket(config.resume_per_second, config.resume_burst)
        self.chat = TokenBucket(config.chat_per_second, config.chat_burst)
        self.room_chat: Callable[[], bool] = lambda: True
        self.throttled = False  # a `rate_limited` was sent since the last accepted frame
        self.tally = tally

    def refuse(
        self,
        conn: Connection,
        frame: ErrorFrame,
        *,
        after_events: bool = False,
        spent: str = "too many refused frames",
    ) -> None:
        """`after_events`: a command's refusal, sent after the events committed before it;
        `spent`: the reason the socket is closed for when the budget is out."""
        if self.errors.take():
            self.tally.refused[frame.get("code", "")] += 1
            if after_events:
                conn.refuse(frame)
            else:
                conn.send(frame)
        else:
            self.close(conn, spent)

    def close(self, conn: Connection, reason: str) -> None:
        log.info("closed a socket: %s", reason)
        self.tally.closed[reason] += 1
        conn.close(CLOSE_POLICY, reason)


def _took(buckets: AddressBuckets, address: str) -> bool:
    return buckets.take(address) == 0


async def _serve(
    websocket: WebSocket,
    conn: Connection,
    service: RoomService,
    config: AppSettings,
    hub: Hub,
    from_address: Callable[[], bool] = lambda: True,
) -> None:
    """`from_address`: takes a token from the bucket of every socket of the client's
    address (false: the address is over its rate)."""
    limits = _Limits(config, hub.tally)

    def room_chat() -> bool:
        return hub.take_chat(conn.room, config.room_chat_per_second, config.room_chat_burst)

    limits.room_chat = room_chat
    while not conn.closed and not conn.closing:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if not limits.frames.take() or not from_address():
            # Over the rate: every command refused says so with its id (a client waiting for
            # its ack or error is not left waiting for ever), a frame without an id gets one
            # `rate_limited` per streak; all of it spends the error budget, so a flood is
            # closed after a budget's worth of answers, never answered frame for frame.
            command_id = None
            if isinstance(text, str) and len(text) <= config.max_frame_bytes // 4:
                with contextlib.suppress(FrameError):
                    command_id = readable_id(decode(text))
            if command_id is not None or not limits.throttled:
                limits.throttled = True
                limits.refuse(
                    conn,
                    frames.error("rate_limited", "too many frames, slow down", command_id),
                    spent="rate limit",
                )
            elif not limits.errors.take():
                limits.close(conn, "rate limit")
            continue
        limits.throttled = False
        if not isinstance(text, str):
            limits.refuse(conn, frames.error("bad_frame", "frames are JSON text"))
            continue
        # Characters never outnumber bytes, so most frames skip the encoding.
        if len(text) > config.max_frame_bytes // 4 and (
            len(text.encode("utf-8", "surrogatepass")) > config.max_frame_bytes
        ):
            command_id = None
            with contextlib.suppress(FrameError):  # (at most `ws_max_bytes`, and rate-limited)
                command_id = readable_id(decode(text))
            limit = f"frames are limited to {config.max_frame_bytes} bytes"
            limits.refuse(conn, frames.error("too_large", limit, command_id))
            continue
        try:
            frame = parse(decode(text))
        except FrameError as exc:
            limits.refuse(conn, frames.error(exc.code, exc.message, exc.command_id))
            # A flood arrives as many frames per read, and receiving a queued frame does not
            # yield: the other sockets get their turn between refused frames.
            await asyncio.sleep(0)
            continue
        if isinstance(frame, Ping):
            conn.send(frames.pong(service.clock(), frame.command_id))
        elif isinstance(frame, Hello):
            # A hello is always answered with a welcome (PROTOCOL), but only a few per
            # second may replay history: past that, the welcome alone.
            replay = limits.resumes.take()
            if not replay and not limits.errors.take():
                # A welcome is the dearest answer there is: past the resume bucket, hellos
                # spend the error budget, so a hello flood is closed like any other.
                limits.close(conn, "too many hello frames")
                continue
            await _hello_again(conn, service, frame, limits, replay)
            # As after the first hello: what follows waits for this hello's welcome, or its
            # commits would be inside the welcome and their acks come without their frames.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(conn.welcomed.wait(), config.send_timeout_seconds)
        else:
            await _command(conn, service, frame, limits)


async def _hello_again(
    conn: Connection, service: RoomService, hello: Hello, limits: _Limits, replay: bool
) -> None:
    """The server always answers `hello` with a `welcome` (PROTOCOL.md): the same credential
    again resumes this socket from `since`; another one cannot switch its identity."""
    try:
        identity = await service.identify(conn.room, hello.token)
    except RoomError as exc:
        limits.tally.refused[exc.code] += 1
        conn.send(frames.error(exc.code, exc.message))
        return
    if identity is None or identity.member_id != conn.identity.member_id:
        limits.refuse(conn, frames.error("bad_frame", "this socket is already authenticated"))
        return
    conn.resume(hello.since if replay else None)


async def _command(
    conn: Connection, service: RoomService, command: Command, limits: _Limits
) -> None:
    if conn.identity.role != "player" and not isinstance(command.action, Chat):
        limits.refuse(
            conn, frames.error("unauthorized", "spectators are read-only", command.command_id)
        )
        return
    if isinstance(command.action, Chat) and not (limits.chat.take() and limits.room_chat()):
        limits.refuse(
            conn, frames.error("rate_limited", "too many chat messages", command.command_id)
        )
        return
    try:
        outcome = await service.submit(conn.room, conn.identity, command)
    except Exception:  # an engine or store bug must not drop the player's socket
        log.exception("command %s failed", command.type)
        limits.tally.refused["internal"] += 1
        conn.send(frames.error("internal", "the server could not apply that", command.command_id))
        return
    if outcome.version is None:
        error = frames.error(outcome.code or "bad_command", outcome.message, command.command_id)
        limits.refuse(conn, error, after_events=True)
        return
    conn.ack(command.command_id, outcome.version)
    if isinstance(command.action, Leave):
        # The seat is no longer this credential's (a bot plays it): end the socket after
        # the ack; the token is refused from now on.
        conn.close(CLOSE_LEFT, "left the room")
