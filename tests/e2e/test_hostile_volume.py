"""10,000 hostile frames per CI run (issue 11), against a real server on the production limits:
garbage, oversize, wrong types, resent command ids, revoked and other rooms' tokens, a second
`hello` for another seat, out-of-turn moves and moves of cards not held, floods over the rate
limit. Meanwhile two players of another table keep chatting. Then: nothing leaked (every frame
the hostile sockets and the players received went through the leak auditor), the server
still serves (the players' every chat answered, a new room plays a round), no hostile socket
is left open, and the process grew by less than 64 MB."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import statistics
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from tests.e2e.harness import Client, Harness, play_scripted, running_server, server_settings

TOTAL = 10_000
PER_SOCKET = 120  # the error budget (100 refusals) closes a socket at about this many
MAX_GROWTH_MB = 64


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.fixture
async def strict() -> AsyncIterator[Harness]:
    """The production per-socket limits (the shared harness raises the rate limit)."""
    async with running_server(
        server_settings(history_limit=512, rate_limit_per_second=50.0, rate_limit_burst=100)
    ) as harness:
        yield harness
        assert harness.auditor.problems == []


def _garbage(n: int) -> str | bytes:
    return [
        "not json",
        b"\x00\xff\xfe binary",
        "{",
        "[1, 2",
        "null",
        "[]",
        "42",
        '"hello"',
        "[" * 4000,  # nesting deeper than the JSON parser's recursion
        '{"a":' * 2500,
        '{"type": "play", "id": "x", "card": 1' + "0" * 5000 + "}",  # a 5,000-digit int
        "\u202e\u0000" * 100,
    ][n % 12]


def _oversize(n: int) -> str:
    size = (17_000, 40_000, 60_000)[n % 3]  # over the 16 KiB frame limit, under WS_MAX_BYTES
    if n % 2:
        return json.dumps({"type": "chat", "id": f"o{n}", "text": "x" * size})
    return "y" * size


def _wrong_types(n: int) -> str:
    frames: list[Any] = [
        {"type": 5, "id": "w"},
        {"type": "play", "id": f"w{n}", "card": "seven"},
        {"type": "play", "id": [1], "card": 1},
        {"type": "chat", "id": f"w{n}", "text": 5},
        {"type": "nope", "id": f"w{n}"},
        {"type": "play", "id": f"w{n}", "card": 1e308},
        {"type": "play", "id": f"w{n}", "card": -1, "color": "mauve"},
        {"type": "settings", "id": f"w{n}", "settings": {"target_score": "a"}},
        {"type": "hello"},
        {"type": "play", "id": f"w{n}", "card": True, "at": "now"},
        {"type": "chat", "id": "x" * 300, "text": "long id"},
        {"id": f"w{n}"},
    ]
    return json.dumps(frames[n % len(frames)])


class Attack:
    """Opens hostile sockets and counts the frames they got out before the server closed
    them; every frame they receive is read (so the server never blocks on them) and
    audited, but not kept."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.sent: Counter[str] = Counter()
        self.seconds: dict[str, float] = {}
        self.closes: Counter[int | None] = Counter()

    async def _drain(self, ws: ClientConnection, room: str) -> None:
        seat = None  # the seat the socket's welcome names: its own hand is no leak
        with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
            while True:
                raw = await asyncio.wait_for(ws.recv(), 10)
                frame = json.loads(raw)
                if frame.get("type") == "welcome" and isinstance(frame.get("you"), dict):
                    seat = frame["you"].get("seat")
                await self.harness.auditor.check(room, seat, str(raw))

    async def session(
        self,
        kind: str,
        room: str,
        hello: dict[str, Any] | None,
        frame: Callable[[int], str | bytes],
        count: int = PER_SOCKET,
    ) -> None:
        ws = await websockets.connect(f"{self.harness.ws_base}/ws/rooms/{room}")
        drain = asyncio.create_task(self._drain(ws, room))
        try:
            if hello is not None:
                await ws.send(json.dumps(hello))
                self.sent[kind] += 1
            for n in range(count):
                await ws.send(frame(n))
                self.sent[kind] += 1
                if n % 20 == 19:
                    await asyncio.sleep(0)
        except websockets.ConnectionClosed:
            pass
        finally:
            await drain  # until the server closes (the error budget, the rate, a bad hello)
            await ws.close()
            self.closes[ws.close_code] += 1

    async def many(self, kind: str, frames: int, make: Callable[[], Any], width: int) -> None:
        """`frames` frames of `kind`, from sockets `width` at a time."""
        started = time.monotonic()

        async def lane() -> None:
            while self.sent[kind] < frames:
                await make()

        await asyncio.gather(*(lane() for _ in range(width)))
        self.seconds[kind] = round(time.monotonic() - started, 1)


