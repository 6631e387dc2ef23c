"""One client socket: a bounded, ordered outbox and the task that empties it.

Everything a client receives goes through the outbox, in order: replayed and live commits,
acks, errors, pongs. Commits are read from the room's history (never built from the bus
message), so an ack is sent only after every event up to its version, and a late or lost
notice is repaired by the next one. A burst of notices is one queued catch-up, so a slow
client holds at most one item per notice burst; the outbox itself is bounded (a client that
does not read while it keeps sending fills it and is closed), and so is each send.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from starlette.websockets import WebSocket

from app import engine
from app.engine.events import Event
from app.engine.state import State
from app.rooms.service import Identity, RoomService
from app.store.rooms import Commit
from app.store.shared import StoreUnavailable
from app.transport import frames
from app.transport.frames import Role, ServerFrame, You

log = logging.getLogger(__name__)

# Close codes (docs/protocol.md "Closing"): RFC 6455 policy violation for a client that does
# not read what it is sent or keeps sending refused frames.
CLOSE_POLICY = 1008
# A player's seat was freed by the room (the host's `remove_seat`, or the lobby freeing a seat
# away too long): once the frame with its `player_left` is sent, the socket ends as a `leave`'s
# does; its token is refused from then on.
CLOSE_UNSEATED = 1000
# A client closed for a broken limit gets what was queued for it if it reads it within this
# time; one that does not is dropped then, not after the send timeout.
POLICY_FLUSH_SECONDS = 1.0
# An ASGI scope extension (app/server.py provides it): a function that frames text messages
# and writes them at once, in one write, when the socket can take them, and answers False when
# it cannot (closing, its buffer full); the ASGI send path then does it. It saves the hot path
# a timeout, a task switch and four layers of wrappers per frame, and a system call per frame
# sent together (a move's frame and its ack).
SEND_NOW_EXTENSION = "uno.websocket.send_now"
SendNow = Callable[[list[bytes]], bool]
# Queue items handled before what they produced is written and other sockets get a turn.
BURST_ITEMS = 4
# A read of the shared store that fails is tried again after 0.2, 0.4, ... at most 2 s, this
# many times in a row (about 11 s), before the socket is closed (1011).
STORE_RETRIES = 8
STORE_RETRY_S = 0.1
STORE_RETRY_MAX_S = 2.0


@dataclass(frozen=True, slots=True)
class _CatchUp:
    pass


@dataclass(frozen=True, slots=True)
class _Ack:
    command_id: str
    version: int


@dataclass(frozen=True, slots=True)
class _Resume:
    since: int | None


@dataclass(frozen=True, slots=True)
class _Frame:
    frame: ServerFrame
    catch_up: bool = False  # send the events committed so far first (a command's reply)


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str = ""


_Item = _CatchUp | _Ack | _Resume | _Frame | _Close
_CATCH_UP = _CatchUp()


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
        config = service.config
        # A client within its budgets never fills the outbox, however slow our sends: it can
        # have a whole rate burst and error burst of replies queued at once.
        self._max_items = max(
            config.outbox_max_frames, config.rate_limit_burst + config.error_budget_burst + 32
        )
        self._send_timeout = config.send_timeout_seconds
        extensions = websocket.scope.get("extensions") or {}
        self._send_now: SendNow | None = extensions.get(SEND_NOW_EXTENSION)
        self._pending: list[bytes] = []  # frames to write at the end of a burst (send_now)
        self._idle = False  # the sender waits with nothing queued, pending or half-sent
        self._resume_max_bytes = config.resume_max_bytes
        self.version = -1  # the last version this client has received
        self.closed = False
        self.not_reading = False  # closed for not reading its frames (counted by /metrics)
        self.closing = False  # a close is queued: nothing more is, and the reader stops
        self._items: deque[_Item] = deque()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._catch_up_queued = False
        # The frame `prepare` built of a commit, with the builder it came from: `deliver`
        # sends it as it is when that builder still serves the commit (not rebuilt stale).
        self._ahead: tuple[Commit, frames.CommitFrames, bytes] | None = None
        # Set once the welcome of every `hello` so far is built (or the sender ended): the
        # endpoint applies no command of this socket before, so a command's commit comes
        # after the welcome's version and reaches the client as its own `events` frame
        # before its `ack`, after the first `hello` and after any repeated one alike.
        self.welcomed = asyncio.Event()
        self._resumes_asked = 1  # the first hello's, queued below
        self._resumes_done = 0
        # The resume (replay + welcome) is always the first thing this client receives, even
        # if the hub notifies before the sender starts.
        self._put(_Resume(since))

    # --- what the endpoint, the hub and the room ask for ----------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def deliver(self, commit: Commit, now: int) -> bool:
        """Send `commit`'s frame now, from the caller's task (the hub's, once per commit for
        every socket of the room), if this socket is idle and right before the commit: no
        queue item, no wake-up of this socket's task. False: use `notify`."""
        ahead, self._ahead = self._ahead, None
        if (
            not self._idle
            or self.closed
            or self.closing
            or self._send_now is None
            or commit.state is None
            or commit.first != self.version + 1
        ):
            return False
        built = frames.commit_frames(commit, now)
        seat = self._seat(commit.state)
        if ahead is not None and ahead[0] is commit and ahead[1] is built:
            frame = ahead[2]
        else:
            frame = built.for_seat(seat)
        if not self._send_now([frame]):
            return False
        self.version = commit.last
        if seat is None:
            self._end_if_unseated(commit.state)
        return True

    def prepare(self, commit: Commit, now: int) -> None:
        """Build the frame `deliver` will send of `commit`, if this socket is right before it
        (the hub asks while the commit's reply is awaited: see `Hub.prepare`)."""
        if (
            not self.closed
            and not self.closing
            and commit.state is not None
            and commit.first == self.version + 1
        ):
            built = frames.commit_frames(commit, now, ahead=True)
            self._ahead = (commit, built, built.for_seat(self._seat(commit.state)))

    def notify(self, version: int) -> None:
        if version > self.version and not self._catch_up_queued:
            self._catch_up_queued = True
            self._put(_CATCH_UP)

    def resume(self, since: int | None) -> None:
        """A repeated `hello`: replay after `since` (when held), then a fresh `welcome`;
        `welcomed` is clear until that welcome is built."""
        if self.closed or self.closing:
            return
        self._resumes_asked += 1
        self.welcomed.clear()
        self._put(_Resume(since))

    def ack(self, command_id: str, version: int) -> None:
        self._put(_Ack(command_id, version))

    def send(self, frame: ServerFrame) -> None:
        self._put(_Frame(frame))

    def refuse(self, frame: ServerFrame) -> None:
        """A command's error, after the events committed before it (events, then the reply:
        a refused false catch still commits the catcher's penalty)."""
        self._put(_Frame(frame, catch_up=True))

    def close(self, code: int, reason: str = "") -> None:
        """Close after what is already queued (a replaced socket, a seat that left, a client
        out of its error budget)."""
        if not self.closed and not self.closing:
            self.closing = True
            self._items.append(_Close(code, reason))
            self._ready.set()
            if code == CLOSE_POLICY:
                loop = asyncio.get_running_loop()
                loop.call_later(POLICY_FLUSH_SECONDS, self.abort, code, reason)

    def abort(self, code: int, reason: str) -> None:
        """Close now, dropping what is queued: the client broke a limit."""
        if self.closed:
            return
        self.closed = True
        self._items.clear()
        if self._task is not None:
            self._task.cancel()
        asyncio.get_running_loop().create_task(self._close_socket(code, reason))

    async def stop(self) -> None:
        if self.closing and self._task is not None and self._task is not asyncio.current_task():
            # Let the queued frames and the close go out (bounded by the send timeout).
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._task), self._send_timeout + 5)
        self.closed = True
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def _put(self, item: _Item) -> None:
        if self.closed or self.closing:
            return
        if len(self._items) >= self._max_items:
            log.info("closed a socket whose outbox is full (it does not read)")
            self.abort(CLOSE_POLICY, "not reading")
            return
        self._items.append(item)
        self._ready.set()

    # --- the sender ------------------------------------------------------------------

    async def _run(self) -> None:
        burst = 0
        failures = 0  # reads of the shared store that failed in a row
        try:
            while True:
                if not self._items:
                    await self._flush()
                    burst = 0
                    if self._items:  # queued while the flush waited
                        continue
                    self._ready.clear()
                    self._idle = True
                    try:
                        await self._ready.wait()
                    finally:
                        self._idle = False
                    continue
                if burst >= BURST_ITEMS:
                    # A backlog (a client sending many `hello`s, say) is worked off a few
                    # items per turn of the loop, not in one long callback that stalls every
                    # table.
                    await self._flush()
                    burst = 0
                    await asyncio.sleep(0)
                    continue
                item = self._items.popleft()
                burst += 1
                mark = len(self._pending)
                try:
                    if await self._handle(item):
                        return
                except StoreUnavailable:
                    # The shared store did not answer (Redis overloaded, or away): keep the
                    # socket and read again shortly, as a client that reconnected would ask
                    # the same; past a few tries, close so that it reconnects elsewhere.
                    failures += 1
                    if failures > STORE_RETRIES:
                        raise
                    if isinstance(item, _Resume):
                        del self._pending[mark:]
                        item = _Resume(None)  # a welcome alone answers a hello
                    self._items.appendleft(item)
                    await self._flush()
                    burst = 0
                    await asyncio.sleep(min(STORE_RETRY_MAX_S, STORE_RETRY_S * 2**failures))
                    continue
                failures = 0
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            log.info("closed a socket that did not read for %.0f s", self._send_timeout)
            self.closed = True
            self.not_reading = True
            await self._close_socket(CLOSE_POLICY, "not reading")
        except Exception as exc:  # a closed socket ends the sender; the endpoint cleans up
            log.debug("sender stopped: %s", type(exc).__name__)
            self.closed = True
            # If the socket is still open (the failure was ours), close it so the client
            # reconnects and resumes instead of waiting on a silent socket.
            await self._close_socket(1011, "")
        finally:
            self.welcomed.set()  # nothing more will be built: never keep the reader waiting

    async def _handle(self, item: _Item) -> bool:
        """Send what `item` asks for; True when it closed the socket."""
        if isinstance(item, _Resume):
            await self._resume(item.since)
            self._resumes_done += 1
            if self._resumes_done >= self._resumes_asked:
                self.welcomed.set()
        elif isinstance(item, _CatchUp):
            self._catch_up_queued = False
            await self._catch_up(self.version + 1)
        elif isinstance(item, _Ack):
            await self._catch_up(item.version)
            await self._send(frames.ack(item.command_id, item.version))
        elif isinstance(item, _Frame):
            if item.catch_up:
                await self._catch_up(self.version + 1)
            await self._send(frames.encode(item.frame))
        else:
            self.closed = True
            await self._flush()
            await self._close_socket(item.code, item.reason)
            return True
        return False

    async def _send(self, data: bytes) -> None:
        if self._send_now is not None:
            self._pending.append(data)
            return
        await self._send_by_asgi(data)

    async def _flush(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        assert self._send_now is not None
        if self._send_now(pending):
            return
        for payload in pending:  # the socket cannot take them now: wait, bounded
            await self._send_by_asgi(payload)

    async def _send_by_asgi(self, data: bytes) -> None:
        # A client that does not read blocks the send once the buffers are full: bounded.
        # (asyncio.timeout, not wait_for: no task per send on the hot path.)
        async with asyncio.timeout(self._send_timeout):
            await self.websocket.send_text(data.decode())

    async def _close_socket(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.websocket.close(code=code, reason=reason), 5.0)

    async def _resume(self, since: int | None) -> None:
        state = await self.service.current_state(self.room)
        if state is None:  # forgotten between hello and now
            await self._send(frames.encode(frames.error("unauthorized", "no room")))
            self.closed = True
            self.welcomed.set()
            await self._close_socket(4401, "")
            return
        if since is not None and 0 <= since < state.version:
            held = await self.service.events_since(self.room, since)
            # A commit landing while the history was read goes out after the welcome.
            replay = [e for e in held or () if e.version <= state.version]
            if replay:
                seat = self._seat(state)
                frame = frames.merged_frame(replay, state, seat, self.service.clock(), since)
                # A resume from far back is answered by the welcome alone: a replay is
                # bounded, so a small `hello` cannot draw a large answer.
                if len(frame) <= self._resume_max_bytes:
                    await self._send(frame)
        await self._welcome(state)

    async def _catch_up(self, target: int) -> None:
        if self.version >= target:
            return
        commits = await self.service.commits_since(self.room, self.version)
        if commits is None:
            # Too far behind for the history (or the room is gone): start afresh.
            current = await self.service.current_state(self.room)
            if current is not None:
                await self._welcome(current)
            return
        now = self.service.clock()
        behind: list[Commit] = []  # commits without a kept state, merged into the next one
        for commit in commits:
            if commit.state is None or commit.first <= self.version:
                behind.append(commit)
                continue
            seat = self._seat(commit.state)
            if behind:
                events: list[Event] = [e for c in (*behind, commit) for e in c.events]
                frame = frames.merged_frame(events, commit.state, seat, now, self.version)
                behind = []
            else:
                frame = frames.commit_frames(commit, now).for_seat(seat)
            await self._send(frame)
            self.version = commit.last
            if seat is None:
                self._end_if_unseated(commit.state)
        if behind:
            # The newest commits read lost their states while this socket was sending (more
            # commits landed meanwhile): their events, and whatever came since, in one frame
            # with the view of the room now.
            await self._send_merged_to_now()

    async def _send_merged_to_now(self) -> None:
        state = await self.service.current_state(self.room)
        if state is None:
            return
        held = await self.service.events_since(self.room, self.version)
        events = [e for e in held or () if e.version <= state.version]
        if not events or events[-1].version != state.version:
            await self._welcome(state)  # the history no longer reaches back: start afresh
            return
        seat = self._seat(state)
        await self._send(
            frames.merged_frame(events, state, seat, self.service.clock(), self.version)
        )
        self.version = state.version
        if seat is None:
            self._end_if_unseated(state)

    async def _welcome(self, state: State) -> None:
        service = self.service
        # The whole history when it is held (for the chat), else the log's last events.
        recent = await service.events_since(
            self.room, max(0, state.version - service.config.history_limit // 2)
        ) or await service.events_since(self.room, max(0, state.version - frames.LOG_SIZE))
        who = self.identity
        seat = self._seat(state)
        role: Role = "player" if who.role == "player" else "spectator"
        you = You(seat=seat, player_id=who.member_id, role=role)
        await self._send(frames.welcome(state, seat, you, self.service.clock(), recent or ()))
        self.version = state.version

    def _seat(self, state: State) -> int | None:
        if self.identity.role != "player":
            return None
        return engine.seat_of(state, self.identity.member_id)

    def _end_if_unseated(self, state: State) -> None:
        """Close after what is queued when this player's seat is gone from `state` (sent to
        the client just now): it learnt so from the frame's `player_left`."""
        if (
            self.identity.role == "player"
            and engine.seat_of(state, self.identity.member_id) is None
        ):
            self.close(CLOSE_UNSEATED, "removed from the room")
