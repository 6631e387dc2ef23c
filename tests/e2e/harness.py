"""Real sockets against a real server: uvicorn on a free loopback port, in the test's own
event loop, and `websockets` clients whose every received frame passes the leak auditor.

Wire v2 (PROTOCOL.md section 3): one `events` frame per commit and recipient, carrying
every event of the commit (each with its own `version`) and the view after the last one.
A `Client` keeps the real frames and also offers the events one at a time (`events`,
`event(kind)`), each remembering the frame that carried it."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import socket
import ssl
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
import websockets
from websockets.asyncio.client import ClientConnection

from app.engine.events import Event
from app.main import create_app
from app.rooms.service import RoomService
from app.server import GuardedWebSocketProtocol
from app.settings import AppSettings

RECV_TIMEOUT = 5.0
SECRET_KEYS = frozenset({"draw_pile", "seed", "deck_order", "pairing", "token", "hands_all"})


@functools.cache
def client_tls() -> ssl.SSLContext:
    """httpx's default TLS context, made once: every client builds one (loading the CA
    bundle, 20 ms of CPU) even to speak plain HTTP to a test server, as these all do."""
    return ssl.create_default_context()


def server_settings(**overrides: Any) -> AppSettings:
    values: dict[str, Any] = {
        "database_url": "memory://",
        "uno_test_hooks": True,
        # A test client slowed by a loaded machine must not fall out of the history: the
        # fresh `welcome` it would get then skips versions the tests check are contiguous.
        "history_limit": 100_000,
        "hello_timeout_seconds": 1.0,
        "rate_limit_per_second": 200.0,
        "rate_limit_burst": 400,
        "chat_per_second": 200.0,
        "chat_burst": 400,
        "room_chat_per_second": 1000.0,
        "room_chat_burst": 2000,
        # Every test creates its rooms from 127.0.0.1.
        "create_rate_per_second": 1000.0,
        "create_rate_burst": 100_000,
        "ws_connect_rate_per_second": 1000.0,
        "ws_connect_rate_burst": 100_000,
        "max_open_per_address": 100_000,
        "address_frames_per_second": 100_000.0,
        "address_frames_burst": 1_000_000,
    }
    values.update(overrides)
    return AppSettings(**values)


# --- the leak auditor -------------------------------------------------------------------


def card_ids(value: Any) -> set[int]:
    """Ids of every card object in a frame (dicts with an int `id` and a face)."""
    found: set[int] = set()
    if isinstance(value, dict):
        cid = value.get("id")
        if (
            isinstance(cid, int)
            and not isinstance(cid, bool)
            and ("kind" in value or "face" in value or "light" in value)
        ):
            found.add(cid)
        for item in value.values():
            found |= card_ids(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_ids(item)
    return found


def keys_of(value: Any) -> set[str]:
    if isinstance(value, dict):
        out = set(value)
        for item in value.values():
            out |= keys_of(item)
        return out
    if isinstance(value, list):
        out = set()
        for item in value:
            out |= keys_of(item)
        return out
    return set()


@dataclass(frozen=True)
class Truth:
    """What the server held right after one event: who holds which card, what lies face
    down in the draw pile. Copied at commit time, so later moves cannot change it."""

    status: str
    hands: tuple[frozenset[int], ...]
    draw_pile: frozenset[int]

    def hidden_from(self, seat: int | None) -> set[int]:
        """Card ids `seat` (None: a spectator) must not see: other hands, the draw pile."""
        hidden = set(self.draw_pile)
        for s, hand in enumerate(self.hands):
            if s != seat:
                hidden |= hand
        return hidden


def truth_of(state: Any) -> Truth:
    return Truth(
        state.status,
        tuple(frozenset(hand) for hand in state.hands),
        frozenset(state.draw_pile),
    )


class LeakAuditor:
    """No frame to seat s carries a card of another hand or of the draw pile (before the
    round's reveal), a token, or a secret key. Every event of an `events` frame is checked
    against the server's state right after that event, the frame's view against the state
    after the frame's last event. Ground truth comes from `RoomService.commit_observers`,
    which sees each commit's events while they still hold the state after each of them."""

    def __init__(self, service: RoomService) -> None:
        self.service = service
        self.tokens: set[str] = set()
        self.frames = 0
        self.problems: list[str] = []
        self.truth: dict[tuple[str, int], Truth] = {}
        self.missing_after = 0  # events observed without a state (the engine did not trace)
        service.commit_observers.append(self.observe)

    def observe(self, room: str, events: Sequence[Event]) -> None:
        for event in events:
            if event.after is None:
                self.missing_after += 1
                continue
            self.truth[(room, event.version)] = truth_of(event.after)

    async def truth_at(self, room: str, version: int) -> Truth | None:
        known = self.truth.get((room, version))
        if known is not None:
            return known
        # Committed before this auditor listened (a room restored from the database): the
        # store still holds the state of a recent commit's end.
        state = await self.service.store.state_at(room, version)
        return None if state is None else truth_of(state)

    async def check(self, room: str, seat: int | None, raw: str) -> None:
        self.frames += 1
        frame = json.loads(raw)
        kind = frame.get("type")
        for token in self.tokens:
            if token in raw:
                self.problems.append(f"token in a {kind} frame")
        secret = keys_of(frame) & SECRET_KEYS
        if secret:
            self.problems.append(f"secret keys {sorted(secret)} in a {kind} frame")
        if kind == "welcome" and isinstance(frame.get("you"), dict):
            seat = frame["you"].get("seat")
        parts: list[tuple[str, Any, Any]] = []  # (what, part, version it describes)
        rest = dict(frame)
        if kind == "events" and isinstance(frame.get("events"), list):
            for event in rest.pop("events"):
                what = f"{event.get('kind')} event" if isinstance(event, dict) else "event"
                parts.append((what, self._checked_event(event, seat), _version(event)))
        if kind in ("events", "welcome") and "view" in rest:
            parts.append((f"{kind} view", rest.pop("view"), frame.get("version")))
        if card_ids(rest):
            self.problems.append(f"card ids outside any event or view in a {kind} frame")
        for what, part, version in parts:
            await self._check_part(room, seat, what, part, version)

    @staticmethod
    def _checked_event(event: Any, seat: int | None) -> Any:
        """The event minus what its recipient may see: the challenged hand is shown to the
        challenger alone (PROTOCOL 3, `challenge_resolved`)."""
        if (
            isinstance(event, dict)
            and event.get("kind") == "challenge_resolved"
            and seat is not None
            and event.get("seat") == seat
        ):
            return {k: v for k, v in event.items() if k != "hand"}
        return event

    async def _check_part(
        self, room: str, seat: int | None, what: str, part: Any, version: Any
    ) -> None:
        ids = card_ids(part)
        if not ids:
            return
        if not isinstance(version, int) or isinstance(version, bool):
            self.problems.append(f"seat {seat}: cards in a {what} without a version")
            return
        truth = await self.truth_at(room, version)
        if truth is None:
            self.problems.append(f"seat {seat}: no ground truth for a {what} at {version}")
            return
        if truth.status != "playing":
            return  # lobby, or after the reveal
        leaked = ids & truth.hidden_from(seat)
        if leaked:
            self.problems.append(
                f"seat {seat} saw {len(leaked)} hidden card(s) in a {what} at version {version}"
            )


def _version(event: Any) -> Any:
    return event.get("version") if isinstance(event, dict) else None


# --- clients ----------------------------------------------------------------------------


_ids = itertools.count(1)


class Seen(dict[str, Any]):
    """One event as a client received it (`kind`, `version` and its fields), with `frame`,
    the `events` frame that carried it; `view` is that frame's view: the state after the
    frame's last event, which may come after this one."""

    frame: dict[str, Any]

    @property
    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = self.frame["view"]
        return view


def check_shape(frame: dict[str, Any]) -> None:
    """What PROTOCOL v2 promises of every `events` and `welcome` frame."""
    if frame["type"] == "events":
        events = frame["events"]
        assert isinstance(events, list) and events, frame
        versions = [e["version"] for e in events]
        assert all(isinstance(e["kind"], str) for e in events), events
        assert consecutive(versions), versions  # a frame never skips a version
        assert frame["version"] == versions[-1] == frame["view"]["version"], frame["version"]
        assert "log" not in frame["view"]  # only the welcome's view carries the log
    elif frame["type"] == "welcome":
        assert frame["version"] == frame["view"]["version"]
        assert isinstance(frame["view"].get("log"), list)


def kinds(frame: dict[str, Any]) -> list[str]:
    """The kinds of an `events` frame's events (nothing for other frames)."""
    if frame.get("type") != "events":
        return []
    return [e["kind"] for e in frame["events"]]


@dataclass
class Client:
    ws: ClientConnection
    room: str
    auditor: LeakAuditor
    seat: int | None = None
    role: str | None = None
    view: dict[str, Any] | None = None
    version: int = -1
    frames: list[dict[str, Any]] = field(default_factory=list)
    # Every version received (events and welcomes), in arrival order, repeats collapsed.
    versions: list[int] = field(default_factory=list)
    # Every event received, in version order, each once (a replay of known ones adds none).
    events: list[Seen] = field(default_factory=list)
    _unread: int = 0  # events[_unread:] not yet handed out by `event` (see there)

    async def send(self, frame: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(frame))

    async def send_raw(self, text: str) -> None:
        await self.ws.send(text)

    async def command(self, type_: str, **fields: Any) -> str:
        command_id = fields.pop("id", None) or f"c{next(_ids)}"
        await self.send({"type": type_, "id": command_id, **fields})
        return command_id

    async def recv(self, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        """The next frame (audited and recorded); its events count as read."""
        frame = await self._recv(timeout)
        self._unread = len(self.events)
        return frame

    async def _recv(self, timeout: float) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(raw, str)
        await self.auditor.check(self.room, self.seat, raw)
        frame: dict[str, Any] = json.loads(raw)
        self.frames.append(frame)
        check_shape(frame)
        if frame["type"] == "welcome":
            self.seat = frame["you"]["seat"]
            self.role = frame["you"]["role"]
        if frame["type"] == "events":
            top = self.events[-1]["version"] if self.events else -1
            for event in frame["events"]:
                self._saw(event["version"])
                if event["version"] > top:
                    seen = Seen(event)
                    seen.frame = frame
                    self.events.append(seen)
        if frame["type"] in ("events", "welcome"):
            self.view = frame["view"]
            self.version = frame["version"]
            self._saw(frame["version"])
        return frame

    def _saw(self, version: int) -> None:
        if not self.versions or self.versions[-1] != version:
            self.versions.append(version)

    async def until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = RECV_TIMEOUT
    ) -> dict[str, Any]:
        """Read frames until one matches (every frame read is audited and recorded)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError("no matching frame")
            frame = await self.recv(left)
            if predicate(frame):
                return frame

    async def reply(self, command_id: str, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        """The ack or error answering `command_id`."""
        return await self.until(
            lambda f: f["type"] in ("ack", "error") and f.get("id") == command_id, timeout
        )

    async def act(self, type_: str, **fields: Any) -> dict[str, Any]:
        return await self.reply(await self.command(type_, **fields))

    async def event(self, kind: str, timeout: float = RECV_TIMEOUT) -> Seen:
        """The next event of `kind` not read yet. A frame read by any other call counts as
        read whole; one read here keeps its events after the match for the next call, so
        `event("card_played")` then `event("turn_skipped")` finds both in one frame."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            while self._unread < len(self.events):
                seen = self.events[self._unread]
                self._unread += 1
                if seen["kind"] == kind:
                    return seen
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"no {kind} event")
            await self._recv(left)

    async def catch_up(self, version: int, timeout: float = RECV_TIMEOUT) -> None:
        """Read until this client has seen `version` (every frame read counts as read)."""
        if self.version < version:
            await self.until(lambda f: f["type"] == "events" and f["version"] >= version, timeout)
        self._unread = len(self.events)

    def events_after(self, version: int) -> list[Seen]:
        """The events received with a version above `version`, in order."""
        return [e for e in self.events if e["version"] > version]

    def kinds_after(self, version: int) -> list[str]:
        return [e["kind"] for e in self.events_after(version)]

    def frame_for(self, version: int) -> dict[str, Any]:
        """The `events` frame this client received that ends at `version` (an ack's)."""
        return next(f for f in self.frames if f["type"] == "events" and f["version"] == version)

    def seen(self, kind: str) -> list[Seen]:
        """Every event of `kind` received so far."""
        return [e for e in self.events if e["kind"] == kind]

    async def quiet(self, seconds: float) -> list[dict[str, Any]]:
        """Every frame arriving within `seconds` (expecting few or none)."""
        got: list[dict[str, Any]] = []
        with contextlib.suppress(TimeoutError):
            while True:
                got.append(await self.recv(seconds))
        return got

    async def close(self) -> None:
        """Close, auditing whatever the server still sends until the closing handshake."""
        closer = asyncio.create_task(self.ws.close())
        with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
            while True:
                raw = await asyncio.wait_for(self.ws.recv(), RECV_TIMEOUT)
                assert isinstance(raw, str)
                await self.auditor.check(self.room, self.seat, raw)
        await closer