@pytest.mark.timeout(60)
async def test_ten_thousand_hostile_frames(strict: Harness) -> None:
    h = strict
    quiet = {"turn_seconds": 0, "next_round_seconds": 0, "dealer": 1}
    # The players' table, chatting throughout.
    victim = await h.create_room("Ann")
    bob = await h.join(victim["room"], "Bob")
    players = [
        await h.connect(victim["room"], victim["token"]),
        await h.connect(victim["room"], bob["token"]),
    ]
    # The hostile table: a quiet host (its turn, never played), a hostile guest, a spectator.
    target = await h.create_room("Host", quiet)
    room = target["room"]
    guest = await h.join(room, "Guest")
    watcher = await h.spectate(room)
    host = await h.connect(room, target["token"])
    assert (await host.act("start"))["type"] == "ack"
    guest_client = await h.connect(room, guest["token"])
    hand = [c["id"] for c in guest_client.view["you"]["hand"]]  # type: ignore[index]
    not_held = [c for c in range(108) if c not in hand]
    await guest_client.close()
    # A seat that left: its token is revoked.
    left_room = await h.create_room("L", quiet)
    leaver = await h.join(left_room["room"], "Leaver")
    leaving = await h.connect(left_room["room"], leaver["token"])
    assert (await leaving.act("leave"))["type"] == "ack"

    attack = Attack(h)
    guest_hello = {"type": "hello", "token": guest["token"], "since": None}
    watcher_hello = {"type": "hello", "token": watcher, "since": None}

    def play(n: int) -> str:  # out of turn (the host's turn), or a card it does not hold
        card = hand[n % len(hand)] if n % 2 else not_held[n % len(not_held)]
        return json.dumps({"type": "play", "id": f"p{n}", "card": card, "color": "red"})

    def replay(n: int) -> str:  # one id resent: answered with its first outcome only
        return json.dumps({"type": "chat", "id": "same", "text": f"again {n}"})

    def ping(n: int) -> str:
        return json.dumps({"type": "ping", "id": f"f{n}"})

    def switch(n: int) -> str:  # a second hello, for another seat or another room's seat
        token = (target["token"], victim["token"], leaver["token"])[n % 3]
        return json.dumps({"type": "hello", "token": token, "since": 0})

    latencies: list[float] = []
    stop = asyncio.Event()

    async def chatter(client: Client) -> None:
        while not stop.is_set():
            sent = time.perf_counter()
            reply = await client.act("chat", text="still here")
            assert reply["type"] == "ack", reply
            latencies.append(time.perf_counter() - sent)
            await asyncio.sleep(0.1)

    chatters = [asyncio.create_task(chatter(c)) for c in players]
    rss_before = _rss_mb()
    started = time.monotonic()

    tokens = itertools.cycle((leaver["token"], victim["token"], None))

    async def bad_hello() -> None:  # a revoked token, another room's token, no token
        await attack.session("tokens", room, {"type": "hello", "token": next(tokens)}, _garbage, 0)

    await asyncio.gather(
        attack.many(
            "garbage", 2500, lambda: attack.session("garbage", room, watcher_hello, _garbage), 3
        ),
        attack.many(
            "oversize", 600, lambda: attack.session("oversize", room, watcher_hello, _oversize), 2
        ),
        attack.many(
            "wrong types",
            2000,
            lambda: attack.session("wrong types", room, guest_hello, _wrong_types),
            2,
        ),
        attack.many(
            "resent ids", 1000, lambda: attack.session("resent ids", room, guest_hello, replay), 1
        ),
        attack.many(
            "second hello",
            600,
            lambda: attack.session("second hello", room, guest_hello, switch),
            1,
        ),
        attack.many("tokens", 300, bad_hello, 4),
        attack.many(
            "out of turn", 1500, lambda: attack.session("out of turn", room, guest_hello, play), 1
        ),
        attack.many(
            "flood", 1600, lambda: attack.session("flood", room, watcher_hello, ping, 400), 2
        ),
    )
    took = time.monotonic() - started
    stop.set()
    await asyncio.gather(*chatters)
    rss_after = _rss_mb()
    total = sum(attack.sent.values())
    print(
        f"\nhostile frames: {total} in {took:.1f} s ({dict(attack.sent)}, seconds "
        f"{attack.seconds}); sockets closed "
        f"with {dict(attack.closes)}; the players' chat ack p50 "
        f"{statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.0f} ms over "
        f"{len(latencies)}; RSS {rss_before:.0f} -> {rss_after:.0f} MB"
    )
    assert total >= TOTAL
    assert sum(attack.closes.values()) > 50
    # The server let go of every hostile socket: the guest's seat is disconnected again.
    for _ in range(100):
        if not (await h.summary(room))["seats"][guest["seat"]]["connected"]:
            break
        await asyncio.sleep(0.05)
    assert not (await h.summary(room))["seats"][guest["seat"]]["connected"]
    # Still serving: the host's socket answers, and a new room plays a whole round.
    await host.command("ping")
    await host.until(lambda f: f["type"] == "pong")
    assert (await h.http.get("/healthz")).status_code == 200
    fresh = await h.create_room("New", {"target_score": 10000, "bot_delay_ms": 0})
    newcomer = await h.connect(fresh["room"], fresh["token"])
    assert (await newcomer.act("add_bot"))["type"] == "ack"
    assert (await newcomer.act("start"))["type"] == "ack"
    await asyncio.wait_for(play_scripted(newcomer), 20)
    assert rss_after - rss_before < MAX_GROWTH_MB
    assert h.auditor.frames > 1000


