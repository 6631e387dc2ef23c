"""The restart for real: `python -m app.main` in its own OS process on a SQLite file, killed
with SIGKILL (no shutdown, no last flush) right after a round, then a new process on the same
file. The players get back in with their tokens and the match goes on."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import websockets
from e2e.harness import Client, LeakAuditor, play_scripted
from sqlalchemy import create_engine, func, select

from app.store.sql.migrate import REPO_ROOT
from app.store.sql.models import RoomMember, Round, RoundPlayer
from tests.ports import free_port

SETTINGS = {
    "target_score": 10000,
    "bot_delay_ms": 0,
    "turn_seconds": 0,
    "next_round_seconds": 0,
    "dealer": 0,
}
START_TIMEOUT_S = 30.0


class NoAuditor(LeakAuditor):
    """The server is another process: its states cannot be read here (the e2e tests audit)."""

    def __init__(self) -> None:
        self.tokens = set()
        self.frames = 0
        self.problems = []

    async def check(self, room: str, seat: int | None, raw: str) -> None:
        self.frames += 1


@contextlib.asynccontextmanager
async def server_process(
    database: Path, log: Path, **extra: str
) -> AsyncIterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    env = {
        **os.environ,
        **extra,
        "DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        "UNO_TEST_HOOKS": "1",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "CREATE_RATE_BURST": "100000",
        "WS_CONNECT_RATE_BURST": "100000",
        "MAX_OPEN_PER_ADDRESS": "100000",
        "ADDRESS_FRAMES_PER_SECOND": "1000000",
        "ADDRESS_FRAMES_BURST": "1000000",
    }
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.main"], cwd=REPO_ROOT, env=env, stdout=out, stderr=out
        )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            async with asyncio.timeout(START_TIMEOUT_S):
                while True:
                    assert proc.poll() is None, log.read_text()
                    with contextlib.suppress(httpx.TransportError):
                        if (await http.get("/healthz")).status_code == 200:
                            break
                    await asyncio.sleep(0.1)
        yield base, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=15)


async def connect(base: str, room: str, token: str) -> Client:
    ws = await websockets.connect(f"{base.replace('http', 'ws')}/ws/rooms/{room}")
    client = Client(ws, room, NoAuditor())
    await client.send({"type": "hello", "token": token, "since": None})
    await client.until(lambda f: f["type"] == "welcome")
    return client


async def ann_and_a_bot_playing(base: str) -> tuple[dict[str, Any], str, Client]:
    """A room of Ann and a bot, its first round dealt: Ann's credentials, the room, her socket."""
    async with httpx.AsyncClient(base_url=base) as http:
        ann = (await http.post("/api/rooms", json={"name": "Ann", "settings": SETTINGS})).json()
    room = ann["room"]
    ann_c = await connect(base, room, ann["token"])
    assert (await ann_c.act("add_bot"))["type"] == "ack"
    assert (await ann_c.act("start"))["type"] == "ack"
    return ann, room, ann_c


async def round_end(*players: Client) -> dict[str, Any]:
    await asyncio.gather(*(play_scripted(p) for p in players))
    event = players[0].seen("round_ended")[-1]
    assert players[0].frames[-1] is event.frame
    return dict(event)


async def test_a_killed_server_comes_back_with_its_rooms(tmp_path: Path) -> None:
    database = tmp_path / "data" / "uno.db"
    log = tmp_path / "server.log"
    async with server_process(database, log) as (base, proc):
        async with httpx.AsyncClient(base_url=base) as http:
            ann = (await http.post("/api/rooms", json={"name": "Ann", "settings": SETTINGS})).json()
            room = ann["room"]
            bob = (await http.post(f"/api/rooms/{room}/players", json={"name": "Bob"})).json()
        ann_c = await connect(base, room, ann["token"])
        bob_c = await connect(base, room, bob["token"])
        # Credentials are written in the background within milliseconds of the join (their
        # queue is in memory, app/store/sql/members.py): a crash in that window forgets them.
        # A rigged round can end sooner on a loaded machine, so the test waits them out.
        await members_stored(database, room, 2)
        assert (await ann_c.act("add_bot"))["type"] == "ack"
        assert (await ann_c.act("start"))["type"] == "ack"
        first = await round_end(ann_c, bob_c)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=10) == -signal.SIGKILL
        for client in (ann_c, bob_c):
            with contextlib.suppress(Exception):
                await client.ws.close()

    async with server_process(database, log) as (base, proc):
        ann_c = await connect(base, room, ann["token"])
        bob_c = await connect(base, room, bob["token"])
        for client, seat in ((ann_c, ann["seat"]), (bob_c, bob["seat"])):
            view = client.view
            assert view is not None and client.seat == seat
            assert (view["status"], view["round"]) == ("round_over", 1)
            assert [s["score"] for s in view["seats"]] == first["scores"]
        assert (await ann_c.act("start"))["type"] == "ack"
        second = await round_end(ann_c, bob_c)
        assert second["round"] == 2
        async with httpx.AsyncClient(base_url=base) as http:
            stored = (await http.get(f"/api/matches/{first['match_id']}")).json()
        for client in (ann_c, bob_c):
            await client.close()
    assert [(r["number"], r["points"]) for r in stored["rounds"]] == [
        (1, first["points"]),
        (2, second["points"]),
    ]
    assert (
        stored["scores"]
        == second["scores"]
        == [a + b for a, b in zip(first["scores"], second["points"], strict=True)]
    )


