"""Tournaments on processes sharing Redis and PostgreSQL (issue 10): any process answers a
tournament's page and API and pushes its updates; a tournament runs to its winner while the
process that started it is killed mid-round, each table's result taken once from its stored
match, every round seated once, the record copied to the database; and it goes on when every
process is killed mid-round and new ones start.

The entrants of the tournaments played to their winner play their tables themselves (from
whichever process is up, with the seat token /me hands out there), as fast as the server
answers: waiting for every seat's 5 s turn timer and a bot took 20 s of each test. Turn
timers firing and bots taking over across processes are tests/cluster/test_cluster_kill.py's
(and an absent entrant played by a bot, tests/tournaments/test_http.py's)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from e2e.harness import client_tls, scripted_move
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from .harness import REDIS_URL, Cluster, Player, _healthy, _start, cluster, free_port

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

# An entrant who does not play: its first turn runs out (5 s), a bot takes the seat for good
# (afk_timeouts 1) and plays it quickly. A tied match (about one in a hundred) plays on, and
# with next_round_seconds 0 the tournament deals its next round.
AFK = {"turn_seconds": 5, "afk_timeouts": 1, "bot_delay_ms": 30, "next_round_seconds": 0}
SCAN_SECONDS = 2.0  # app/tournaments/runner.py, Runner.scan_seconds


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _create(c: Cluster, index: int, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Cluster cup",
        "host_name": "Host",
        "settings": AFK,
        "table_size": 2,
        "format": "elimination",
        "match": {"rounds": 1},
        "grace_seconds": 0,
        **overrides,
    }
    return await c.post(index, "/api/tournaments", body)


async def _public(c: Cluster, index: int, code: str) -> dict[str, Any]:
    response = await c.get(index, f"/api/tournaments/{code}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _until(c: Cluster, indexes: list[int], code: str, done: Any, timeout: float) -> Any:
    body: dict[str, Any] = {}
    try:
        async with asyncio.timeout(timeout):
            while True:
                for index in indexes:
                    body = await _public(c, index, code)
                    if done(body):
                        return body
                await asyncio.sleep(0.2)
    except TimeoutError:
        rooms = []  # what the unfinished tables' rooms and matches say, to tell why
        for rnd in body.get("rounds", []):
            for table in rnd["tables"]:
                if table["status"] != "finished" and table["room"]:
                    room = (await c.get(indexes[0], f"/api/rooms/{table['room']}")).json()
                    match = await c.get(indexes[0], f"/api/matches/{table['match_id']}")
                    rooms.append((room.get("status"), room.get("version"), match.text[:600]))
        raise AssertionError(f"not reached in {timeout} s: {rooms}; last answer: {body}") from None


async def _playing(
    c: Cluster, created: dict[str, Any], start_on: int, watch_on: int
) -> tuple[str, list[str]]:
    """Four entrants registered through every process in turn, the tournament started on
    process `start_on`, and its first round's tables all playing as `watch_on` sees them;
    the code and the entrants' tokens."""
    code: str = created["tournament"]
    tokens = []
    for i, name in enumerate(["Ana", "Bo", "Cem", "Dia"]):
        path = f"/api/tournaments/{code}/entrants"
        tokens.append((await c.post(i % len(c.processes), path, {"name": name}))["token"])
    async with httpx.AsyncClient(base_url=c.processes[start_on].http, timeout=10) as http:
        start = await http.post(f"/api/tournaments/{code}/start", headers=bearer(created["token"]))
        assert start.status_code == 200, start.text
    await _until(
        c,
        [watch_on],
        code,
        lambda b: all(t["status"] == "playing" for t in b["rounds"][0]["tables"]),
        20,
    )
    return code, tokens


async def _entrant(c: Cluster, code: str, token: str) -> None:
    """One entrant playing each of its tables (scripted_move) until the tournament is over:
    /me on a live process for its table and seat token, then the moves through a socket to a
    live process (a socket closed under it: back in on another, resuming with `since`)."""
    played: set[str] = set()
    while True:
        index = c.processes.index(random.choice(c.alive()))
        with contextlib.suppress(httpx.TransportError):
            base = c.processes[index].http
            async with httpx.AsyncClient(base_url=base, timeout=10, verify=client_tls()) as http:
                mine = await http.get(f"/api/tournaments/{code}/me", headers=bearer(token))
            assert mine.status_code == 200, mine.text
            me = mine.json()
            if me["status"] in ("eliminated", "finished"):
                return
            room, seat_token = me["room"], me["token"]
            if me["status"] == "playing" and room not in played and seat_token:
                # Each process learns a new round's tables from its scan (every 2 s), and only
                # a process that knows a table looks at once when a commit of its own ends
                # the match (else the safety net looks 10 s after the table opened): a match
                # played out within a scan period of its deal would wait for that.
                await asyncio.sleep(SCAN_SECONDS + 0.5)
                await _play_table(c, Player(room, seat_token))
                played.add(room)
                continue
        await asyncio.sleep(0.1)