async def test_a_client_gone_before_its_refusal_leaves_the_error_log_alone(
    strict: Harness,
) -> None:
    """A bad `hello` (or a first frame that is not one) and a close at once: the refusal
    finds the socket gone. That was an unhandled exception, one ERROR traceback per socket
    in the server's log for whoever opens sockets in a loop."""
    created = await strict.create_room("Host")
    errors: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = errors.append  # type: ignore[method-assign]
    log = logging.getLogger("uvicorn.error")
    log.addHandler(handler)
    try:
        for first in ({"type": "hello", "token": "not-a-token"}, {"type": "chat", "id": "x"}):
            for _ in range(10):
                ws = await websockets.connect(f"{strict.ws_base}/ws/rooms/{created['room']}")
                await ws.send(json.dumps(first))
                await ws.close()
        await asyncio.sleep(0.5)
        good = await strict.connect(created["room"], created["token"])  # still serving
        await good.close()
    finally:
        log.removeHandler(handler)
    assert [r.getMessage() for r in errors] == []


async def test_invalid_utf8_text_frames_close_1007_without_an_error_traceback(
    strict: Harness,
) -> None:
    """A text frame that is not UTF-8 (before or after the hello) is closed with 1007, as
    RFC 6455 asks, and is no server error: the WebSocket layer logged an ERROR with a
    traceback for each, so a client could fill the error log one socket at a time."""
    created = await strict.create_room("Host")
    errors: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = errors.append  # type: ignore[method-assign]
    log = logging.getLogger("uvicorn.error")
    log.addHandler(handler)
    try:
        for hello_first in (False, True, True):
            ws = await websockets.connect(f"{strict.ws_base}/ws/rooms/{created['room']}")
            if hello_first:
                await ws.send(json.dumps({"type": "hello", "token": created["token"]}))
                assert json.loads(await ws.recv())["type"] == "welcome"
            await ws.send(b'{"type": "chat", "id": "a", "text": "\xff\xfe"}', text=True)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
        good = await strict.connect(created["room"], created["token"])  # still serving
        assert good.version > 0
    finally:
        log.removeHandler(handler)
    assert errors == [], [r.getMessage() for r in errors]
