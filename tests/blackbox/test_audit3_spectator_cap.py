"""Audit 3: the 200 spectators of a room were 200 credentials ever issued, not 200 people
watching: `POST /api/rooms/{room}/spectators` 200 times (a few seconds from a handful of
addresses) and nobody could watch that room again, ever, a tournament's tables included
(their codes are public). The cap now counts people watching: past 200 credentials, a new
one replaces the oldest credential whose spectator has no socket open; only when all are
watching is a new spectator refused (409 room_full)."""

from __future__ import annotations

import asyncio

import pytest
from e2e.harness import Harness

from app.rooms import service as rooms_service
from blackbox.test_contract import QUIET

pytestmark = pytest.mark.timeout(120)


async def _watch(server: Harness, room: str, name: str) -> str:
    answer = await server.http.post(f"/api/rooms/{room}/spectators", json={"name": name})
    assert answer.status_code == 201, answer.text
    token: str = answer.json()["token"]
    return token


async def _refused(server: Harness, room: str) -> None:
    answer = await server.http.post(f"/api/rooms/{room}/spectators", json={"name": "More"})
    assert answer.status_code == 409, answer.text
    error = answer.json()["error"]
    assert error["code"] == "room_full" and error["message"]


async def test_spectators_who_never_watched_do_not_lock_the_room(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    room = created["room"]
    watcher = await server.connect(room, await _watch(server, room, "Early"))
    for i in range(rooms_service.MAX_SPECTATORS - 1):
        await _watch(server, room, f"Idle {i}")
    late = await server.connect(room, await _watch(server, room, "Late"))  # was a 409
    host = await server.connect(room, created["token"])
    assert (await host.act("chat", text="still here"))["type"] == "ack"
    for client in (watcher, late):  # the one watching kept its credential
        assert (await client.event("chat"))["text"] == "still here"


async def test_only_spectators_without_a_socket_are_replaced(
    server: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rooms_service, "MAX_SPECTATORS", 3)
    created = await server.create_room("H", QUIET)
    room = created["room"]
    first = await _watch(server, room, "A")
    watching = [await server.connect(room, await _watch(server, room, n)) for n in ("B", "C")]
    # Full: B and C watch, A never came. A new spectator replaces A.
    d = await _watch(server, room, "D")
    gone = await server.open(room)
    await gone.send({"type": "hello", "token": first, "since": None})
    reply = await gone.recv()
    assert reply["type"] == "error" and reply["code"] == "unauthorized", reply
    watching.append(await server.connect(room, d))
    await _refused(server, room)  # B, C and D all watch
    await watching[0].close()  # B goes: its credential may be replaced now
    for _ in range(50):
        answer = await server.http.post(f"/api/rooms/{room}/spectators", json={"name": "E"})
        if answer.status_code == 201:
            break
        await asyncio.sleep(0.05)
    assert answer.status_code == 201, answer.text
