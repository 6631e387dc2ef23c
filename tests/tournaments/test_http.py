"""Tournaments over HTTP and real sockets (PROTOCOL section 6): create, register, host
bearer checks, start, /me's seat token, and whole tournaments played to the end, their
results checked against the tables' stored matches."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from e2e.harness import Harness, kinds, play_scripted, running_server, server_settings

from app.tournaments import records

# next_round_seconds 1: a tied match (a tie plays on) deals its next round by itself; with 0
# it would wait for the host seat to start it.
# Every wait at most 5 s: the clients read with a 10 s limit, and a no-show's decision (a Wild
# Draw Four's challenge against an absent entrant) waits for its whole window.
FAST = {"turn_seconds": 5, "challenge_seconds": 5, "bot_delay_ms": 0, "next_round_seconds": 1}


@pytest.fixture
async def server() -> AsyncIterator[Harness]:
    async with running_server(server_settings()) as harness:
        yield harness
        assert harness.auditor.problems == []


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def create(h: Harness, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Friday cup",
        "host_name": "Ayşe",
        "settings": FAST,
        "table_size": 2,
        "format": "elimination",
        "advance": 1,
        "match": {"rounds": 1},
        "fill_with_bots": False,
    }
    body.update(overrides)
    response = await h.http.post("/api/tournaments", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    assert set(created) == {"tournament", "url", "token"}
    assert created["url"] == f"/t/{created['tournament']}"
    assert len(created["tournament"]) >= 22 and len(created["token"]) >= 43  # 128 / 256 bits
    h.auditor.tokens.add(created["token"])
    return created


async def register(h: Harness, code: str, name: str) -> dict[str, Any]:
    response = await h.http.post(f"/api/tournaments/{code}/entrants", json={"name": name})
    assert response.status_code == 201, response.text
    entrant: dict[str, Any] = response.json()
    assert set(entrant) == {"entrant_id", "token", "name"}
    h.auditor.tokens.add(entrant["token"])
    return entrant


async def test_a_name_already_entered_is_registered_as_a_free_variant(server: Harness) -> None:
    """Two entrants of one name could not be told apart in the standings: the second is
    registered (PROTOCOL 6: 201 until the start) as the first free variant, and told so."""
    h = server
    code = (await create(h))["tournament"]
    assert (await register(h, code, "Ali"))["name"] == "Ali"
    assert (await register(h, code, "ali"))["name"] == "ali 2"
    assert (await register(h, code, "ALI "))["name"] == "ALI 3"
    assert (await register(h, code, "Ana"))["name"] == "Ana"
    names = [e["name"] for e in (await get(h, code))["entrants"]]
    assert names == ["Ali", "ali 2", "ALI 3", "Ana"]


async def get(h: Harness, code: str) -> dict[str, Any]:
    response = await h.http.get(f"/api/tournaments/{code}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def me(h: Harness, code: str, token: str) -> dict[str, Any]:
    response = await h.http.get(f"/api/tournaments/{code}/me", headers=bearer(token))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def error_code(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    code: str = body["error"]["code"]
    return code


async def test_bad_bodies_are_400_with_the_error_shape(server: Harness) -> None:
    h = server
    good: dict[str, Any] = {"name": "Cup", "host_name": "Host", "table_size": 4,
                            "format": "swiss", "rounds": 2}  # fmt: skip
    wrong = [
        ({"table_size": 1}, "bad_request"),
        ({"table_size": 11}, "bad_request"),
        ({"table_size": True}, "bad_request"),
        ({"format": "knockout"}, "bad_request"),
        ({"name": ""}, "bad_request"),
        ({"advance": 4}, "bad_request"),  # not below the table size
        ({"rounds": 0}, "bad_request"),
        ({"match": {"target_score": 10, "rounds": 2}}, "bad_request"),
        ({"match": {"target_score": 49}}, "bad_request"),
        ({"match": {"rounds": "2"}}, "bad_request"),
        ({"fill_with_bots": "yes"}, "bad_request"),
        ({"settings": {"speed": "fast"}}, "bad_settings"),
        ({"settings": {"turn_seconds": 3}}, "bad_settings"),
        # Not an object, even when empty or falsy (PROTOCOL 4: the wrong JSON type).
        ({"settings": []}, "bad_settings"),
        ({"settings": False}, "bad_settings"),
        ({"settings": ""}, "bad_settings"),
        ({"settings": 0}, "bad_settings"),
    ]
    for change, code in wrong:
        response = await h.http.post("/api/tournaments", json={**good, **change})
        assert error_code(response, 400) == code, change
    response = await h.http.post(
        "/api/tournaments", content=b"[1]", headers={"content-type": "application/json"}
    )
    assert error_code(response, 400) == "bad_request"
    assert error_code(await h.http.get("/api/tournaments/nope"), 404) == "not_found"
    response = await h.http.post("/api/tournaments/nope/entrants", json={"name": "X"})
    assert error_code(response, 404) == "not_found"


async def test_register_remove_start_bearers_and_me(server: Harness) -> None:
    h = server
    created = await create(h, grace_seconds=60)
    code, host = created["tournament"], created["token"]
    body = await get(h, code)
    assert body["status"] == "registering" and body["entrants"] == [] and body["rounds"] == []
    assert body["winner"] is None and body["name"] == "Friday cup"
    mikko = await register(h, code, "Mikko")
    lea = await register(h, code, "Léa")
    zed = await register(h, code, "Zed")
    body = await get(h, code)
    assert body["entrants"] == [
        {"entrant_id": mikko["entrant_id"], "name": "Mikko"},
        {"entrant_id": lea["entrant_id"], "name": "Léa"},
        {"entrant_id": zed["entrant_id"], "name": "Zed"},
    ]
    assert [s["points"] for s in body["standings"]] == [0, 0, 0]
    path = f"/api/tournaments/{code}/entrants/{zed['entrant_id']}"
    # No bearer (or a malformed one): 401; a bearer that is not the host's: 403.
    assert error_code(await h.http.delete(path), 401) == "unauthorized"
    headers = {"Authorization": f"Token {host}"}
    assert error_code(await h.http.delete(path, headers=headers), 401) == "unauthorized"
    assert error_code(await h.http.delete(path, headers=bearer(zed["token"])), 403) == "not_host"
    response = await h.http.delete(path, headers=bearer(host))
    assert response.status_code == 204 and response.content == b""
    assert error_code(await h.http.delete(path, headers=bearer(host)), 404) == "not_found"
    assert [e["name"] for e in (await get(h, code))["entrants"]] == ["Mikko", "Léa"]
    # /me before the start: no table yet.
    assert await me(h, code, mikko["token"]) == {
        "entrant_id": mikko["entrant_id"], "room": None, "token": None, "status": "registered",
    }  # fmt: skip

    start = f"/api/tournaments/{code}/start"
    assert error_code(await h.http.post(start), 401) == "unauthorized"
    assert error_code(await h.http.post(start, headers=bearer(lea["token"])), 403) == "not_host"
    response = await h.http.post(start, headers=bearer(host))
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "running"
    # Once started: no registration, no removal, no second start.
    response = await h.http.post(f"/api/tournaments/{code}/entrants", json={"name": "Late"})
    assert error_code(response, 409) == "already_started"
    path = f"/api/tournaments/{code}/entrants/{lea['entrant_id']}"
    assert error_code(await h.http.delete(path, headers=bearer(host)), 409) == "already_started"
    assert error_code(await h.http.post(start, headers=bearer(host)), 409) == "already_started"

    body = await get(h, code)
    assert body["status"] == "running" and len(body["rounds"]) == 1
    (table,) = body["rounds"][0]["tables"]
    assert sorted(table["seats"]) == sorted([mikko["entrant_id"], lea["entrant_id"]])
    assert table["status"] == "waiting" and table["result"] == []
    text = (await h.http.get(f"/api/tournaments/{code}")).text
    for secret in (host, mikko["token"], lea["token"]):
        assert secret not in text

    # /me: the host's token is no entrant's; each entrant gets its own seat at the table.
    response = await h.http.get(f"/api/tournaments/{code}/me")
    assert error_code(response, 401) == "unauthorized"
    response = await h.http.get(f"/api/tournaments/{code}/me", headers=bearer(host))
    assert error_code(response, 401) == "unauthorized"
    clients = []
    for entrant in (mikko, lea):
        mine = await me(h, code, entrant["token"])
        assert mine["room"] == table["room"] and mine["status"] == "playing"
        assert mine["token"] not in text
        h.auditor.tokens.add(mine["token"])
        h.seats[mine["token"]] = mine["seat"]
        client = await h.connect(mine["room"], mine["token"])
        welcome = next(f for f in client.frames if f["type"] == "welcome")
        assert welcome["you"] == {"seat": mine["seat"], "player_id": mine["player_id"],
                                  "role": "player"}  # fmt: skip
        assert table["seats"][mine["seat"]] == entrant["entrant_id"]
        clients.append(client)
    # A seat token is derived from the entrant's token: the same at each /me, and kept
    # nowhere (the tournament's record, in any store or copy, holds none).
    for entrant in (mikko, lea):
        again = await me(h, code, entrant["token"])
        assert again["token"] and again["seat"] == h.seats[again["token"]]
    stored = json.dumps(records.to_json(await h.tournaments.store.load(code)))
    for token in h.seats:
        assert token not in stored
    # Everybody connected: the table's match starts without waiting for the grace period.
    await clients[0].event("round_started", timeout=5)
    summary = await h.summary(table["room"])
    assert summary["status"] == "playing"
    assert summary["settings"]["match_rounds"] == 1 and summary["settings"]["max_players"] == 2
    assert (await get(h, code))["rounds"][0]["tables"][0]["status"] == "playing"


async def play_entrant(h: Harness, code: str, token: str) -> str:
    """An entrant's browser: follow /me from table to table and play each match through."""
    played: set[str] = set()
    for _ in range(2000):
        mine = await me(h, code, token)
        if mine["status"] in ("finished", "eliminated"):
            return str(mine["status"])
        room = mine["room"]
        if room and mine["token"] and room not in played and mine["table_status"] != "finished":
            h.auditor.tokens.add(mine["token"])
            h.seats[mine["token"]] = mine["seat"]
            client = await h.connect(room, mine["token"])
            # A slow machine may let the room's bots play this seat to the match's end
            # (afk_timeouts) before the socket opens: its welcome then shows the match over.
            if ((client.view or {}).get("state") or {}).get("status") != "match_over":
                await play_scripted(client, stop_kind="match_ended")
            await client.close()
            played.add(room)
        await asyncio.sleep(0.05)
    raise AssertionError("the tournament never ended for this entrant")