async def _play_table(c: Cluster, player: Player) -> None:
    """Plays the seat until its match is over."""
    acted_at = -2
    while True:
        if not player.connected:
            with contextlib.suppress(OSError, TimeoutError, websockets.WebSocketException):
                await player.connect(random.choice(c.alive()))
            if not player.connected:
                await asyncio.sleep(0.1)
                continue
            acted_at = -2
        view = player.view or {}
        if view.get("status") == "match_over":
            await player.close()
            return
        move = scripted_move(view)
        if move is None or acted_at == player.version:
            version = player.version
            with contextlib.suppress(TimeoutError):
                await player.until(
                    lambda v=version: player.version != v or not player.connected,  # type: ignore[misc]
                    1,
                )
            continue
        kind, fields = move
        acted_at = player.version
        with contextlib.suppress(websockets.ConnectionClosed):
            await player.act(kind, at=player.version, **fields)  # refused: a race, look again


async def test_every_process_serves_the_tournament_and_pushes_its_changes(
    tmp_path: Path,
) -> None:
    async with cluster(2, tmp_path) as c:
        created = await _create(c, 0, grace_seconds=60)
        code = created["tournament"]
        for index in (0, 1):  # the page and the API, on either process
            page = await c.get(index, f"/t/{code}")
            assert page.status_code == 200 and "text/html" in page.headers["content-type"]
            assert (await _public(c, index, code))["name"] == "Cluster cup"
        missing = await c.get(1, "/api/tournaments/nope")
        assert missing.status_code == 404
        async with (
            httpx.AsyncClient(base_url=c.processes[1].http, timeout=10) as http,
            http.stream("GET", f"/api/tournaments/{code}/events") as stream,
        ):
            lines = stream.aiter_lines()

            async def pushed() -> dict[str, Any]:
                while True:
                    line = await anext(lines)
                    if line.startswith("data: "):
                        body: dict[str, Any] = json.loads(line[len("data: ") :])
                        return body

            assert (await pushed())["entrants"] == []
            # Registered on one process, pushed by the other (the bus's notice).
            for index, name in ((0, "Ana"), (1, "Bo"), (0, "Cem")):
                asked = time.monotonic()
                await c.post(index, f"/api/tournaments/{code}/entrants", {"name": name})
                body = await asyncio.wait_for(pushed(), 5)
                assert body["entrants"][-1]["name"] == name
                assert time.monotonic() - asked < 2.0  # not the watchdog's repair
        both = [await _public(c, i, code) for i in (0, 1)]
        assert both[0] == both[1] and len(both[0]["entrants"]) == 3
        # The host removes an entrant through the other process; a second start is refused
        # wherever it is sent.
        ids = [e["entrant_id"] for e in both[0]["entrants"]]
        async with httpx.AsyncClient(base_url=c.processes[1].http, timeout=10) as http:
            path = f"/api/tournaments/{code}/entrants/{ids[2]}"
            assert (await http.delete(path, headers=bearer(created["token"]))).status_code == 204
            start = await http.post(
                f"/api/tournaments/{code}/start", headers=bearer(created["token"])
            )
            assert start.status_code == 200 and start.json()["status"] == "running"
        async with httpx.AsyncClient(base_url=c.processes[0].http, timeout=10) as http:
            again = await http.post(
                f"/api/tournaments/{code}/start", headers=bearer(created["token"])
            )
            assert again.status_code == 409
            assert again.json()["error"]["code"] == "already_started"
        body = await _public(c, 0, code)
        assert [e["name"] for e in body["entrants"]] == ["Ana", "Bo"]
        assert len(body["rounds"]) == 1 and len(body["rounds"][0]["tables"]) == 1