async def test_a_killed_server_brings_a_round_in_progress_back_from_its_checkpoint(
    tmp_path: Path,
) -> None:
    """kill -9 in the first round, which has no round end to come back from: the room is back
    as its last checkpoint holds it (`EMBEDDED_CHECKPOINT_SECONDS` apart), mid-round, same hands."""
    database = tmp_path / "data" / "uno.db"
    log = tmp_path / "server.log"
    async with server_process(database, log, EMBEDDED_CHECKPOINT_SECONDS="0.2") as (base, proc):
        ann, room, ann_c = await ann_and_a_bot_playing(base)
        await ann_c.quiet(0.5)  # the bot's move, if the deal gave it the first turn
        assert ann_c.view is not None
        hand = sorted(card["id"] for card in ann_c.view["you"]["hand"])
        await asyncio.sleep(1.0)  # a few checkpoint passes
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=10) == -signal.SIGKILL
        with contextlib.suppress(Exception):
            await ann_c.ws.close()

    async with server_process(database, log) as (base, proc):
        back = await connect(base, room, ann["token"])
        view = back.view
        assert view is not None
        assert (view["status"], view["round"]) == ("playing", 1)
        assert sorted(card["id"] for card in view["you"]["hand"]) == hand


def stored_rounds(database: Path, match_id: str) -> list[tuple[int, list[int]]]:
    """(number, per-seat points) of each round row in the database file itself (no outbox)."""
    engine = create_engine(f"sqlite:///{database}")
    try:
        with engine.connect() as conn:
            numbers = conn.execute(
                select(Round.number).where(Round.match_id == match_id).order_by(Round.number)
            ).scalars()
            return [
                (
                    number,
                    list(
                        conn.execute(
                            select(RoundPlayer.points)
                            .where(RoundPlayer.match_id == match_id, RoundPlayer.number == number)
                            .order_by(RoundPlayer.seat)
                        ).scalars()
                    ),
                )
                for number in list(numbers)
            ]
    finally:
        engine.dispose()


async def members_stored(database: Path, room: str, count: int) -> None:
    engine = create_engine(f"sqlite:///{database}")
    query = select(func.count()).select_from(RoomMember).where(RoomMember.room == room)
    try:
        async with asyncio.timeout(20):
            while True:
                with contextlib.suppress(Exception), engine.connect() as conn:
                    if int(conn.execute(query).scalar_one()) >= count:
                        return
                await asyncio.sleep(0.05)
    finally:
        engine.dispose()


def round_rows(database: Path) -> int:
    engine = create_engine(f"sqlite:///{database}")
    try:
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(Round)).scalar_one())
    finally:
        engine.dispose()


async def test_a_round_ended_just_before_a_sigkill_is_in_the_database_after_restart(
    tmp_path: Path,
) -> None:
    database = tmp_path / "data" / "uno.db"
    log = tmp_path / "server.log"
    async with server_process(database, log) as (base, proc):
        _, _, ann_c = await ann_and_a_bot_playing(base)
        ended = await round_end(ann_c)
        proc.send_signal(signal.SIGKILL)  # at once: delivery may not have happened yet
        assert proc.wait(timeout=10) == -signal.SIGKILL
        with contextlib.suppress(Exception):
            await ann_c.ws.close()

    async with server_process(database, log):  # delivers what the killed process left
        async with asyncio.timeout(10):
            while not await asyncio.to_thread(round_rows, database):
                await asyncio.sleep(0.05)
        stored = await asyncio.to_thread(stored_rounds, database, ended["match_id"])
    assert stored == [(1, ended["points"])]  # there, and once
