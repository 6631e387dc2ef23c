"""Several real server processes (`python -m uvicorn app.main:app`) sharing the real Redis
(a key prefix of their own) and a fresh PostgreSQL database, and wire-v2 clients that can
move from one process to another.

Redis at 127.0.0.1:6379 and PostgreSQL at 127.0.0.1:5432 (database `test` reachable, trust
auth): unreachable means a skip locally, a failure when CI=true.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from e2e.harness import SECRET_KEYS, LeakAuditor, card_ids, client_tls, keys_of
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from app.store.sql.migrate import REPO_ROOT, upgrade_to_head
from tests.ports import free_port

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_ADMIN = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
START_TIMEOUT_S = 45.0
RECV_TIMEOUT_S = 20.0


def _unreachable(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class Process:
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


@dataclass
class Cluster:
    processes: list[Process]
    prefix: str
    database_url: str
    redis: Redis

    def alive(self) -> list[Process]:
        return [p for p in self.processes if p.proc.poll() is None]

    async def post(self, index: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
        async with httpx.AsyncClient(
            base_url=self.processes[index].http, timeout=10, verify=client_tls()
        ) as http:
            response = await http.post(path, json=body)
        assert response.status_code in (200, 201), response.text
        data: dict[str, Any] = response.json()
        return data

    async def get(self, index: int, path: str) -> httpx.Response:
        async with httpx.AsyncClient(
            base_url=self.processes[index].http, timeout=10, verify=client_tls()
        ) as http:
            return await http.get(path)


async def _fresh_database() -> tuple[str, Callable[[], Any]]:
    """A new PostgreSQL database migrated to head; and how to drop it."""
    name = f"uno_cluster_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(POSTGRES_ADMIN, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        await admin.dispose()
        _unreachable(f"PostgreSQL unreachable at {POSTGRES_ADMIN}: {type(exc).__name__}: {exc}")
    url = POSTGRES_ADMIN.rsplit("/", 1)[0] + "/" + name
    engine = create_async_engine(url)
    await upgrade_to_head(engine)  # once, before the processes start (they would race)
    await engine.dispose()

    async def drop() -> None:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()

    return url, drop


def _start(port: int, workdir: Path, env: dict[str, str]) -> Process:
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "server.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--ws-max-size",
                "1048576",
            ],
            cwd=workdir,  # each process keeps its own recorder outbox
            env={**env, "PYTHONPATH": str(REPO_ROOT)},
            stdout=out,
            stderr=out,
        )
    return Process(port, proc, log)


async def _healthy(process: Process) -> None:
    async with httpx.AsyncClient(base_url=process.http, timeout=5, verify=client_tls()) as http:
        async with asyncio.timeout(START_TIMEOUT_S):
            while True:
                assert process.proc.poll() is None, process.log.read_text()[-3000:]
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/healthz")).status_code == 200:
                        return
                await asyncio.sleep(0.2)


@contextlib.asynccontextmanager
async def cluster(
    count: int, workdir: Path, redis_url: str = REDIS_URL, **extra_env: str
) -> AsyncIterator[Cluster]:
    redis = Redis.from_url(redis_url)
    try:
        await redis.ping()
    except Exception as exc:
        await redis.aclose()
        _unreachable(f"Redis unreachable at {redis_url}: {type(exc).__name__}: {exc}")
    database_url, drop = await _fresh_database()
    prefix = f"c{uuid.uuid4().hex[:10]}"
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "REDIS_PREFIX": prefix,
        "DATABASE_URL": database_url,
        "UNO_TEST_HOOKS": "1",
        # Every test client is 127.0.0.1: no cap on the connections it holds open at once.
        "MAX_OPEN_PER_ADDRESS": "100000",
        "ADDRESS_FRAMES_PER_SECOND": "1000000",
        "ADDRESS_FRAMES_BURST": "1000000",
        **extra_env,
    }
    processes = [_start(free_port(), workdir / f"p{i}", env) for i in range(count)]
    try:
        await asyncio.gather(*(_healthy(p) for p in processes))
        yield Cluster(processes, prefix, database_url, redis)
    finally:
        for p in processes:
            if p.proc.poll() is None:
                p.proc.terminate()
        for p in processes:
            try:
                p.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
        with contextlib.suppress(Exception):  # a private Redis may be gone already
            async for key in redis.scan_iter(match=f"{prefix}:*", count=500):
                await redis.delete(key)
        await redis.aclose()
        await drop()


@dataclass
class Player:
    """A wire-v2 client of one seat (or a spectator) that can reconnect to any process.

    `history` is every event received, by version, across reconnects; `gaps` records any
    version that was skipped (a `welcome` that jumped ahead without the events between).
    `frames` is every frame received, `hands` the card ids of its own hand by version; every
    Player a test makes is audited for leaks when the test ends (conftest.py, `leaks`).
    """

    room: str
    token: str
    seat: int | None = None
    version: int = -1
    history: dict[int, dict[str, Any]] = field(default_factory=dict)
    gaps: list[tuple[int, int]] = field(default_factory=list)
    view: dict[str, Any] | None = None
    replies: dict[str, dict[str, Any]] = field(default_factory=dict)
    ws: Any = None
    _reader: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _counter: int = 0
    frames: list[str] = field(default_factory=list)
    hands: dict[int, frozenset[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        CREATED.append(self)

    async def connect(self, process: Process) -> None:
        await self.close()
        self.ws = await websockets.connect(
            f"ws://127.0.0.1:{process.port}/ws/rooms/{self.room}", open_timeout=10
        )
        since = self.version if self.version >= 0 else None
        await self.ws.send(json.dumps({"type": "hello", "token": self.token, "since": since}))
        welcomed = asyncio.Event()
        self._reader = asyncio.create_task(self._read(welcomed))
        await asyncio.wait_for(welcomed.wait(), RECV_TIMEOUT_S)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
            self.ws = None

    @property
    def connected(self) -> bool:
        return self._reader is not None and not self._reader.done()

    async def _read(self, welcomed: asyncio.Event) -> None:
        try:
            await self._read_frames(welcomed)
        finally:
            self._changed.set()  # a waiter sees the socket closed

    async def _read_frames(self, welcomed: asyncio.Event) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                self.frames.append(raw)
                frame = json.loads(raw)
                kind = frame["type"]
                if kind in ("events", "welcome"):
                    you = frame["view"].get("you") or {}
                    self.hands[frame["version"]] = frozenset(card_ids(you.get("hand", [])))
                if kind == "events":
                    for event in frame["events"]:
                        v = event["version"]
                        if v <= self.version:
                            continue
                        if v != self.version + 1 and self.version >= 0:
                            self.gaps.append((self.version, v))
                        self.history[v] = event
                        self.version = v
                    self.view = frame["view"]
                elif kind == "welcome":
                    if frame["version"] > self.version >= 0:
                        self.gaps.append((self.version, frame["version"]))
                    self.version = max(self.version, frame["version"])
                    self.view = frame["view"]
                    self.seat = frame["you"]["seat"]
                    welcomed.set()
                elif kind in ("ack", "error") and "id" in frame:
                    self.replies[frame["id"]] = frame
                self._changed.set()

    async def send(self, type_: str, command_id: str | None = None, **fields: Any) -> str:
        if command_id is None:
            self._counter += 1
            command_id = f"{self.token[:6]}-{self._counter}"
        await self.ws.send(json.dumps({"type": type_, "id": command_id, **fields}))
        return command_id

    async def act(self, type_: str, command_id: str | None = None, **fields: Any) -> dict[str, Any]:
        sent = await self.send(type_, command_id, **fields)
        return await self.reply(sent)

    async def reply(self, command_id: str, timeout: float = RECV_TIMEOUT_S) -> dict[str, Any]:
        """The ack or error for `command_id`; `{"type": "closed"}` when the socket closed
        first (the outcome is then unknown: a client reconnects and resends the same id)."""
        await self.until(lambda: command_id in self.replies or not self.connected, timeout)
        return self.replies.get(command_id, {"type": "closed"})

    async def until(self, done: Callable[[], bool], timeout: float = RECV_TIMEOUT_S) -> None:
        async with asyncio.timeout(timeout):
            while True:
                self._changed.clear()
                if done():
                    return
                await self._changed.wait()

    def kinds(self) -> list[str]:
        return [self.history[v]["kind"] for v in sorted(self.history)]


CREATED: list[Player] = []  # every Player of the running test, audited when it ends


async def resend(
    c: Cluster, player: Player, type_: str, command_id: str, **fields: Any
) -> dict[str, Any]:
    """Send `command_id` until it is acknowledged, reconnecting (to the first two processes
    in turn) when the socket closed: a resent id applies once, so this is always safe."""
    reply: dict[str, Any] = {}
    for attempt in range(50):
        if not player.connected:
            with contextlib.suppress(Exception):
                await player.connect(c.processes[attempt % 2])
            if not player.connected:
                await asyncio.sleep(0.2)
                continue
        player.replies.pop(command_id, None)
        reply = await player.act(type_, command_id, **fields)
        if reply["type"] == "ack":
            return reply
        await asyncio.sleep(0.2)
    return reply


def leaks(players: Sequence[Player], evidence: list[dict[str, Any]] | None = None) -> list[str]:
    """The leak audit of a multi-process test, where the server's state is in other processes:
    no frame carries a token of the test or a secret key, and no frame to seat s names a card
    that another seat of the room held in its own view at that frame's version (while a round
    is played: its end reveals every hand). `evidence` receives each such frame with the
    holder's frame at that version."""
    problems: list[str] = []
    tokens = {p.token for p in players}
    # Fast paths for soak-sized runs (a few hundred thousand frames): a token can only sit
    # in a run of its own characters that long, a secret key only where its quoted name is.
    shortest = min((len(t) for t in tokens), default=1)
    runs = re.compile(rf"[A-Za-z0-9_-]{{{shortest},}}")
    plain = all(re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)
    quoted = [f'"{key}"' for key in SECRET_KEYS]
    for p in players:
        table = [q for q in players if q.room == p.room and q.seat is not None]
        shown = sorted(p.hands)  # the versions at which p was shown its hand
        for raw in p.frames:
            frame = json.loads(raw)
            kind, version = frame.get("type"), frame.get("version")
            candidates = runs.findall(raw) if plain else [raw]
            if any(token in run for run in candidates for token in tokens):
                problems.append(f"a token in a {kind} frame")
            secret = keys_of(frame) & SECRET_KEYS if any(k in raw for k in quoted) else set()
            if secret:
                problems.append(f"secret keys {sorted(secret)} in a {kind} frame")
            if kind not in ("events", "welcome") or not isinstance(version, int):
                if card_ids(frame):
                    problems.append(f"card ids in a {kind} frame")
                continue
            if frame["view"].get("status") != "playing":
                continue  # the lobby, or the round's end, which shows every hand to everyone
            events = [LeakAuditor._checked_event(e, p.seat) for e in frame.get("events", [])]
            # A frame that replays a round's end and the next deal: the ended round's events
            # name cards of its own hands (revealed by its end), which the new deal reuses.
            ends = [i for i, e in enumerate(events) if e.get("kind") == "round_ended"]
            if ends:
                events = events[ends[-1] + 1 :]
            # A card shown face up (played, or the first discard) is public from then on, even
            # if a reshuffle and a draw later in the frame put it in another hand: only its
            # face-up mentions are excused, not a later one (a draw shown to the wrong seat).
            named = card_ids([_face_down(e) for e in events]) | card_ids(frame["view"])
            # Cards this seat was shown as its own within the frame may have moved to another
            # hand by its end (a Shuffle Hands wild, a seven swap): knowing them is no leak.
            named -= _own_cards(p, shown, events, version)
            for q in table:
                held = q.hands.get(version, frozenset()) if q.seat != p.seat else frozenset()
                if named & held:
                    problems.append(
                        f"seat {p.seat} was sent {len(named & held)} card(s) of seat {q.seat}"
                        f" at version {version}"
                    )
                    if evidence is not None:
                        theirs = [f for f in q.frames if f'"version":{version},' in f]
                        evidence.append(
                            {
                                "cards": sorted(named & held),
                                "frame": frame,
                                "holder": q.seat,
                                "holder_frames": theirs,
                            }
                        )
    return problems