async def check_against_matches(h: Harness, body: dict[str, Any]) -> None:
    """Every table's result is the ranking of its stored match; standings add them up."""
    points: dict[str, int] = {e["entrant_id"]: 0 for e in body["entrants"]}
    wins = dict.fromkeys(points, 0)
    for rnd in body["rounds"]:
        for bye in rnd["byes"]:
            points[bye] += 1
        for table in rnd["tables"]:
            assert table["status"] == "finished"
            response = await h.http.get(f"/api/matches/{table['match_id']}")
            assert response.status_code == 200
            match = response.json()
            assert match["status"] == "finished" and match["room"] is None
            summary = await h.summary(table["room"])
            ids = {s["player_id"]: s["seat"] for s in summary["seats"]}
            assert all(p["player_id"] in ids for p in match["players"])
            scores, winner = match["scores"], match["winner"]
            # seats 0..k-1 of the room are the table's entrants in order; bots come after
            k = len(table["seats"])
            expected = sorted(range(k), key=lambda s: (s != winner, -scores[s], s))
            won = [sum(1 for r in match["rounds"] if r["winner"] == s) for s in range(k)]
            expected = sorted(range(k), key=lambda s: (s != winner, -scores[s], -won[s], s))
            got = sorted(table["result"], key=lambda r: r["place"])
            assert [r["entrant_id"] for r in got] == [table["seats"][s] for s in expected]
            assert [r["points"] for r in got] == list(range(k - 1, -1, -1))
            for line in got:
                points[line["entrant_id"]] += line["points"]
                wins[line["entrant_id"]] += line["place"] == 1
    for line in body["standings"]:
        assert line["points"] == points[line["entrant_id"]]
        assert line["wins"] == wins[line["entrant_id"]]
    assert [s["place"] for s in body["standings"]] == list(range(1, len(points) + 1))