@pytest.mark.timeout(150)
async def test_a_tournament_runs_to_its_winner_while_a_process_is_killed_mid_round(
    tmp_path: Path,
) -> None:
    env = {"REDIS_CLAIM_LEASE_MS": "1000", "REDIS_ROUND_CLAIM_MS": "2000"}
    async with cluster(3, tmp_path, **env) as c:
        # Round 1 (two tables) is being played: its tables were opened by process 0, which
        # holds their timers; it dies before any table has its result.
        code, tokens = await _playing(c, await _create(c, 0), start_on=0, watch_on=1)
        body = await _public(c, 1, code)  # mid-round: dealt, nobody has played yet
        assert all(t["result"] == [] for t in body["rounds"][0]["tables"])
        c.processes[0].kill()

        # The entrants play their tables through the processes left, to the final.
        entrants = [asyncio.create_task(_entrant(c, code, t)) for t in tokens]
        try:
            final = await _until(c, [1, 2], code, lambda b: b["status"] == "finished", 110)
            await asyncio.wait_for(asyncio.gather(*entrants), 20)
        finally:
            for task in entrants:
                task.cancel()
        assert final == await _public(c, 2, code) == await _public(c, 1, code)
        assert final["error"] is None
        rounds = final["rounds"]
        assert [len(r["tables"]) for r in rounds] == [2, 1]  # each round seated once
        winners = {
            next(r["entrant_id"] for r in t["result"] if r["place"] == 1)
            for t in rounds[0]["tables"]
        }
        assert set(rounds[1]["tables"][0]["seats"]) == winners
        final_table = rounds[1]["tables"][0]
        assert final["winner"] == next(
            r["entrant_id"] for r in final_table["result"] if r["place"] == 1
        )
        # Each result is the one of the table's stored match.
        for rnd in rounds:
            for table in rnd["tables"]:
                match = (await c.get(1, f"/api/matches/{table['match_id']}")).json()
                assert match["status"] == "finished"
                seats = {p["player_id"]: p["seat"] for p in match["players"]}
                assert len(seats) == 2
                first = next(r for r in table["result"] if r["place"] == 1)
                assert table["seats"][match["winner"]] == first["entrant_id"]

        # The database: one room and one match per table (no table opened twice, no round
        # seated by two processes), and the tournament's copy is the final record.
        engine = create_async_engine(c.database_url)
        try:
            async with engine.connect() as conn:
                matches = (await conn.execute(text("SELECT count(*) FROM matches"))).scalar()
                rooms = (await conn.execute(text("SELECT count(*) FROM rooms"))).scalar()
                row = (
                    await conn.execute(
                        text("SELECT status, record FROM tournaments WHERE code = :c"),
                        {"c": code},
                    )
                ).one()
        finally:
            await engine.dispose()
        assert matches == 3 and rooms == 3
        record = row[1] if isinstance(row[1], dict) else json.loads(row[1])
        assert row[0] == "finished" and record["winner"] == final["winner"]
        tables = [t for r in record["rounds"] for t in r["tables"]]
        assert all(t["result"] is not None for t in tables) and len(tables) == 3


@pytest.mark.timeout(150)
async def test_a_tournament_goes_on_after_every_process_is_restarted(tmp_path: Path) -> None:
    # A dead process's claimed timers and unrecorded rounds are taken over quickly.
    quick = {"REDIS_CLAIM_LEASE_MS": "1000", "REDIS_ROUND_CLAIM_MS": "2000"}
    async with cluster(2, tmp_path, **quick) as c:
        created = await _create(c, 0, format="swiss", rounds=2)
        code, tokens = await _playing(c, created, start_on=1, watch_on=0)
        for process in c.alive():  # every process dies mid-round
            process.kill()
        env = {
            **os.environ,
            "REDIS_URL": REDIS_URL,
            "REDIS_PREFIX": c.prefix,
            "DATABASE_URL": c.database_url,
            "UNO_TEST_HOOKS": "1",
            **quick,
        }
        fresh = [_start(free_port(), tmp_path / f"q{i}", env) for i in range(2)]
        c.processes.extend(fresh)  # stopped with the others when the test ends
        await asyncio.gather(*(_healthy(p) for p in fresh))
        new = [c.processes.index(p) for p in fresh]
        # The entrants play their tables through the new processes, both rounds.
        entrants = [asyncio.create_task(_entrant(c, code, t)) for t in tokens]
        try:
            final = await _until(c, new, code, lambda b: b["status"] == "finished", 110)
            await asyncio.wait_for(asyncio.gather(*entrants), 20)
        finally:
            for task in entrants:
                task.cancel()
        assert [len(r["tables"]) for r in final["rounds"]] == [2, 2]  # swiss, 2 rounds
        assert final["winner"] == final["standings"][0]["entrant_id"]
        assert all(t["result"] for r in final["rounds"] for t in r["tables"])