@dataclass
class Harness:
    base: str
    http: httpx.AsyncClient
    service: RoomService
    auditor: LeakAuditor
    clients: list[Client] = field(default_factory=list)
    seats: dict[str, int] = field(default_factory=dict)  # token → seat, for the auditor
    tournaments: Any = None  # the app's TournamentService
    app: Any = None  # the ASGI app itself (its `state`)

    @property
    def ws_base(self) -> str:
        return self.base.replace("http://", "ws://")

    async def create_room(
        self, name: str = "Host", settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"name": name}
        if settings is not None:
            body["settings"] = settings
        response = await self.http.post("/api/rooms", json=body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        self.auditor.tokens.add(created["token"])
        self.seats[created["token"]] = created["seat"]
        return created

    async def join(self, room: str, name: str) -> dict[str, Any]:
        response = await self.http.post(f"/api/rooms/{room}/players", json={"name": name})
        assert response.status_code == 201, response.text
        joined: dict[str, Any] = response.json()
        self.auditor.tokens.add(joined["token"])
        self.seats[joined["token"]] = joined["seat"]
        return joined

    async def spectate(self, room: str) -> str:
        response = await self.http.post(f"/api/rooms/{room}/spectators", json={"name": "Eve"})
        assert response.status_code == 201, response.text
        token: str = response.json()["token"]
        self.auditor.tokens.add(token)
        return token

    async def summary(self, room: str) -> dict[str, Any]:
        response = await self.http.get(f"/api/rooms/{room}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert not card_ids(body)
        return body

    async def version(self, room: str) -> int:
        return int((await self.summary(room))["version"])

    async def open(self, room: str, **headers: str) -> Client:
        ws = await websockets.connect(
            f"{self.ws_base}/ws/rooms/{room}", additional_headers=headers or None
        )
        client = Client(ws, room, self.auditor)
        self.clients.append(client)
        return client

    async def connect(self, room: str, token: str, since: int | None = None) -> Client:
        """Open a socket, say hello and read up to the welcome."""
        client = await self.open(room)
        client.seat = self.seats.get(token)  # frames replayed before the welcome need it
        await client.send({"type": "hello", "token": token, "since": since})
        await client.until(lambda f: f["type"] == "welcome")
        return client

    async def deck(self, room: str) -> list[dict[str, Any]]:
        response = await self.http.get(f"/api/rooms/{room}/deck")
        assert response.status_code == 200
        cards: list[dict[str, Any]] = response.json()["cards"]
        return cards


class _TestServer(uvicorn.Server):
    """uvicorn's server (its ticks and its shutdown: connections asked to close and waited
    for, then tasks, then the lifespan), without the waits on a 0.1 s clock: told to stop by
    an event rather than seen to at its next tick, and the connections and tasks looked at
    every 5 ms instead of after a fixed 0.1 s and then every 0.1 s. A test's server stops as
    soon as its connections are closed, not up to 0.3 s later."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self.should_exit = True
        self._stop.set()

    async def main_loop(self) -> None:
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), 0.1)
            should_exit = await self.on_tick(counter)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            await asyncio.wait_for(
                self._wait_tasks_to_complete(), timeout=self.config.timeout_graceful_shutdown
            )
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()

    async def _wait_tasks_to_complete(self) -> None:
        while self.server_state.connections and not self.force_exit:
            await asyncio.sleep(0.005)
        while self.server_state.tasks and not self.force_exit:
            await asyncio.sleep(0.005)
        for server in self.servers:
            await server.wait_closed()


@contextlib.asynccontextmanager
async def running_server(config: AppSettings) -> AsyncIterator[Harness]:
    app = create_app(config)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = _TestServer(
        uvicorn.Config(
            app,
            log_level="warning",
            lifespan="on",
            ws_max_size=1 << 20,
            ws=GuardedWebSocketProtocol,  # the production server's WebSocket protocol
        )
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.005)
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base, timeout=10, verify=client_tls()) as http:
            harness = Harness(base, http, app.state.rooms, LeakAuditor(app.state.rooms))
            harness.tournaments = app.state.tournaments
            harness.app = app
            try:
                yield harness
            finally:
                for client in harness.clients:
                    with contextlib.suppress(Exception):
                        await client.close()
    finally:
        server.stop()
        await task
        sock.close()


# --- a scripted player -------------------------------------------------------------------


def scripted_move(view: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A plain, deterministic policy: first playable card (declaring UNO), else draw, else
    pass; accept challenges; name the first color."""
    you = view.get("you")
    if not you or view["status"] != "playing":
        return None
    moves = you["moves"]
    if moves.get("choose"):
        return "choose", {"color": moves["choose"][0]}
    if moves.get("accept"):
        return "accept", {}
    if moves.get("play"):
        option = moves["play"][0]
        fields: dict[str, Any] = {"card": option["card"]}
        if option.get("colors"):
            fields["color"] = option["colors"][0]
        if option.get("targets"):
            fields["target"] = option["targets"][0]
        if len(you["hand"]) == 2:
            fields["uno"] = True
        return "play", fields
    if moves.get("draw"):
        return "draw", {}
    if moves.get("pass"):
        return "pass", {}
    return None


async def play_scripted(client: Client, stop_kind: str = "round_ended") -> None:
    """Act on the latest view whenever it is this seat's move, until `stop_kind`."""
    pending: str | None = None
    frame: dict[str, Any] = {}  # the first pass acts on the view already read
    while True:
        if pending is not None or frame or scripted_move(client.view or {}) is None:
            frame = await client.recv(10)
        if stop_kind in kinds(frame):
            return
        if frame.get("type") in ("ack", "error") and frame.get("id") == pending:
            pending = None
        if pending is None and client.view is not None:
            move = scripted_move(client.view)
            if move is not None:
                kind, fields = move
                pending = await client.command(kind, at=client.version, **fields)


def consecutive(versions: Iterable[int]) -> bool:
    seq = list(versions)
    return all(b == a + 1 for a, b in itertools.pairwise(seq))


# --- exact deals (test hooks) ---------------------------------------------------------------


def spec(text: str) -> tuple[str | None, str, int | None]:
    """'red 5' → ('red', 'number', 5); 'blue skip'; 'wild'; 'wild_draw4'."""
    parts = text.split()
    if len(parts) == 1:
        return None, parts[0], None
    color, word = parts
    if word.isdigit():
        return color, "number", int(word)
    return color, word, None


def deal_order(
    deck: list[dict[str, Any]], hands: list[list[str]], top: str, dealer: int
) -> tuple[list[int], list[list[int]], int]:
    """A `deck_order` giving seat s exactly `hands[s]` (padded with unused cards up to 7) and
    `top` as the first discard. Returns (order, the hands' ids, the top's id)."""
    free = list(deck)

    def take(text: str) -> int:
        want = spec(text)
        for card in free:
            if (card["color"], card["kind"], card["value"]) == want:
                free.remove(card)
                return int(card["id"])
        raise LookupError(text)

    ids = [[take(t) for t in hand] for hand in hands]
    top_id = take(top)
    # Padding: plain numbers of a color nobody named, so they never match by accident.
    for hand in ids:
        while len(hand) < 7:
            card = next(c for c in free if c["kind"] == "number" and c["color"] == "yellow")
            free.remove(card)
            hand.append(int(card["id"]))
    n = len(hands)
    order: list[int] = []
    for k in range(7 * n):
        seat = (dealer + 1 + k) % n
        order.append(ids[seat][k // n])
    order.append(top_id)
    order.extend(int(c["id"]) for c in free)
    return order, ids, top_id
