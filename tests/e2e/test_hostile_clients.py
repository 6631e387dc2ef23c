"""One hostile client against a server on its default limits (issue 11, findings 1-4): a
socket that floods and never reads is closed, refused frames are not answered one for one,
a `hello` cannot draw a large replay, and a seat left mid-match is no longer its token's."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from app.engine import actions as act
from app.rooms.commands import Command
from app.settings import AppSettings
from tests.e2e.harness import Harness, running_server, server_settings


@pytest.fixture
async def strict() -> Any:
    """The production limits (the shared harness raises the rate limit for its scripts)."""
    async with running_server(
        server_settings(history_limit=512, rate_limit_per_second=50.0, rate_limit_burst=100)
    ) as harness:
        yield harness


@pytest.fixture
async def capped() -> Any:
    """The production limits with a replay bound the history can exceed (`RESUME_MAX_BYTES` is
    sized for the whole history by default): the bound itself, at work."""
    async with running_server(
        server_settings(
            history_limit=512,
            rate_limit_per_second=50.0,
            rate_limit_burst=100,
            resume_max_bytes=48 * 1024,
        )
    ) as harness:
        yield harness


async def _socket(harness: Harness, room: str, token: str, since: int | None = None) -> Any:
    ws = await websockets.connect(f"{harness.ws_base}/ws/rooms/{room}", max_queue=4)
    await ws.send(json.dumps({"type": "hello", "token": token, "since": since}))
    return ws


async def _frames_until_welcome(ws: ClientConnection) -> tuple[list[dict[str, Any]], int]:
    got: list[dict[str, Any]] = []
    size = 0
    while True:
        raw = await asyncio.wait_for(ws.recv(), 5)
        assert isinstance(raw, str)
        size += len(raw.encode())
        frame = json.loads(raw)
        got.append(frame)
        if frame["type"] == "welcome":
            return got, size


async def test_a_socket_that_floods_and_never_reads_is_closed(strict: Harness) -> None:
    created = await strict.create_room("Host")
    room = created["room"]
    watcher = (await strict.http.post(f"/api/rooms/{room}/spectators", json={"name": "x"})).json()
    hub = strict.service.has_sockets
    ws = await _socket(strict, room, watcher["token"])
    started = time.monotonic()
    sent = 0
    closed = False
    # Invalid frames, as fast as the socket takes them, never reading a reply.
    while time.monotonic() - started < 20:
        try:
            for _ in range(200):
                await ws.send("not json" * 8)
                sent += 1
        except websockets.ConnectionClosed:
            closed = True
            break
        await asyncio.sleep(0)
        if not hub(room):
            closed = True
            break
    assert closed, f"still open after {sent} refused frames in 20 s"
    assert time.monotonic() - started < 20
    for _ in range(100):  # the server forgets the socket soon after closing it
        if not hub(room):
            break
        await asyncio.sleep(0.05)
    assert not hub(room)
    await ws.close()


async def test_a_policy_closed_flooder_is_dropped_at_once(strict: Harness) -> None:
    """Closed for its refused frames, a flooding socket is neither read on for the close
    handshake's 10 s nor held open: the connection is dropped within about a second, so the
    client's next send fails (before: its frames were parsed and discarded for 10 s, then the
    socket lingered with a full buffer)."""
    created = await strict.create_room("Host")
    ws = await _socket(strict, created["room"], created["token"])
    await _frames_until_welcome(ws)
    started = time.monotonic()
    dropped_after = None
    while time.monotonic() - started < 15:
        try:
            # The client reads nothing: a send blocks while the server's buffers are full.
            await asyncio.wait_for(ws.send("not json" * 8), 1)
        except TimeoutError:
            continue
        except (websockets.ConnectionClosed, OSError):
            dropped_after = time.monotonic() - started
            break
        await asyncio.sleep(0)
    assert dropped_after is not None and dropped_after < 5, dropped_after
    assert not strict.service.has_sockets(created["room"])


async def test_refused_frames_are_not_answered_one_for_one(strict: Harness) -> None:
    created = await strict.create_room("Host")
    ws = await _socket(strict, created["room"], created["token"])
    await _frames_until_welcome(ws)
    for _ in range(600):
        await ws.send("{}")  # no type: bad_frame
    errors = 0
    code = None
    try:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
            errors += frame["type"] == "error"
    except websockets.ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd is not None else None
    assert code == 1008
    # The error budget's burst (100) plus a little refill, far from one reply per frame.
    assert 0 < errors <= 130, errors


async def test_staying_over_the_rate_limit_closes_the_socket(strict: Harness) -> None:
    """Each command over the rate is refused `rate_limited` with its id (its sender is not
    left waiting), until the error budget is spent: then the socket is closed, so a flood
    never draws a reply per frame."""
    created = await strict.create_room("Host")
    ws = await _socket(strict, created["room"], created["token"])
    await _frames_until_welcome(ws)
    for i in range(1000):
        await ws.send(json.dumps({"type": "ping", "id": f"p{i}"}))
    kinds: list[str] = []
    limited: list[str] = []
    code = None
    try:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
            kinds.append(frame.get("code") or frame["type"])
            if frame.get("code") == "rate_limited":
                limited.append(frame["id"])
    except websockets.ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd is not None else None
    assert code == 1008
    budget = AppSettings().error_budget_burst
    assert budget <= len(limited) <= budget + 20  # the budget, and what it refilled meanwhile
    assert len(set(limited)) == len(limited) and all(i.startswith("p") for i in limited)
    assert kinds.count("pong") <= 110
    assert len(kinds) < 1000 // 3


async def test_chat_is_limited_per_socket_and_per_room() -> None:
    """Chat reaches every socket of the room: one client gets a few lines in a burst, then
    about one a second, and a crowd of spectators together no more than the room's budget."""
    production = AppSettings()
    settings = server_settings(
        chat_per_second=production.chat_per_second,
        chat_burst=production.chat_burst,
        room_chat_per_second=production.room_chat_per_second,
        room_chat_burst=production.room_chat_burst,
    )
    async with running_server(settings) as harness:
        created = await harness.create_room("Host")
        room = created["room"]
        ws = await _socket(harness, room, created["token"])
        await _frames_until_welcome(ws)
        replies = await _chat_replies(ws, 12)
        assert replies.count("ack") == production.chat_burst
        assert replies.count("rate_limited") == 12 - production.chat_burst
        await ws.close()

        crowd = []
        for i in range(12):
            watcher = await harness.http.post(
                f"/api/rooms/{room}/spectators", json={"name": f"w{i}"}
            )
            # A roomy client queue: each line reaches all twelve, and a full queue would
            # stall each closing handshake for its timeout.
            sock = await websockets.connect(f"{harness.ws_base}/ws/rooms/{room}", max_queue=256)
            hello = {"type": "hello", "token": watcher.json()["token"], "since": None}
            await sock.send(json.dumps(hello))
            crowd.append(sock)
        for sock in crowd:
            await _frames_until_welcome(sock)
        acks = 0
        for sock in crowd:
            acks += (await _chat_replies(sock, 3)).count("ack")
        # 36 lines offered, the room's burst (20) plus what refilled meanwhile accepted.
        assert production.room_chat_burst <= acks < 30, acks
        for sock in crowd:
            await sock.close()


