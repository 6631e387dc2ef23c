"""Handshake, resume, replacement of a seat's socket, duplicate command ids."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import websockets

from e2e.harness import Harness, consecutive, deal_order


async def _two_player_round(server: Harness) -> tuple[str, dict[str, Any], dict[str, Any]]:
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    room = host["room"]
    guest = await server.join(room, "Mikko")
    order, _, _ = deal_order(
        await server.deck(room), [["red 3", "red 4"], ["red 6", "red 7"]], "red 5", dealer=1
    )
    a = await server.connect(room, host["token"])
    await a.act("settings", settings={"dealer": 1, "deck_order": order})
    await a.act("start")
    return room, host, guest


def _same_table(before: dict[str, Any], after: dict[str, Any]) -> None:
    """The whole view is the same but for what the reconnection itself changes."""

    def stable(view: dict[str, Any]) -> dict[str, Any]:
        # `log` and `chat` (an extension) are the welcome's alone.
        skip = ("version", "server_time", "log", "chat")
        out = {k: v for k, v in view.items() if k not in skip}
        out["seats"] = [{k: v for k, v in s.items() if k != "connected"} for s in view["seats"]]
        return out

    assert stable(after) == stable(before)


async def test_resume_with_since_replays_missed_events_then_welcome(server: Harness) -> None:
    room, _host, guest = await _two_player_round(server)
    b = await server.connect(room, guest["token"])
    seen = b.version
    before = b.view
    assert before is not None
    await b.close()
    a = server.clients[0]
    await a.event("disconnected")
    assert (await a.act("chat", text="are you there?"))["type"] == "ack"

    again = await server.open(room)
    again.seat = 1
    await again.send({"type": "hello", "token": guest["token"], "since": seen})
    welcome = await again.until(lambda f: f["type"] == "welcome")
    replayed = [f for f in again.frames if f["type"] == "events"]
    assert again.frames[-1] is welcome and again.frames[:-1] == replayed
    kinds = [e["kind"] for e in again.events]
    assert kinds[:2] == ["disconnected", "chat"]
    assert again.events[0]["version"] == seen + 1
    assert consecutive([seen, *again.versions])
    assert welcome["version"] == replayed[-1]["version"] == again.events[-1]["version"]
    assert "log" in welcome["view"] and all("log" not in f["view"] for f in replayed)
    assert again.view is not None
    _same_table(before, again.view)
    if "connected" not in kinds:  # the reconnection itself, announced after the welcome
        await again.event("connected")


async def test_resume_without_history_sends_a_fresh_welcome(server: Harness) -> None:
    room, _host, guest = await _two_player_round(server)
    b = await server.connect(room, guest["token"])
    before = b.view
    assert before is not None
    await b.close()
    fresh = await server.connect(room, guest["token"], since=None)
    assert [f["type"] for f in fresh.frames] == ["welcome"]
    assert fresh.view is not None
    _same_table(before, fresh.view)
    # A `since` from the future is not in the history either: welcome alone.
    future = await server.connect(room, guest["token"], since=10_000)
    assert [f["type"] for f in future.frames] == ["welcome"]


async def test_second_socket_replaces_the_first(server: Harness) -> None:
    room, _host, guest = await _two_player_round(server)
    first = await server.connect(room, guest["token"])
    second = await server.connect(room, guest["token"])
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await first.until(lambda f: False, timeout=2)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4409
    # The seat stays connected (no disconnected/connected pair) and the new socket works.
    assert (await second.act("chat", text="moved tabs"))["type"] == "ack"
    summary = await server.summary(room)
    assert summary["seats"][1]["connected"] is True
    assert second.events  # (the chat at least)
    assert "disconnected" not in [e["kind"] for e in second.events]


async def test_resent_command_id_is_applied_once(server: Harness) -> None:
    room, host, _guest = await _two_player_round(server)
    a = server.clients[0]
    assert a.view is not None
    card = a.view["you"]["moves"]["play"][0]["card"]
    frame = {"type": "play", "id": "once", "card": card}
    await a.send(frame)
    first = await a.reply("once")
    assert first["type"] == "ack"
    version = await server.version(room)
    await a.send(frame)
    second = await a.reply("once")
    assert second == first
    assert await server.version(room) == version
    # Same after a reconnect: the id cache belongs to the player, not to the socket.
    await a.close()
    back = await server.connect(room, host["token"])
    await back.send(frame)
    assert await back.reply("once") == first


async def test_a_resent_false_catch_costs_its_penalty_once(server: Harness) -> None:
    """A false catch is refused yet commits the catcher's penalty (RULES 13): it was applied,
    so a resend of its id is not applied again, on the same socket or after a reconnect,
    and gets the same refusal."""
    host = await server.create_room("Ayşe", {"turn_seconds": 0, "false_catch_penalty": 2})
    room = host["room"]
    guest = await server.join(room, "Mikko")
    order, _, _ = deal_order(await server.deck(room), [["red 3"], ["blue 1"]], "red 5", dealer=1)
    a = await server.connect(room, host["token"])
    b = await server.connect(room, guest["token"])
    await a.act("settings", settings={"dealer": 1, "deck_order": order})
    await a.act("start")
    await b.event("round_started")
    first = await b.act("catch", seat=0, id="fc")
    assert first["type"] == "error" and first["code"] == "not_catchable"
    assert b.view is not None and b.view["seats"][1]["hand_count"] == 9
    version = await server.version(room)
    assert await b.act("catch", seat=0, id="fc") == first
    assert await server.version(room) == version
    await b.close()
    back = await server.connect(room, guest["token"])
    assert await back.act("catch", seat=0, id="fc") == first
    assert back.view is not None and back.view["seats"][1]["hand_count"] == 9
    assert "false_catch" not in back.kinds_after(version)


async def test_hello_must_come_first_and_in_time(server: Harness) -> None:
    host = await server.create_room("Ayşe")
    room = host["room"]
    silent = await server.open(room)
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await silent.recv(timeout=3)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401

    wrong = await server.open(room)
    await wrong.send({"type": "hello", "token": "not-a-token", "since": None})
    error = await wrong.recv()
    assert error["type"] == "error" and error["code"] == "unauthorized"
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await wrong.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401

    rude = await server.open(room)
    await rude.send({"type": "draw", "id": "c1"})
    assert (await rude.recv())["code"] == "unauthorized"
    with pytest.raises(websockets.ConnectionClosed):
        await rude.recv()

    elsewhere = await server.open("no-such-room")
    await elsewhere.send({"type": "hello", "token": host["token"], "since": None})
    assert (await elsewhere.recv())["code"] == "unauthorized"


async def test_origin_allowlist(server: Harness) -> None:
    host = await server.create_room("Ayşe")
    room = host["room"]
    with pytest.raises(websockets.InvalidStatus):
        await server.open(room, Origin="https://evil.example")
    same = await server.open(room, Origin=server.base)
    await same.send({"type": "hello", "token": host["token"], "since": None})
    assert (await same.recv())["type"] == "welcome"


async def test_ping_pong(server: Harness) -> None:
    host = await server.create_room("Ayşe")
    client = await server.connect(host["room"], host["token"])
    loop = asyncio.get_running_loop()
    del loop
    await client.send({"type": "ping"})
    pong = await client.until(lambda f: f["type"] == "pong")
    assert isinstance(pong["server_time"], int) and pong["server_time"] > 1_700_000_000_000


async def test_commands_sent_right_behind_the_hello_get_their_events_before_the_ack(
    server: Harness,
) -> None:
    """A client may send its first commands without waiting for the welcome. Each command's
    commit still reaches it as an `events` frame before the `ack` (PROTOCOL 3), after a
    welcome that does not already contain it."""
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    client = await server.open(host["room"])
    client.seat = 0
    await client.send({"type": "hello", "token": host["token"], "since": None})
    await client.send({"type": "chat", "id": "first", "text": "hi"})
    await client.send({"type": "add_bot", "id": "second"})
    await client.reply("second")
    await client.quiet(0.2)
    kinds_seen = [f["type"] for f in client.frames]
    assert kinds_seen[0] == "welcome", kinds_seen
    welcome = client.frames[0]
    assert consecutive(client.versions), client.versions
    for command_id in ("first", "second"):
        ack = next(f for f in client.frames if f["type"] == "ack" and f["id"] == command_id)
        assert ack["version"] > welcome["version"]
        produced = client.frame_for(ack["version"])
        assert client.frames.index(produced) < client.frames.index(ack)


@pytest.mark.parametrize("since", [None, "last"])
async def test_commands_right_behind_a_repeated_hello_come_after_its_welcome(
    server: Harness, since: str | None
) -> None:
    """A `hello` on a socket already welcomed, with commands right behind it: each command's
    commit reaches the client as an `events` frame after the new welcome and before the
    `ack`, as after the first hello; it is never folded into the welcome's version."""
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    client = await server.connect(host["room"], host["token"])
    await client.quiet(0.2)
    mark = len(client.frames)
    for _ in range(3):
        await client.send(
            {
                "type": "hello",
                "token": host["token"],
                "since": client.version - 1 if since else None,
            }
        )
        await client.send({"type": "chat", "id": f"c{mark}-{_}", "text": "hi"})
        ack = await client.reply(f"c{mark}-{_}")
        assert ack["type"] == "ack", ack
        frames = client.frames[mark:]
        welcome = next(f for f in frames if f["type"] == "welcome")
        assert ack["version"] > welcome["version"], [f["type"] for f in frames]
        produced = client.frame_for(ack["version"])
        assert frames.index(welcome) < client.frames.index(produced) - mark < frames.index(ack)
        mark = len(client.frames)