async def run_to_the_end(h: Harness, code: str, entrants: list[dict[str, Any]]) -> dict[str, Any]:
    outcomes = await asyncio.wait_for(
        asyncio.gather(*(play_entrant(h, code, e["token"]) for e in entrants)), 30
    )
    for _ in range(100):
        body = await get(h, code)
        if body["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert body["status"] == "finished", body
    assert "finished" in outcomes
    return body


async def test_elimination_with_bots_is_played_to_a_winner(server: Harness) -> None:
    h = server
    created = await create(h, table_size=3, fill_with_bots=True, grace_seconds=5)
    code = created["tournament"]
    entrants = [await register(h, code, name) for name in ("Ana", "Bo", "Cem", "Dia")]
    response = await h.http.post(f"/api/tournaments/{code}/start", headers=bearer(created["token"]))
    assert response.status_code == 200
    body = await run_to_the_end(h, code, entrants)
    # 4 entrants at tables of 3: two tables of 2 (+1 bot each), then a final of 2 (+1 bot).
    assert [len(r["tables"]) for r in body["rounds"]] == [2, 1]
    for rnd in body["rounds"]:
        for table in rnd["tables"]:
            assert len(table["seats"]) == 2 and table["bots"] == 1
            seats = (await h.summary(table["room"]))["seats"]
            assert [s["bot"] for s in seats] == [False, False, True]
    finalists = set(body["rounds"][1]["tables"][0]["seats"])
    first_winners = {
        next(r["entrant_id"] for r in t["result"] if r["place"] == 1)
        for t in body["rounds"][0]["tables"]
    }
    assert finalists == first_winners
    final = body["rounds"][1]["tables"][0]["result"]
    assert body["winner"] == next(r["entrant_id"] for r in final if r["place"] == 1)
    assert body["standings"][0]["entrant_id"] == body["winner"]
    await check_against_matches(h, body)
    me_after = await me(h, code, entrants[0]["token"])
    assert me_after["status"] == "finished"


async def test_swiss_with_a_bye_is_played_to_the_end(server: Harness) -> None:
    h = server
    created = await create(h, format="swiss", rounds=2, table_size=2, grace_seconds=5)
    code = created["tournament"]
    entrants = [await register(h, code, name) for name in ("Ana", "Bo", "Cem")]
    response = await h.http.post(f"/api/tournaments/{code}/start", headers=bearer(created["token"]))
    assert response.status_code == 200
    body = await run_to_the_end(h, code, entrants)
    assert len(body["rounds"]) == 2
    for rnd in body["rounds"]:
        assert len(rnd["tables"]) == 1 and len(rnd["byes"]) == 1
    assert body["rounds"][0]["byes"] != body["rounds"][1]["byes"]  # nobody sits out twice
    pairs = [frozenset(r["tables"][0]["seats"]) for r in body["rounds"]]
    assert pairs[0] != pairs[1]  # no repeat tablemates
    await check_against_matches(h, body)
    assert body["winner"] == body["standings"][0]["entrant_id"]


async def seat_of(h: Harness, code: str, entrant: dict[str, Any]) -> Any:
    mine = await me(h, code, entrant["token"])
    h.auditor.tokens.add(mine["token"])
    h.seats[mine["token"]] = mine["seat"]
    return mine


async def test_a_no_show_does_not_block_the_table_past_the_grace_period(server: Harness) -> None:
    h = server
    created = await create(h, grace_seconds=1.5)
    code = created["tournament"]
    here, away = [await register(h, code, name) for name in ("Here", "Away")]
    response = await h.http.post(f"/api/tournaments/{code}/start", headers=bearer(created["token"]))
    assert response.status_code == 200
    mine = await seat_of(h, code, here)
    client = await h.connect(mine["room"], mine["token"])
    # One of two connected: the table waits...
    assert not [f for f in await client.quiet(0.7) if "round_started" in kinds(f)]
    assert (await h.summary(mine["room"]))["status"] == "lobby"
    # ...until the grace period is over, then deals without the absent entrant.
    await client.event("round_started", timeout=3)
    summary = await h.summary(mine["room"])
    assert summary["status"] == "playing"
    assert [s["connected"] for s in summary["seats"]] == [
        s["seat"] == mine["seat"] for s in summary["seats"]
    ]
    assert (await me(h, code, away["token"]))["status"] == "playing"


async def test_the_table_host_cannot_change_the_tournament_table(server: Harness) -> None:
    h = server
    created = await create(h, table_size=3, fill_with_bots=True, grace_seconds=60)
    code = created["tournament"]
    entrants = [await register(h, code, name) for name in ("Ana", "Bo")]
    response = await h.http.post(f"/api/tournaments/{code}/start", headers=bearer(created["token"]))
    assert response.status_code == 200
    seats = [await seat_of(h, code, e) for e in entrants]
    host = next(s for s in seats if s["seat"] == 0)  # the room's host seat is an entrant
    client = await h.connect(host["room"], host["token"])
    before = await h.summary(host["room"])
    assert before["status"] == "lobby" and [s["bot"] for s in before["seats"]] == [
        False,
        False,
        True,
    ]
    assert (await client.act("settings", settings={"target_score": 50}))["type"] == "ack"
    assert (await client.act("remove_bot", seat=2))["type"] == "ack"
    for _ in range(50):  # the tournament puts its table back
        after = await h.summary(host["room"])
        if after["settings"] == before["settings"] and len(after["seats"]) == 3:
            break
        await asyncio.sleep(0.05)
    assert after["settings"] == before["settings"] and after["settings"]["match_rounds"] == 1
    assert [s["bot"] for s in after["seats"]] == [False, False, True]
    # ...and does not keep changing it: the room settles.
    version = await h.version(host["room"])
    await asyncio.sleep(0.3)
    assert await h.version(host["room"]) == version
    assert after["status"] == "lobby"


async def test_a_table_started_changed_does_not_count(server: Harness) -> None:
    h = server
    created = await create(h, grace_seconds=60)
    code = created["tournament"]
    entrants = [await register(h, code, name) for name in ("Ana", "Bo")]
    response = await h.http.post(f"/api/tournaments/{code}/start", headers=bearer(created["token"]))
    assert response.status_code == 200
    seats = [await seat_of(h, code, e) for e in entrants]
    host = next(s for s in seats if s["seat"] == 0)
    client = await h.connect(host["room"], host["token"])
    intended = (await h.summary(host["room"]))["settings"]
    # Change and start at once, faster than the tournament can put the lobby back.
    await client.command("settings", settings={"target_score": 50, "match_rounds": 0})
    await client.command("start")
    for _ in range(60):
        table = (await get(h, code))["rounds"][0]["tables"][0]
        summary = await h.summary(table["room"])
        if table["room"] != host["room"] or table["status"] == "playing":
            break
        await asyncio.sleep(0.05)
    # Whichever won the race, the tournament's table plays the tournament's settings: either
    # the lobby was put back before the start, or the changed match was dropped for a new room.
    assert summary["settings"] == intended
    if table["room"] != host["room"]:
        assert summary["status"] == "lobby" and table["status"] == "waiting"
        mine = await seat_of(h, code, entrants[0])
        assert mine["room"] == table["room"] and mine["token"] != seats[0]["token"]


@pytest.mark.parametrize("bots", [False, True])
async def test_a_table_deserted_in_the_lobby_is_forfeited(server: Harness, bots: bool) -> None:
    """The host seat leaves the lobby and the other entrant never shows: with no bots one seat
    is left; with a bot there are two seats but no host. Either way the table cannot start
    and is forfeited once the grace period is over."""
    h = server
    created = await create(h, grace_seconds=0.5, table_size=3 if bots else 2, fill_with_bots=bots)
    code = created["tournament"]
    entrants = [await register(h, code, name) for name in ("One", "Two")]
    response = await h.http.post(f"/api/tournaments/{code}/start", headers=bearer(created["token"]))
    assert response.status_code == 200
    seats = {e["entrant_id"]: await seat_of(h, code, e) for e in entrants}
    leaves = next(e for e in entrants if seats[e["entrant_id"]]["seat"] == 0)
    stays = next(e for e in entrants if e is not leaves)
    mine = seats[leaves["entrant_id"]]
    client = await h.connect(mine["room"], mine["token"])
    assert (await client.act("leave"))["type"] == "ack"
    assert (await me(h, code, leaves["token"]))["seat"] is None
    for _ in range(60):
        body = await get(h, code)
        if body["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert body["status"] == "finished" and body["winner"] == stays["entrant_id"]
    (table,) = body["rounds"][0]["tables"]
    assert table["match_id"] is None and table["status"] == "finished"
    assert table["result"] == [
        {"entrant_id": stays["entrant_id"], "points": 1, "place": 1},
        {"entrant_id": leaves["entrant_id"], "points": 0, "place": 2},
    ]
    assert (await h.summary(table["room"]))["status"] == "lobby"


async def test_an_absent_entrant_is_played_by_a_bot_to_the_end(server: Harness) -> None:
    """Nobody waits for a no-show: its first turn times out (turn_seconds 5, afk_timeouts 1)
    and the room's AFK bot plays its seat; the tournament ends with a result for it."""
    h = server
    created = await create(
        h, grace_seconds=0, table_size=3, fill_with_bots=True,
        settings={**FAST, "afk_timeouts": 1},
    )  # fmt: skip
    code = created["tournament"]
    here, away = [await register(h, code, name) for name in ("Here", "Away")]
    response = await h.http.post(f"/api/tournaments/{code}/start", headers=bearer(created["token"]))
    assert response.status_code == 200
    body = await run_to_the_end(h, code, [here])
    (table,) = body["rounds"][0]["tables"]
    assert {r["entrant_id"] for r in table["result"]} == {here["entrant_id"], away["entrant_id"]}
    assert body["winner"] in (here["entrant_id"], away["entrant_id"])
    await check_against_matches(h, body)
    seats = (await h.summary(table["room"]))["seats"]
    absent = next(s for s in seats if s["name"] == "Away")
    assert absent["connected"] is False


async def test_results_read_from_the_sqlite_match_record(tmp_path: Any) -> None:
    """The same flow on the embedded default recorder (SQLite with its outbox): a table's
    match is readable as finished as soon as the room announces its end."""
    config = server_settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/matches.db")
    async with running_server(config) as h:
        created = await create(h, table_size=3, fill_with_bots=True, grace_seconds=5)
        code = created["tournament"]
        entrants = [await register(h, code, name) for name in ("Ana", "Bo", "Cem")]
        headers = bearer(created["token"])
        assert (await h.http.post(f"/api/tournaments/{code}/start", headers=headers)).is_success
        body = await run_to_the_end(h, code, entrants)
        await check_against_matches(h, body)
        assert h.auditor.problems == []
