"""Server timers (RULES 13, 29-31) with the shortest settings: each fires once, for the
state it was set for, and `turn_seconds: 0` is really untimed. The scenarios run side by
side in one server so the suite waits for the longest (the 5 s turn timer) only once."""

from __future__ import annotations

import asyncio
from typing import Any

from e2e.harness import Client, Harness, deal_order


async def _room(
    server: Harness, settings: dict[str, Any], hands: list[list[str]], top: str = "red 5"
) -> tuple[Client, Client, list[list[int]]]:
    host = await server.create_room("Ayşe", settings)
    room = host["room"]
    guest = await server.join(room, "Mikko")
    order, ids, _ = deal_order(await server.deck(room), hands, top, dealer=1)
    a = await server.connect(room, host["token"])
    b = await server.connect(room, guest["token"])
    assert (await a.act("settings", settings={"dealer": 1, "deck_order": order}))["type"] == "ack"
    assert (await a.act("start"))["type"] == "ack"
    await b.event("round_started")
    return a, b, ids


def _expired(client: Client) -> list[dict[str, Any]]:
    return list(client.seen("timer_expired"))


async def _turn_timer(server: Harness) -> None:
    a, b, _ = await _room(server, {"turn_seconds": 5}, [["blue 1"], ["blue 2"]])
    assert a.view is not None
    deadline = a.view["state"]["deadlines"]["turn"]
    assert deadline["seat"] == 0
    expired = await b.event("timer_expired", timeout=7)
    assert expired["timer"] == "turn" and expired["seat"] == 0
    assert expired.view["server_time"] >= deadline["at"]
    await b.event("turn_passed")  # drew for the sleeper, then kept the card and passed
    assert b.view is not None and b.view["state"]["turn"] == 1
    assert b.view["seats"][0]["hand_count"] == 8
    await b.quiet(1.0)
    assert len(_expired(b)) == 1


async def _challenge_timer(server: Harness) -> None:
    a, b, ids = await _room(
        server, {"turn_seconds": 0, "challenge_seconds": 3}, [["wild_draw4"], ["blue 2"]]
    )
    played = await a.act("play", card=ids[0][0], color="green")
    assert played["type"] == "ack"
    await b.event("challenge_opened")
    assert b.view is not None and b.view["state"]["phase"] == "challenge"
    expired = await b.event("timer_expired", timeout=5)
    assert expired["timer"] == "challenge" and expired["seat"] == 1
    await b.quiet(1.0)
    assert len(_expired(b)) == 1
    assert b.view["seats"][1]["hand_count"] == 11  # accepted: drew four
    assert b.view["state"]["deadlines"]["turn"] is None  # untimed game: no turn timer


async def _uno_window(server: Harness) -> None:
    a, b, ids = await _room(
        server,
        {"turn_seconds": 0, "uno_window_ms": 500},
        [["red 3", "red 4", "red 6", "red 7", "red 8", "red 9", "red 1"], ["blue 2"]],
    )
    # Play down to one card without declaring (the opponent only draws meanwhile).
    for card in ids[0][:5]:
        assert (await a.act("play", card=card))["type"] == "ack"
        assert (await b.act("draw"))["type"] == "ack"
        if b.view and b.view["you"]["moves"]["pass"]:
            assert (await b.act("pass"))["type"] == "ack"
    assert (await a.act("play", card=ids[0][5]))["type"] == "ack"
    await b.event("card_played")
    assert b.view is not None and b.view["you"]["moves"]["catch"] == [0]
    expired = await b.event("timer_expired", timeout=2)
    assert expired["timer"] == "uno" and expired["seat"] == 0
    refused = await b.act("catch", seat=0)
    assert refused["type"] == "error" and refused["code"] == "not_catchable"
    await b.quiet(0.5)
    assert len(_expired(b)) == 1


async def _afk_takeover(server: Harness) -> None:
    a, b, _ = await _room(
        server,
        {"turn_seconds": 5, "afk_timeouts": 1, "bot_delay_ms": 0},
        [["blue 1"], ["blue 2", "green 2"]],
    )
    took = await b.event("bot_took_over", timeout=7)
    assert took["seat"] == 0
    assert b.view is not None and b.view["state"]["turn"] == 1
    assert (await b.act("draw"))["type"] == "ack"
    if b.view["you"]["moves"]["pass"]:
        assert (await b.act("pass"))["type"] == "ack"
    # The bot plays seat 0 at once (bot_delay_ms 0), well before any turn timer.
    await b.until(
        lambda f: (
            f["type"] == "events"
            and any(
                e["kind"] in ("card_played", "card_drawn") and e.get("seat") == 0
                for e in f["events"]
            )
        ),
        timeout=2,
    )
    # Any command of the player hands the seat back.
    assert (await a.act("chat", text="back"))["type"] == "ack"
    await b.event("player_returned")


async def _afk_refused_command(server: Harness) -> None:
    """RULES 29, "until the player sends any command": a refused command hands the seat
    back too. The player gets the `player_returned` frame, then the error; the bot no
    longer plays the seat."""
    a, b, _ = await _room(
        server,
        {"turn_seconds": 5, "afk_timeouts": 1, "bot_delay_ms": 0},
        [["blue 1", "blue 3"], ["blue 2", "green 2"]],
    )
    await a.event("bot_took_over", timeout=7)
    assert a.view is not None and a.view["state"]["turn"] == 1
    mark = len(a.frames)
    refused = await a.act("pass")  # not seat 0's turn
    assert refused["type"] == "error" and refused["code"] == "not_your_turn"
    returned = a.seen("player_returned")
    assert [e["seat"] for e in returned] == [0]
    assert a.frames.index(returned[0].frame) >= mark  # before the error
    assert a.view["seats"][0]["afk"] is False
    assert (await b.act("draw"))["type"] == "ack"
    if b.view is not None and b.view["you"]["moves"]["pass"]:
        assert (await b.act("pass"))["type"] == "ack"
    await b.quiet(0.5)  # the bot would have moved at once (bot_delay_ms 0)
    assert not [e for e in b.events if e["kind"] == "card_played" and e.get("seat") == 0]
    assert b.view is not None and b.view["state"]["turn"] == 0


async def test_each_timer_fires_once(server: Harness) -> None:
    await asyncio.wait_for(
        asyncio.gather(
            _turn_timer(server),
            _challenge_timer(server),
            _uno_window(server),
            _afk_takeover(server),
            _afk_refused_command(server),
        ),
        timeout=20,
    )
