"""One client socket: an ordered outbox and the task that empties it.

Everything a client receives goes through the outbox, in order: replayed and live events,
acks, errors, pongs. Events are read from the room's history (never built from the bus
message), so an ack is sent only after every event up to its version, and a late or lost
notification is repaired by the next one. Each event frame is built once for this recipient.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

from starlette.websockets import WebSocket

from app import engine
from app.engine.events import Event
from app.engine.state import State
from app.rooms.service import Identity, RoomService

log = logging.getLogger(__name__)

LOG_SIZE = 20  # recent events carried in `view.log`
# The log is public and carries no card ids: an old entry must not name a card that has since
# moved into another hand (a swap, a reshuffle), and revealed hands stay in their event.
_LOG_DROPPED_KEYS = frozenset({"id", "hands", "hand", "cards"})


@dataclass(frozen=True, slots=True)
class _CatchUp:
    version: int


@dataclass(frozen=True, slots=True)
class _Ack:
    command_id: str
    version: int


@dataclass(frozen=True, slots=True)
class _Resume:
    since: int | None


@dataclass(frozen=True, slots=True)
class _Frame:
    frame: dict[str, Any]
    catch_up: bool = False  # send the events committed so far first (a command's reply)


@dataclass(frozen=True, slots=True)
class _Close:
    code: int


_Item = _CatchUp | _Ack | _Resume | _Frame | _Close


class Connection:
    def __init__(
        self,
        websocket: WebSocket,
        room: str,
        identity: Identity,
        service: RoomService,
        since: int | None = None,
    ) -> None:
        self.websocket = websocket
        self.room = room
        self.identity = identity
        self.service = service
        self.version = -1  # the last version this client has received
        self.closed = False
        self._outbox: asyncio.Queue[_Item] = asyncio.Queue()
        self._log: deque[dict[str, Any]] = deque(maxlen=LOG_SIZE)
        self._task: asyncio.Task[None] | None = None
        self._catch_up_queued = False
        # The resume (replay + welcome) is always the first thing this client receives, even
        # if the hub notifies before the sender starts.
        self._outbox.put_nowait(_Resume(since))

    # --- what the endpoint, the hub and the room ask for ----------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def notify(self, version: int) -> None:
        # One queued catch-up reads everything up to the newest version, so a slow client
        # holds one item per notification burst, not one per event.
        if version > self.version and not self._catch_up_queued:
            self._catch_up_queued = True
            self._outbox.put_nowait(_CatchUp(version))

    def resume(self, since: int | None) -> None:
        """A repeated `hello`: replay after `since` (when held), then a fresh `welcome`."""
        self._outbox.put_nowait(_Resume(since))

    def ack(self, command_id: str, version: int) -> None:
        self._outbox.put_nowait(_Ack(command_id, version))

    def send(self, frame: dict[str, Any]) -> None:
        self._outbox.put_nowait(_Frame(frame))

    def refuse(self, frame: dict[str, Any]) -> None:
        """A command's error, after the events committed before it (events, then the reply:
        a refused false catch still commits the catcher's penalty)."""
        self._outbox.put_nowait(_Frame(frame, catch_up=True))

    def close(self, code: int) -> None:
        self._outbox.put_nowait(_Close(code))

    async def stop(self) -> None:
        self.closed = True
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    # --- the sender ------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while True:
                item = await self._outbox.get()
                if isinstance(item, _Resume):
                    await self._resume(item.since)
                elif isinstance(item, _CatchUp):
                    self._catch_up_queued = False
                    await self._catch_up_to_latest()
                elif isinstance(item, _Ack):
                    await self._catch_up(item.version)
                    await self._send(
                        {"type": "ack", "id": item.command_id, "version": item.version}
                    )
                elif isinstance(item, _Frame):
                    if item.catch_up:
                        await self._catch_up_to_latest()
                    await self._send(item.frame)
                else:
                    self.closed = True
                    await self.websocket.close(code=item.code)
                    return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a closed socket ends the sender; the endpoint cleans up
            log.debug("sender stopped: %s", type(exc).__name__)
            self.closed = True
            # If the socket is still open (the failure was ours), close it so the client
            # reconnects and resumes instead of waiting on a silent socket.
            with contextlib.suppress(Exception):
                await self.websocket.close(code=1011)

    async def _send(self, frame: dict[str, Any]) -> None:
        await self.websocket.send_text(json.dumps(frame, separators=(",", ":")))

    async def _resume(self, since: int | None) -> None:
        record = await self.service.store.load(self.room)
        if record is None:  # forgotten between hello and now
            await self._send({"type": "error", "code": "unauthorized", "message": "no room"})
            self.closed = True
            await self.websocket.close(code=4401)
            return
        state = record.state
        replay: list[Event] | None = None
        if since is not None and 0 <= since <= state.version:
            replay = await self.service.store.events_since(self.room, since)
        if replay is None:
            await self._welcome(state)
            return
        await self._fill_log(since if since is not None else state.version)
        for event in replay:
            if event.version > state.version:
                break
            await self._send(self._event_frame(event))
            self.version = event.version
        await self._welcome(state, fill_log=False)

    async def _catch_up_to_latest(self) -> None:
        await self._catch_up(self.version + 1)

    async def _catch_up(self, target: int) -> None:
        if self.version >= target:
            return
        events = await self.service.store.events_since(self.room, self.version)
        if events is None:
            # Too far behind for the history (or the room is gone): start afresh.
            record = await self.service.store.load(self.room)
            if record is not None:
                await self._welcome(record.state)
            return
        for event in events:
            await self._send(self._event_frame(event))
            self.version = event.version

    async def _welcome(self, state: State, *, fill_log: bool = True) -> None:
        if fill_log:
            await self._fill_log(state.version)
        who = self.identity
        seat = self._seat(state)
        view = engine.view(state, seat, self.service.clock())
        view["log"] = list(self._log)
        await self._send(
            {
                "type": "welcome",
                "you": {"seat": seat, "player_id": who.member_id, "role": who.role},
                "version": state.version,
                "view": view,
            }
        )
        self.version = state.version

    async def _fill_log(self, version: int) -> None:
        self._log.clear()
        recent = await self.service.store.events_since(self.room, max(0, version - LOG_SIZE))
        for event in recent or ():
            if event.version > version:
                break
            self._log.append(log_entry(event))

    def _seat(self, state: State | None) -> int | None:
        if state is None or self.identity.role != "player":
            return None
        return engine.seat_of(state, self.identity.member_id)

    def _event_frame(self, event: Event) -> dict[str, Any]:
        assert event.after is not None, "room history keeps the state after each event"
        seat = self._seat(event.after)
        redacted = engine.redact(event, seat)
        self._log.append(log_entry(event))
        view = engine.view(event.after, seat, self.service.clock())
        view["log"] = list(self._log)
        return {"type": "event", "version": event.version, "event": redacted, "view": view}


def log_entry(event: Event) -> dict[str, Any]:
    """What everybody may read about `event`, without card ids or revealed hands."""
    entry = _scrub(engine.redact(event, None))
    assert isinstance(entry, dict)
    return {"version": event.version, **entry}


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _scrub(v)
            for k, v in value.items()
            if k not in _LOG_DROPPED_KEYS and not (k == "card" and isinstance(v, int))
        }
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value