async def _chat_replies(ws: ClientConnection, count: int) -> list[str]:
    """Send `count` chat lines at once; the ack or error code answering each."""
    for i in range(count):
        await ws.send(json.dumps({"type": "chat", "id": f"c{i}", "text": "hello"}))
    replies: dict[str, str] = {}
    while len(replies) < count:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if frame["type"] in ("ack", "error") and str(frame.get("id", "")).startswith("c"):
            replies[frame["id"]] = frame.get("code") or frame["type"]
    return list(replies.values())


async def test_a_reconnect_loop_is_refused_per_address() -> None:
    """Each new socket of a seat costs its room two commits (connected, then not): one
    address may open a burst of sockets, then about two a second; past that the handshake is
    refused before anything is committed, and another address (through a trusted proxy) is
    not affected."""
    production = AppSettings()
    settings = server_settings(
        ws_connect_rate_per_second=production.ws_connect_rate_per_second,
        ws_connect_rate_burst=production.ws_connect_rate_burst,
        trusted_proxies=["127.0.0.1"],
    )
    async with running_server(settings) as harness:
        created = await harness.create_room("Host")
        room, token = created["room"], created["token"]
        url = f"{harness.ws_base}/ws/rooms/{room}"
        loop_from = {"X-Forwarded-For": "203.0.113.7"}
        base = (await harness.http.get(f"/api/rooms/{room}")).json()["version"]
        opened = refused = 0
        for _ in range(production.ws_connect_rate_burst + 20):
            try:
                ws = await websockets.connect(url, additional_headers=loop_from)
            except websockets.InvalidStatus as exc:
                assert exc.response.status_code == 403
                refused += 1
                continue
            opened += 1
            await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
            await _frames_until_welcome(ws)
            await ws.close()
        # The burst, and what refilled at two a second while the loop ran.
        assert production.ws_connect_rate_burst <= opened < production.ws_connect_rate_burst + 20
        assert refused > 0
        version = (await harness.http.get(f"/api/rooms/{room}")).json()["version"]
        assert version <= base + 2 * opened  # nothing committed for a refused socket
        other = {"X-Forwarded-For": "198.51.100.2"}
        elsewhere = await websockets.connect(url, additional_headers=other)
        await elsewhere.send(json.dumps({"type": "hello", "token": token, "since": None}))
        await _frames_until_welcome(elsewhere)
        await elsewhere.close()


