"""Audit 3: a tournament table's seats belong to the tournament. Its room code is public
(every table of `GET /api/tournaments/{t}`, so that anyone may watch), and a stranger could
take a free seat with `POST /api/rooms/{room}/players` (a table smaller than `table_size`,
or the seat an entrant left) and was dealt into the tournament's match. Such a join is now
refused `409 room_full` (PROTOCOL 2: 409 when full); watching stays open to anyone, and the
entrants' own seats work as before."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from e2e.harness import Harness

pytestmark = pytest.mark.timeout(60)

FAST = {"turn_seconds": 5, "challenge_seconds": 5, "bot_delay_ms": 0, "next_round_seconds": 1}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _started_table(
    server: Harness, entrants: int, table_size: int
) -> tuple[str, str, list[str]]:
    body = {
        "name": "Cup",
        "host_name": "Host",
        "settings": FAST,
        "table_size": table_size,
        "format": "elimination",
        "advance": 1,
        "match": {"rounds": 1},
        "fill_with_bots": False,
    }
    created = (await server.http.post("/api/tournaments", json=body)).json()
    code = created["tournament"]
    tokens = []
    for i in range(entrants):
        answer = await server.http.post(f"/api/tournaments/{code}/entrants", json={"name": f"E{i}"})
        assert answer.status_code == 201, answer.text
        tokens.append(answer.json()["token"])
    started = await server.http.post(
        f"/api/tournaments/{code}/start", headers=bearer(created["token"])
    )
    assert started.status_code == 200, started.text
    room = started.json()["rounds"][0]["tables"][0]["room"]
    return code, room, tokens


async def _seats(server: Harness, code: str, tokens: list[str]) -> list[dict[str, Any]]:
    """Each entrant's `/me`: its table and seat token."""
    seats = []
    for token in tokens:
        me = await server.http.get(f"/api/tournaments/{code}/me", headers=bearer(token))
        assert me.status_code == 200, me.text
        seats.append(me.json())
    return seats


async def test_a_stranger_cannot_take_a_free_seat_of_a_tournament_table(server: Harness) -> None:
    _code, room, _tokens = await _started_table(server, entrants=3, table_size=4)
    before = await server.summary(room)
    assert before["status"] == "lobby" and len(before["seats"]) == 3
    answer = await server.http.post(f"/api/rooms/{room}/players", json={"name": "Intruder"})
    assert answer.status_code == 409, answer.text
    error = answer.json()["error"]
    assert error["code"] == "room_full" and error["message"]
    after = await server.summary(room)
    assert [s["name"] for s in after["seats"]] == [s["name"] for s in before["seats"]]
    # Watching is open to anyone.
    watch = await server.http.post(f"/api/rooms/{room}/spectators", json={"name": "Fan"})
    assert watch.status_code == 201, watch.text


async def test_the_seat_an_entrant_left_is_not_taken_by_a_stranger(server: Harness) -> None:
    code, room, tokens = await _started_table(server, entrants=3, table_size=3)
    me = await server.http.get(f"/api/tournaments/{code}/me", headers=bearer(tokens[2]))
    assert me.status_code == 200, me.text
    seat = me.json()
    assert seat["room"] == room
    client = await server.connect(room, seat["token"])
    left = await client.act("leave")
    assert left["type"] == "ack", left
    assert len((await server.summary(room))["seats"]) == 2  # the lobby freed the seat
    answer = await server.http.post(f"/api/rooms/{room}/players", json={"name": "Intruder"})
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"]["code"] == "room_full"
    assert "Intruder" not in [s["name"] for s in (await server.summary(room))["seats"]]


async def test_an_ordinary_room_still_seats_whoever_has_the_link(server: Harness) -> None:
    created = await server.create_room("Host", {})
    joined = await server.http.post(f"/api/rooms/{created['room']}/players", json={"name": "G"})
    assert joined.status_code == 201, joined.text


async def test_the_entrant_in_the_host_seat_cannot_remove_a_rival(server: Harness) -> None:
    """The entrant in a table's host seat freed both rivals with `remove_seat` and won the
    table by forfeit at once (the entrants still seated rank first). The command is now
    refused for a person's seat on a tournament table; nothing changes."""
    code, room, tokens = await _started_table(server, entrants=3, table_size=3)
    seats = await _seats(server, code, tokens)
    host_seat = next(s for s in seats if s["seat"] == 0)
    host = await server.connect(room, host_seat["token"])
    before = await server.summary(room)
    for seat in (1, 2):
        reply = await host.act("remove_seat", seat=seat)
        assert reply["type"] == "error" and reply["code"] == "bad_command", reply
        assert reply["message"]
    after = await server.summary(room)
    assert [s["player_id"] for s in after["seats"]] == [s["player_id"] for s in before["seats"]]
    assert after["version"] == before["version"]
    tournament = (await server.http.get(f"/api/tournaments/{code}")).json()
    assert tournament["status"] == "running"
    assert tournament["rounds"][0]["tables"][0]["result"] == []


async def test_the_entrant_in_the_host_seat_cannot_deal_before_its_rivals_arrive(
    server: Harness,
) -> None:
    """The entrant in a table's host seat could `start` the moment its table opened, before
    its rivals connected: they were dealt in absent, and their turns timed out until a bot
    covered them. The tournament deals its tables (every entrant here, or the grace period
    over); the host seat's `start` in the lobby is refused and changes nothing."""
    code, room, tokens = await _started_table(server, entrants=3, table_size=3)
    seats = await _seats(server, code, tokens)
    host_seat = next(s for s in seats if s["seat"] == 0)
    host = await server.connect(room, host_seat["token"])
    assert host.view["you"]["moves"]["start"] is False
    before = await server.summary(room)
    reply = await host.act("start")
    assert reply["type"] == "error" and reply["code"] == "bad_command", reply
    assert reply["message"]
    after = await server.summary(room)
    assert after["status"] == "lobby" and after["version"] == before["version"]
    # Once every entrant is here, the tournament deals the table itself.
    others = [await server.connect(room, s["token"]) for s in seats if s["seat"] != 0]
    for _ in range(100):
        if (await server.summary(room))["status"] == "playing":
            break
        await asyncio.sleep(0.05)
    assert (await server.summary(room))["status"] == "playing"
    for client in [host, *others]:
        await client.close()