def _face_down(event: Any) -> Any:
    """The event without the card it shows face up to everyone."""
    public = {"card_played": "card", "round_started": "top"}.get(event.get("kind"))
    return {k: v for k, v in event.items() if k != public} if public else event


def _own_cards(p: Player, shown: list[int], events: list[Any], version: int) -> set[int]:
    """Cards `p` held as its own during a frame ending at `version`: its hand before the
    frame, dealt or shuffled to it and drawn by it in the frame's events."""
    if p.seat is None:
        return set()
    first = events[0]["version"] if events else version
    before = bisect.bisect_left(shown, first)
    own = set(p.hands[shown[before - 1]]) if before else set()
    for event in events:
        if event.get("kind") in ("round_started", "hands_shuffled"):
            own |= card_ids(event.get("hand", []))
        elif event.get("kind") == "card_drawn" and event.get("seat") == p.seat:
            own |= card_ids(event.get("cards", []))
    return own


class PrivateRedis:
    """A redis-server of the test's own, with AOF, so that killing and restarting it disturbs
    nobody else using the machine's Redis.

    The AOF is fsynced at every write (`always`), not every second as in docker-compose.yml:
    under `everysec` a kill -9 of Redis loses the writes it postponed while a slow background
    fsync ran (up to ~2 s, docs/deploy.md), which a busy CI disk makes happen now and then.
    The tests that kill Redis assert that no acknowledged command is lost, the guarantee of
    `always` (or of `WAITAOF` on Redis 7.2+), not of `everysec`."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            _unreachable("redis-server is not installed")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                str(binary),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = Redis.from_url(self.url)
        try:
            async with asyncio.timeout(10):
                while True:
                    with contextlib.suppress(Exception):
                        if await client.ping():
                            return
                    await asyncio.sleep(0.05)
        finally:
            await client.aclose()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
