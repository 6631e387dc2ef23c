"""Issue 12 on the server: names unique in a room (a taken name seated as a free variant),
spectators counted in the view and allowed to chat (marked, cleaned and rate-limited like a
player), the absent host's deadline in the view, departed lobby seats freed by the timer."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from e2e.harness import Harness, running_server, server_settings

from app.bus.memory import MemoryBus
from app.rooms.service import RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.rooms import MemoryRoomStore


def _service() -> RoomService:
    """A room service in process, on the memory store (no server around it)."""
    return RoomService(
        AppSettings(database_url="memory://"),
        MemoryRoomStore(),
        MemoryBus(),
        MemoryRecorder(),
        rng=random.Random(1),
    )


@pytest.fixture
async def server() -> AsyncIterator[Harness]:
    async with running_server(server_settings()) as harness:
        yield harness
        assert harness.auditor.problems == []


async def test_a_taken_name_is_seated_as_a_free_variant(server: Harness) -> None:
    """Two seats of one name could not be told apart; PROTOCOL 3 answers a join 201 unless
    the room is full or started: the name is seated as its first free variant, named in the
    answer."""
    created = await server.create_room("Ayşe")
    room = created["room"]
    seated = []
    for same in ("ayşe", "AYŞE", "Ays\u0327e", "  Ayşe "):  # case, NFC, spaces
        response = await server.http.post(f"/api/rooms/{room}/players", json={"name": same})
        assert response.status_code == 201, (same, response.text)
        seated.append(response.json()["name"])
    assert seated == ["ayşe 2", "AYŞE 3", "Ayşe 4", "Ayşe 5"]
    names = [s["name"] for s in (await server.summary(room))["seats"]]
    assert names == ["Ayşe", "ayşe 2", "AYŞE 3", "Ayşe 4", "Ayşe 5"]
    fresh = await server.http.post(f"/api/rooms/{room}/players", json={"name": "Mikko"})
    assert fresh.json()["name"] == "Mikko"


async def test_a_bots_name_is_taken_too_and_a_started_room_says_started(server: Harness) -> None:
    created = await server.create_room("Host", {"dealer": 0})
    room = created["room"]
    host = await server.connect(room, created["token"])
    assert (await host.act("add_bot"))["type"] == "ack"
    taken = await server.http.post(f"/api/rooms/{room}/players", json={"name": "bot 1"})
    assert taken.status_code == 201 and taken.json()["name"] == "bot 1 2"
    assert (await host.act("start"))["type"] == "ack"
    late = await server.http.post(f"/api/rooms/{room}/players", json={"name": "Host"})
    assert late.status_code == 409 and late.json()["error"]["code"] == "already_started"


async def test_a_tournament_seat_takes_the_suffix_instead() -> None:
    service = _service()
    created = await service.create_room("Ali", None)
    await service.join(created.room, "ali")  # the default: seat as a free variant
    summary = await service.summary(created.room)
    assert [s["name"] for s in summary["seats"]] == ["Ali", "ali 2"]


async def test_a_granted_token_holds_that_players_seat_only() -> None:
    """`grant` (a tournament entrant's derived seat token): idempotent, for a seated player
    only, never another member's token."""
    service = _service()
    created = await service.create_room("Ali", None)
    joined = await service.join(created.room, "Bea")
    assert await service.grant(created.room, joined.player_id, "derived-bea")
    assert await service.grant(created.room, joined.player_id, "derived-bea")  # again: fine
    who = await service.identify(created.room, "derived-bea")
    assert who is not None and who.member_id == joined.player_id and who.seat == joined.seat
    assert not await service.grant(created.room, "p_nobody", "derived-x")
    assert await service.identify(created.room, "derived-x") is None
    # A token another member holds is not re-pointed at this seat.
    assert not await service.grant(created.room, joined.player_id, created.token)
    host = await service.identify(created.room, created.token)
    assert host is not None and host.member_id == created.player_id


async def test_a_tournament_table_keeps_a_departed_seat_an_http_room_frees_it(
    server: Harness,
) -> None:
    service = _service()
    table = await service.create_room("Ali", {"target_score": 100})  # as a tournament does
    guest = await service.join(table.room, "Bob")
    await service.set_connected(table.room, table.player_id, True)
    await service.set_connected(table.room, guest.player_id, True)
    await service.set_connected(table.room, guest.player_id, False)
    summary = await service.summary(table.room)
    assert "lobby_drop_seconds" not in summary["settings"]  # its settings are as asked
    assert summary["seats"][1]["drop_at"] is None  # kept, and dealt in
    created = await server.create_room("Ali", {"target_score": 100})
    settings = (await server.summary(created["room"]))["settings"]
    assert "lobby_drop_seconds" not in settings  # the default: 120 s
    chosen = await server.create_room("Ali", {"lobby_drop_seconds": 0})
    assert (await server.summary(chosen["room"]))["settings"]["lobby_drop_seconds"] == 0


async def test_spectators_are_counted_live_and_chat_as_themselves(server: Harness) -> None:
    created = await server.create_room("Eve")  # a player named like the spectator below
    room = created["room"]
    host = await server.connect(room, created["token"])
    assert host.view is not None and host.view["spectators"] == 0
    watcher = await server.connect(room, await server.spectate(room))  # asks for "Eve"
    joined = await host.event("spectator_joined")
    assert {k: joined[k] for k in ("name", "count")} == {"name": "Eve 2", "count": 1}
    assert joined.view["spectators"] == 1
    summary = await server.summary(room)
    assert summary["spectators"] == 1

    answer = await watcher.act("chat", text="go\u202e Eve\u0007!")
    assert answer["type"] == "ack", answer
    line = await host.event("chat")
    assert {k: line[k] for k in ("seat", "name", "text", "spectator")} == {
        "seat": None,
        "name": "Eve 2",
        "text": "go Eve!",
        "spectator": True,
    }
    mine = await host.act("chat", text="hi")
    assert mine["type"] == "ack"
    assert watcher.seen("chat")[0]["spectator"] is True  # the spectator's own line
    assert "spectator" not in await watcher.event("chat")  # a player's line is unmarked
    refused = await watcher.act("add_bot")
    assert refused["type"] == "error" and refused["code"] == "unauthorized"
    too_long = await watcher.act("chat", text="x" * 301)
    assert too_long["type"] == "error" and too_long["code"] == "bad_frame"

    await watcher.close()
    left = await host.event("spectator_left")
    assert left["count"] == 0 and left.view["spectators"] == 0


async def test_a_spectators_chat_meets_the_same_rate_limit() -> None:
    config = server_settings(rate_limit_per_second=1.0, rate_limit_burst=3)
    async with running_server(config) as server:
        created = await server.create_room("Host")
        room = created["room"]
        watcher = await server.connect(room, await server.spectate(room))
        ids = [await watcher.command("chat", text=f"m{k}") for k in range(6)]
        answers = []
        for _ in range(4):
            answers.append(
                await watcher.until(lambda f: f["type"] in ("ack", "error") and f.get("id") in ids)
            )
        assert [a["type"] for a in answers[:2]] == ["ack", "ack"]  # hello took one token
        assert answers[-1]["type"] == "error" and answers[-1]["code"] == "rate_limited"
        assert server.auditor.problems == []


async def test_the_absent_hosts_deadline_and_successor_are_in_the_view(server: Harness) -> None:
    created = await server.create_room("Host")
    room = created["room"]
    joined = await server.join(room, "Guest")
    host = await server.connect(room, created["token"])
    guest = await server.connect(room, joined["token"])
    assert guest.view is not None and guest.view["host_deadline"] is None
    await host.close()
    gone = await guest.event("disconnected")
    deadline = gone.view["host_deadline"]
    assert deadline["seat"] == 0 and deadline["to"] == 1
    assert 55_000 < deadline["at"] - gone.view["server_time"] <= 60_000


async def test_a_departed_lobby_seat_is_freed_when_the_room_wakes() -> None:
    now = [1_800_000_000_000]
    service = RoomService(
        AppSettings(database_url="memory://"),
        MemoryRoomStore(),
        MemoryBus(),
        MemoryRecorder(),
        clock=lambda: now[0],
        rng=random.Random(2),
    )
    created = await service.create_room("Host", {"lobby_drop_seconds": 15}, drop_departed=True)
    room = created.room
    joined = await service.join(room, "Gone")
    await service.set_connected(room, created.player_id, True)
    await service.set_connected(room, joined.player_id, True)
    before = (await service.summary(room))["version"]
    await service.set_connected(room, joined.player_id, False)
    now[0] += 14_999
    await service.wake(room)
    assert len((await service.summary(room))["seats"]) == 2
    now[0] += 1
    await service.wake(room)  # what the scheduler calls at the room's deadline
    events = await service.store.events_since(room, before)
    assert events is not None
    assert [e.kind for e in events] == ["disconnected", "timer_expired", "player_left"]
    assert events[-1].public["reason"] == "away"
    assert [s["name"] for s in (await service.summary(room))["seats"]] == ["Host"]
    assert await service.identify(room, joined.token) is None  # the token no longer seats
