"""Real sockets against a real server: uvicorn on a free loopback port, in the test's own
event loop, and `websockets` clients whose every received frame passes the leak auditor."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
import websockets
from websockets.asyncio.client import ClientConnection

from app.main import create_app
from app.rooms.service import RoomService
from app.settings import AppSettings

RECV_TIMEOUT = 5.0
SECRET_KEYS = frozenset({"draw_pile", "seed", "deck_order", "pairing", "token", "hands_all"})


def server_settings(**overrides: Any) -> AppSettings:
    values: dict[str, Any] = {
        "database_url": "memory://",
        "uno_test_hooks": True,
        "history_limit": 100_000,  # the auditor reads the state after every event
        "hello_timeout_seconds": 1.0,
        "rate_limit_per_second": 200.0,
        "rate_limit_burst": 400,
        # Every test creates its rooms from 127.0.0.1.
        "create_rate_per_second": 1000.0,
        "create_rate_burst": 100_000,
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


class LeakAuditor:
    """No frame to seat s carries a card of another hand (before the round's reveal), a
    token, or a secret key. Ground truth is the server's own state after each version."""

    def __init__(self, service: RoomService) -> None:
        self.service = service
        self.tokens: set[str] = set()
        self.frames = 0
        self.problems: list[str] = []

    async def check(self, room: str, seat: int | None, raw: str) -> None:
        self.frames += 1
        frame = json.loads(raw)
        for token in self.tokens:
            if token in raw:
                self.problems.append(f"token in a {frame.get('type')} frame")
        secret = keys_of(frame) & SECRET_KEYS
        if secret:
            self.problems.append(f"secret keys {sorted(secret)} in a {frame.get('type')} frame")
        if frame.get("type") == "welcome":
            seat = frame["you"]["seat"]
        version = frame.get("version")
        if frame.get("type") not in ("event", "welcome") or not isinstance(version, int):
            if card_ids(frame):
                self.problems.append(f"card ids in a {frame.get('type')} frame")
            return
        state = await self._state_at(room, version)
        if state is None or state.status != "playing":
            return  # lobby, or after the reveal
        foreign = {cid for s, hand in enumerate(state.hands) if s != seat for cid in hand}
        checked: dict[str, Any] = dict(frame)
        event = frame.get("event") or {}
        if event.get("kind") == "challenge_resolved" and seat is not None:
            checked.pop("event")  # the challenged hand is shown to the challenger alone
        leaked = card_ids(checked) & foreign
        if leaked:
            self.problems.append(
                f"seat {seat} saw {len(leaked)} foreign card(s) in a {frame['type']} frame "
                f"at version {version} ({event.get('kind')})"
            )

    async def _state_at(self, room: str, version: int) -> Any:
        if version <= 0:
            return None
        events = await self.service.store.events_since(room, version - 1)
        if not events:
            return None
        return events[0].after


# --- clients ----------------------------------------------------------------------------


_ids = itertools.count(1)


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
    versions: list[int] = field(default_factory=list)

    async def send(self, frame: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(frame))

    async def send_raw(self, text: str) -> None:
        await self.ws.send(text)

    async def command(self, type_: str, **fields: Any) -> str:
        command_id = fields.pop("id", None) or f"c{next(_ids)}"
        await self.send({"type": type_, "id": command_id, **fields})
        return command_id

    async def recv(self, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(raw, str)
        await self.auditor.check(self.room, self.seat, raw)
        frame: dict[str, Any] = json.loads(raw)
        self.frames.append(frame)
        if frame["type"] == "welcome":
            self.seat = frame["you"]["seat"]
            self.role = frame["you"]["role"]
        if frame["type"] in ("event", "welcome"):
            self.view = frame["view"]
            self.version = frame["version"]
            if not self.versions or self.versions[-1] != frame["version"]:
                self.versions.append(frame["version"])
        return frame

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

    async def event(self, kind: str, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        return await self.until(
            lambda f: f["type"] == "event" and f["event"]["kind"] == kind, timeout
        )

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


@contextlib.asynccontextmanager
async def running_server(config: AppSettings) -> AsyncIterator[Harness]:
    app = create_app(config)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="on", ws_max_size=1 << 20)
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.005)
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            harness = Harness(base, http, app.state.rooms, LeakAuditor(app.state.rooms))
            try:
                yield harness
            finally:
                for client in harness.clients:
                    with contextlib.suppress(Exception):
                        await client.close()
    finally:
        server.should_exit = True
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
        if frame.get("type") == "event" and frame["event"]["kind"] == stop_kind:
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