async def test_one_address_many_sockets_share_one_frame_rate() -> None:
    """Each socket has its own frame rate, and all the sockets of one address share another:
    one client with many sockets, each under its own rate, gets the address's burst answered
    and the rest refused `rate_limited` (then closed), while another address's socket is
    answered in full."""
    settings = server_settings(
        rate_limit_per_second=50.0,
        rate_limit_burst=100,
        address_frames_per_second=10.0,
        address_frames_burst=60,
        trusted_proxies=["127.0.0.1"],
    )
    async with running_server(settings) as harness:
        created = await harness.create_room("Host")
        room = created["room"]
        url = f"{harness.ws_base}/ws/rooms/{room}"
        flood = {"X-Forwarded-For": "203.0.113.7"}
        sockets = []
        for _ in range(5):
            token = await harness.spectate(room)
            ws = await websockets.connect(url, additional_headers=flood)
            await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
            await _frames_until_welcome(ws)
            sockets.append(ws)
        for i in range(40):  # 200 frames, 40 per socket: each under its own burst of 100
            for n, ws in enumerate(sockets):
                await ws.send(json.dumps({"type": "ping", "id": f"s{n}p{i}"}))
        pongs = limited = 0
        for ws in sockets:
            try:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                    if frame["type"] == "pong":
                        pongs += 1
                    elif frame.get("code") == "rate_limited":
                        limited += 1
            except (TimeoutError, websockets.ConnectionClosed):
                pass
        assert 60 <= pongs <= 75  # the address's burst, and what refilled meanwhile
        assert limited >= 200 - 75
        token = await harness.spectate(room)
        other = await websockets.connect(
            url, additional_headers={"X-Forwarded-For": "198.51.100.2"}
        )
        await other.send(json.dumps({"type": "hello", "token": token, "since": None}))
        await _frames_until_welcome(other)
        for i in range(40):
            await other.send(json.dumps({"type": "ping", "id": f"o{i}"}))
        answered = [json.loads(await asyncio.wait_for(other.recv(), 5)) for _ in range(40)]
        assert [f["type"] for f in answered] == ["pong"] * 40
        await other.close()


async def test_a_hello_flood_under_the_rate_is_closed() -> None:
    """Each `hello` is answered with a welcome, the dearest frame there is: past the resume
    bucket they spend the error budget, so even under a generous rate limit a client that
    keeps sending them is closed after about a budget's worth of welcomes."""
    settings = server_settings(rate_limit_per_second=5000.0, rate_limit_burst=5000)
    async with running_server(settings) as harness:
        created = await harness.create_room("Host")
        ws = await _socket(harness, created["room"], created["token"])
        await _frames_until_welcome(ws)
        hello = json.dumps({"type": "hello", "token": created["token"], "since": None})
        for _ in range(400):
            await ws.send(hello)
        welcomes = 0
        code = None
        try:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
                welcomes += frame["type"] == "welcome"
        except websockets.ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
        assert code == 1008
        # The resume bucket (3) and the error budget's burst (100) with a little refill.
        assert 0 < welcomes <= 130, welcomes


async def test_a_hello_cannot_draw_a_large_replay(capped: Harness) -> None:
    strict = capped
    created = await strict.create_room("Host")
    room = created["room"]
    # The history: 400 chat events of ~300 characters, submitted in process (a socket would
    # have to pace them under the rate limit, which this test is not about).
    host = await strict.service.identify(room, created["token"])
    assert host is not None
    for i in range(400):
        chat = Command("chat", f"m{i}", None, act.Chat("x" * 290))
        assert (await strict.service.submit(room, host, chat)).version is not None
    version = await strict.version(room)
    assert version > 400

    # Far back: the welcome alone, a few kB.
    far = await _socket(strict, room, created["token"], since=version - 390)
    got, size = await _frames_until_welcome(far)
    assert [f["type"] for f in got] == ["welcome"]
    assert size <= 64 * 1024
    # Near: the missed events in one frame, then the welcome, still small.
    near = await _socket(strict, room, created["token"], since=version - 5)
    got, size = await _frames_until_welcome(near)
    assert [f["type"] for f in got] == ["events", "welcome"]
    now = got[1]["version"]
    assert [e["version"] for e in got[0]["events"]] == list(range(version - 4, now + 1))
    assert size <= 64 * 1024
    await far.close()

    # Repeated hellos on one socket, each asking for the most the history can replay: every
    # one is answered with a welcome, but only the first few replay anything.
    for _ in range(10):
        await near.send(
            json.dumps({"type": "hello", "token": created["token"], "since": version - 60})
        )
    kinds: list[str] = []
    total = 0
    while kinds.count("welcome") < 10:
        raw = await asyncio.wait_for(near.recv(), 5)
        total += len(raw.encode())
        kinds.append(json.loads(raw)["type"])
    assert kinds.count("events") <= 4
    assert total <= 4 * 48 * 1024 + 10 * 16 * 1024
    await near.close()


async def test_a_resume_replays_the_whole_history_of_long_lines(strict: Harness) -> None:
    """PROTOCOL 3: while the history holds the missed events, a resume sends them (then the
    welcome), however long they are: 250 chat lines of 290 characters, ~90 KiB (a replay was
    once capped at 48 KiB, and then answered by the welcome alone)."""
    created = await strict.create_room("Host")
    room = created["room"]
    host = await strict.service.identify(room, created["token"])
    assert host is not None
    for i in range(250):
        chat = Command("chat", f"m{i}", None, act.Chat(f"{i:03d}" + "x" * 287))
        assert (await strict.service.submit(room, host, chat)).version is not None
    version = await strict.version(room)
    since = version - 250
    ws = await _socket(strict, room, created["token"], since=since)
    got, size = await _frames_until_welcome(ws)
    assert [f["type"] for f in got] == ["events", "welcome"]
    now = got[1]["version"]  # (the socket's own `connected` among them)
    assert [e["version"] for e in got[0]["events"]] == list(range(since + 1, now + 1))
    assert size > 64 * 1024
    await ws.close()


async def test_a_seat_left_mid_match_is_no_longer_its_tokens(strict: Harness) -> None:
    created = await strict.create_room("Host", {"bot_delay_ms": 50})
    room = created["room"]
    guest = await strict.join(room, "Guest")
    host = await _socket(strict, room, created["token"])
    await _frames_until_welcome(host)
    await host.send(json.dumps({"type": "start", "id": "go"}))
    ws = await _socket(strict, room, guest["token"])
    await _frames_until_welcome(ws)
    await ws.send(json.dumps({"type": "leave", "id": "bye"}))
    acked = False
    code = None
    try:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
            acked = acked or (frame["type"] == "ack" and frame["id"] == "bye")
    except websockets.ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd is not None else None
    assert acked and code == 1000

    again = await _socket(strict, room, guest["token"])
    refusal = json.loads(await asyncio.wait_for(again.recv(), 5))
    assert refusal["type"] == "error" and refusal["code"] == "unauthorized"
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(again.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    summary = await strict.summary(room)
    assert summary["seats"][guest["seat"]]["bot"] is True
    await host.close()


async def test_a_seat_the_host_removes_ends_its_socket_after_the_news(strict: Harness) -> None:
    """`remove_seat` (extension): the removed player's socket gets the `player_left` naming it,
    then closes (1000) as after a `leave`; it is not left open as an unregistered watcher."""
    created = await strict.create_room("Host")
    room = created["room"]
    guest = await strict.join(room, "Guest")
    third = await strict.join(room, "Third")
    host = await _socket(strict, room, created["token"])
    await _frames_until_welcome(host)
    removed = await _socket(strict, room, third["token"])
    await _frames_until_welcome(removed)
    await host.send(json.dumps({"type": "remove_seat", "id": "kick", "seat": 2}))
    left: list[dict[str, Any]] = []
    code = None
    try:
        while True:
            frame = json.loads(await asyncio.wait_for(removed.recv(), 5))
            if frame["type"] == "events":
                left += [e for e in frame["events"] if e["kind"] == "player_left"]
    except websockets.ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd is not None else None
    assert code == 1000
    assert [e["player_id"] for e in left] == [third["player_id"]]
    # The host's socket stays, and the game goes on without the seat.
    await host.send(json.dumps({"type": "start", "id": "go"}))
    kinds: list[str] = []
    while "round_started" not in kinds:
        frame = json.loads(await asyncio.wait_for(host.recv(), 5))
        if frame["type"] == "events":
            kinds += [e["kind"] for e in frame["events"]]
    assert [s["name"] for s in frame["view"]["seats"]] == ["Host", "Guest"]
    assert guest["token"]
    await host.close()
