"""The server's timers on the wire (RULES 13, 29-31 and the settings table), black-box: the
`timer_expired` event and what follows it, AFK hand-over to a bot and back, the challenge
timer accepting, the UNO catch window, the next round dealt by itself, and every deadline
in the view matching the moment its event fires. Shortest allowed timer values; the slow
turn-timer scenarios run side by side in one server so the file waits for them once."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from e2e.harness import Client, Harness, Seen, kinds, play_scripted

from blackbox.test_contract import hooked_table

pytestmark = pytest.mark.timeout(60)

TURN = 5  # the shortest turn_seconds
SLACK_MS = 1000  # a timer fires at its deadline, and at most this much later


def now_ms() -> int:
    return int(time.time() * 1000)


def events_after(client: Client, version: int) -> list[Seen]:
    """The events this client received with a version above `version`, in order."""
    return client.events_after(version)


def kinds_after(client: Client, version: int) -> list[str]:
    return client.kinds_after(version)


def bare(event: dict[str, Any]) -> dict[str, Any]:
    """An event without its `version`, to compare with what it must say."""
    return {k: v for k, v in event.items() if k != "version"}


def fired_on_time(seen: Seen, deadline: dict[str, Any]) -> None:
    """The event's frame was made at or after the deadline, and not much later."""
    at = deadline["at"]
    assert at <= seen.view["server_time"] <= at + SLACK_MS, (deadline, seen.view)


async def own_turn_quickly(client: Client) -> None:
    """Take the turn by drawing (and keeping the card, when a pass is offered)."""
    assert (await client.act("draw"))["type"] == "ack"
    if client.view and client.view["you"]["moves"]["pass"]:
        assert (await client.act("pass"))["type"] == "ack"


# --- the turn timer (RULES 29, 31), several scenarios side by side -----------------------


async def _timeout_draws_passes_then_afk_bot_and_return(server: Harness) -> None:
    """afk_timeouts 2: one expiry draws and passes for the sleeper; the second in a row hands
    the seat to a bot (`bot_took_over`), which plays it; any command hands it back."""
    _room, (p0, p1), _ids, _ = await hooked_table(
        server,
        [["blue 1"], ["blue 2"]],
        "red 5",
        1,
        turn_seconds=TURN,
        afk_timeouts=2,
        bot_delay_ms=0,
    )
    await p1.event("round_started")
    assert p1.view is not None
    start_version = p1.version
    turn = p1.view["state"]["deadlines"]["turn"]
    assert turn["seat"] == 0
    assert (TURN - 1) * 1000 <= turn["at"] - p1.view["server_time"] <= TURN * 1000

    expired = await p1.event("timer_expired", timeout=TURN + 2)
    assert expired["timer"] == "turn" and expired["seat"] == 0
    fired_on_time(expired, turn)
    passed = await p1.event("turn_passed")
    assert passed["seat"] == 0
    after = kinds_after(p1, start_version)
    # timer_expired first, then the draw for the sleeper, then the pass.
    assert after[0] == "timer_expired" and "card_drawn" in after
    assert after.index("card_drawn") < after.index("turn_passed")
    drawn = next(e for e in events_after(p1, start_version) if e["kind"] == "card_drawn")
    assert drawn["seat"] == 0 and drawn.get("count", 1) == 1
    assert "bot_took_over" not in after  # one expiry of two
    view = p1.view
    assert view["state"]["turn"] == 1 and view["seats"][0]["hand_count"] == 8
    assert view["seats"][0]["afk"] is False
    nxt = view["state"]["deadlines"]["turn"]
    assert nxt["seat"] == 1 and nxt["at"] > turn["at"]

    await own_turn_quickly(p1)
    assert p1.view is not None and p1.view["state"]["turn"] == 0
    turn = p1.view["state"]["deadlines"]["turn"]
    assert turn["seat"] == 0
    second_version = p1.version
    took = await p1.event("bot_took_over", timeout=TURN + 2)
    assert took["seat"] == 0
    assert took.view["seats"][0]["afk"] is True
    kinds = kinds_after(p1, second_version)
    assert kinds[0] == "timer_expired" and kinds[-1] == "bot_took_over"
    first = next(e for e in events_after(p1, second_version) if e["kind"] == "timer_expired")
    assert bare(first) == {"kind": "timer_expired", "timer": "turn", "seat": 0}
    assert p1.view["state"]["turn"] == 1

    # The bot now plays seat 0 at once (bot_delay_ms 0), long before its turn timer.
    await own_turn_quickly(p1)
    t0 = time.monotonic()
    await p1.until(
        lambda f: any(
            e["kind"] in ("card_played", "card_drawn") and e.get("seat") == 0
            for e in f.get("events", [])
        ),
        timeout=3,
    )
    assert time.monotonic() - t0 < 2
    assert not any(e["kind"] == "timer_expired" for e in events_after(p1, took["version"]))

    # Any command of the player hands the seat back.
    back_from = p0.version
    assert (await p0.act("chat", text="back"))["type"] == "ack"
    returned = next(e for e in events_after(p0, back_from) if e["kind"] == "player_returned")
    assert returned["seat"] == 0
    assert p0.view is not None and p0.view["seats"][0]["afk"] is False
    seen = await p1.event("player_returned")
    assert seen["seat"] == 0 and seen.view["seats"][0]["afk"] is False
    # No bot plays the seat any more: on its turn it waits (for its timer).
    await p1.quiet(0.3)
    if p1.view["state"]["turn"] == 1:
        await own_turn_quickly(p1)
    assert p1.view["state"]["turn"] == 0
    assert p1.view["state"]["deadlines"]["turn"]["seat"] == 0
    mark = p1.version
    await p1.quiet(1.0)
    assert p1.version == mark


async def _own_action_restarts_the_afk_count(server: Harness) -> None:
    """afk_timeouts 2 counts expiries *in a row*: an own move between two expiries resets."""
    _room, (p0, p1), ids, _ = await hooked_table(
        server,
        [["red 1", "red 2"], ["blue 2"]],
        "red 5",
        1,
        turn_seconds=TURN,
        afk_timeouts=2,
        bot_delay_ms=0,
    )
    await p1.event("timer_expired", timeout=TURN + 2)  # seat 0 sleeps once
    await p1.event("turn_passed")
    await own_turn_quickly(p1)
    assert (await p0.act("play", card=ids[0][0]))["type"] == "ack"  # seat 0 acts itself
    await own_turn_quickly(p1)
    mark = p1.version
    expired = await p1.event("timer_expired", timeout=TURN + 2)  # sleeps again: 1 in a row
    assert expired["seat"] == 0
    await p1.quiet(0.3)
    assert "bot_took_over" not in kinds_after(p1, mark)
    assert p1.view is not None and p1.view["seats"][0]["afk"] is False


async def _after_draw_timeout_only_passes(server: Harness) -> None:
    """A player who drew a playable card and then slept: the timer passes, draws nothing.
    (`until_playable` without a cap makes the drawn card playable whatever the pile holds.)"""
    _room, (p0, _p1), _ids, _ = await hooked_table(
        server,
        [["blue 1"], ["blue 2"]],
        "red 5",
        1,
        turn_seconds=TURN,
        draw="until_playable",
        max_draw=0,
    )
    assert (await p0.act("draw"))["type"] == "ack"
    assert p0.view is not None
    assert p0.view["state"]["phase"] == "after_draw" and p0.view["you"]["moves"]["pass"]
    count = p0.view["seats"][0]["hand_count"]
    deadline = p0.view["state"]["deadlines"]["turn"]
    assert deadline["seat"] == 0
    mark = p0.version
    expired = await p0.event("timer_expired", timeout=TURN + 2)
    assert bare(expired) == {"kind": "timer_expired", "timer": "turn", "seat": 0}
    fired_on_time(expired, deadline)
    passed = await p0.event("turn_passed")
    assert passed["seat"] == 0
    assert passed.get("auto") is True  # made by the timer, like its other moves
    assert "card_drawn" not in kinds_after(p0, mark) and "card_played" not in kinds_after(p0, mark)
    assert p0.view["seats"][0]["hand_count"] == count and p0.view["state"]["turn"] == 1


async def _penalty_timeout_takes_the_penalty(server: Harness) -> None:
    """stack_draw2: the victim in phase `penalty` who sleeps takes the pending draw."""
    _room, (p0, p1), ids, _ = await hooked_table(
        server,
        [["red draw2", "red 3"], ["blue 4"]],
        "red 9",
        1,
        turn_seconds=TURN,
        stack_draw2=True,
    )
    assert (await p0.act("play", card=ids[0][0]))["type"] == "ack"
    await p1.event("card_played")
    assert p1.view is not None
    state = p1.view["state"]
    assert state["phase"] == "penalty" and state["turn"] == 1 and state["pending_draw"] == 2
    deadline = state["deadlines"]["turn"]
    assert deadline["seat"] == 1
    mark = p1.version
    expired = await p1.event("timer_expired", timeout=TURN + 2)
    assert bare(expired) == {"kind": "timer_expired", "timer": "turn", "seat": 1}
    fired_on_time(expired, deadline)
    await p1.quiet(0.3)
    drawn = [e for e in events_after(p1, mark) if e["kind"] == "card_drawn"]
    assert sum(e.get("count", 1) for e in drawn) == 2 and all(e["seat"] == 1 for e in drawn)
    assert p1.view["seats"][1]["hand_count"] == 9
    assert p1.view["state"]["pending_draw"] == 0 and p1.view["state"]["turn"] == 0
    # RULES 31: a command decided before the deadline but arriving after it is refused.
    late = await p1.act("draw", at=mark)
    assert late["type"] == "error" and late["code"] == "stale"
    assert p1.view["seats"][1]["hand_count"] == 9


async def _choose_timeout_names_a_color(server: Harness) -> None:
    """A turned-up wild whose first player sleeps: a random color is named for them."""
    _room, (p0, p1), _ids, _ = await hooked_table(
        server, [["blue 1"], ["green 1"]], "wild", 1, turn_seconds=TURN
    )
    await p1.event("round_started")
    assert p1.view is not None and p1.view["state"]["phase"] == "choose"
    deadline = p1.view["state"]["deadlines"]["turn"]
    assert deadline["seat"] == 0
    expired = await p1.event("timer_expired", timeout=TURN + 2)
    assert bare(expired) == {"kind": "timer_expired", "timer": "turn", "seat": 0}
    fired_on_time(expired, deadline)
    chosen = await p1.event("color_chosen")
    assert chosen["seat"] == 0
    assert chosen["color"] in ("red", "yellow", "green", "blue")
    assert p1.view["state"]["color"] == chosen["color"]
    assert p1.view["state"]["phase"] == "play"
    assert p0.view is not None


async def _a_timer_never_fires_for_a_state_that_moved_on(server: Harness) -> None:
    """A player acting before the deadline: no `timer_expired` for the old deadline."""
    _room, (p0, p1), ids, _ = await hooked_table(
        server, [["red 1", "red 2"], ["blue 2", "blue 3"]], "red 5", 1, turn_seconds=TURN
    )
    assert p0.view is not None
    first = p0.view["state"]["deadlines"]["turn"]
    await asyncio.sleep(TURN - 1.5)
    assert (await p0.act("play", card=ids[0][0]))["type"] == "ack"
    assert p0.view["state"]["deadlines"]["turn"]["seat"] == 1
    assert p0.view["state"]["deadlines"]["turn"]["at"] > first["at"]
    await p1.quiet(2.0)  # past the first deadline
    assert not p1.seen("timer_expired")


async def _a_timeout_move_does_not_close_the_uno_window(server: Harness) -> None:
    """RULES 13: only an own act of the seat in turn closes the window; the draw and pass
    the server makes for a sleeping player (RULES 29) do not."""
    _p0, p1, _ids, played = await _down_to_one(server, uno_window_ms=30000, turn_seconds=TURN)
    assert played["view"]["state"]["deadlines"]["turn"]["seat"] == 1
    expired = await p1.event("timer_expired", timeout=TURN + 2)
    assert bare(expired) == {"kind": "timer_expired", "timer": "turn", "seat": 1}
    await p1.event("turn_passed")
    assert p1.view is not None and p1.view["state"]["deadlines"]["uno"] is not None
    assert p1.view["you"]["moves"]["catch"] == [0]
    caught = await p1.act("catch", seat=0)
    assert caught["type"] == "ack"
    assert p1.view["seats"][0]["hand_count"] == 3


async def test_turn_timer_scenarios(server: Harness) -> None:
    await asyncio.wait_for(
        asyncio.gather(
            _timeout_draws_passes_then_afk_bot_and_return(server),
            _own_action_restarts_the_afk_count(server),
            _after_draw_timeout_only_passes(server),
            _penalty_timeout_takes_the_penalty(server),
            _choose_timeout_names_a_color(server),
            _a_timer_never_fires_for_a_state_that_moved_on(server),
            _a_timeout_move_does_not_close_the_uno_window(server),
        ),
        timeout=40,
    )


# --- the challenge timer (RULES 30) -------------------------------------------------------


async def test_challenge_timer_expiry_accepts(server: Harness) -> None:
    _room, (p0, p1), ids, _ = await hooked_table(
        server, [["wild_draw4", "red 3"], ["blue 2"]], "red 9", 1, challenge_seconds=3
    )
    assert (await p0.act("play", card=ids[0][0], color="green"))["type"] == "ack"
    opened = await p1.event("challenge_opened")
    view = opened.view
    assert view["state"]["phase"] == "challenge" and view["state"]["turn"] == 1
    deadline = view["state"]["deadlines"]["challenge"]
    assert deadline is not None and deadline["seat"] == 1
    assert 2000 <= deadline["at"] - view["server_time"] <= 3000
    assert view["state"]["deadlines"]["turn"] is None  # untimed game
    mark = p1.version
    expired = await p1.event("timer_expired", timeout=5)
    assert bare(expired) == {"kind": "timer_expired", "timer": "challenge", "seat": 1}
    fired_on_time(expired, deadline)
    await p1.quiet(0.3)
    after = events_after(p1, mark)
    drawn = [e for e in after if e["kind"] == "card_drawn"]
    assert sum(e.get("count", 1) for e in drawn) == 4 and all(e["seat"] == 1 for e in drawn)
    assert "challenge_resolved" not in [e["kind"] for e in after]  # accepted, not challenged
    state = p1.view["state"] if p1.view else {}
    assert p1.view is not None and p1.view["seats"][1]["hand_count"] == 11
    # Two players: after a Wild Draw Four the turn returns to the player, on green.
    assert state["phase"] == "play" and state["turn"] == 0 and state["color"] == "green"
    assert state["deadlines"]["challenge"] is None
    late = await p1.act("challenge")
    assert late["type"] == "error"


# --- the UNO window (RULE 13) -------------------------------------------------------------

SIX_RED = ["red 1", "red 2", "red 3", "red 4", "red 6", "red 7", "red 8"]
SEVEN_BLUE = ["blue 1", "blue 2", "blue 3", "blue 4", "blue 6", "blue 7", "blue 8"]


async def _down_to_one(
    server: Harness, **settings: Any
) -> tuple[Client, Client, list[list[int]], dict[str, Any]]:
    """Seat 0 plays down to one card without declaring; the frame of that play to seat 1."""
    _room, (p0, p1), ids, _ = await hooked_table(
        server, [SIX_RED, SEVEN_BLUE], "red 9", 1, **settings
    )
    for k in range(5):
        assert (await p0.act("play", card=ids[0][k]))["type"] == "ack"
        await own_turn_quickly(p1)
    sent = now_ms()
    assert (await p0.act("play", card=ids[0][5]))["type"] == "ack"
    played = await p1.until(
        lambda f: "card_played" in kinds(f) and f["view"]["seats"][0]["hand_count"] == 1
    )
    uno = played["view"]["state"]["deadlines"]["uno"]
    assert uno is not None and uno["seat"] == 0
    window = settings.get("uno_window_ms", 3000)
    assert 0 <= uno["at"] - played["view"]["server_time"] <= window
    assert uno["at"] <= sent + window + 200
    assert played["view"]["you"]["moves"]["catch"] == [0]
    return p0, p1, ids, played


async def test_a_catch_inside_the_window_penalises(server: Harness) -> None:
    p0, p1, _ids, _ = await _down_to_one(server, uno_window_ms=3000, uno_penalty=3)
    mark = p1.version
    reply = await p1.act("catch", seat=0)
    assert reply["type"] == "ack"
    after = events_after(p1, mark)
    caught = next(e for e in after if e["kind"] == "uno_caught")
    assert caught["seat"] == 0 and caught["by"] == 1
    drawn = [e for e in after if e["kind"] == "card_drawn"]
    assert sum(e.get("count", 1) for e in drawn) == 3 and all(e["seat"] == 0 for e in drawn)
    assert p1.view is not None and p1.view["seats"][0]["hand_count"] == 4
    assert p1.view["state"]["deadlines"]["uno"] is None
    assert p1.view["you"]["moves"]["catch"] == []
    again = await p1.act("catch", seat=0)
    assert again["type"] == "error" and again["code"] == "not_catchable"
    await p1.quiet(0.2)
    assert not any(
        e["kind"] == "timer_expired" for e in events_after(p1, mark)
    )  # the caught window has no timer left to fire
    assert p0.view is not None


async def test_the_window_closes_at_uno_window_ms(server: Harness) -> None:
    p0, p1, _ids, played = await _down_to_one(server, uno_window_ms=500)
    deadline = played["view"]["state"]["deadlines"]["uno"]
    expired = await p1.event("timer_expired", timeout=2)
    assert bare(expired) == {"kind": "timer_expired", "timer": "uno", "seat": 0}
    fired_on_time(expired, deadline)
    assert expired.view["state"]["deadlines"]["uno"] is None
    assert expired.view["you"]["moves"]["catch"] == []
    mark = p1.version
    late = await p1.act("catch", seat=0)
    assert late["type"] == "error" and late["code"] == "not_catchable"
    assert p1.version == mark  # false_catch_penalty 0: nothing happened
    assert p1.view is not None and p1.view["seats"][0]["hand_count"] == 1
    assert p1.view["seats"][1]["hand_count"] == 12  # 7 + 5 draws, no penalty
    assert p0.view is not None


async def test_the_window_closes_when_the_player_in_turn_acts(server: Harness) -> None:
    p0, p1, _ids, _ = await _down_to_one(server, uno_window_ms=30000)
    await own_turn_quickly(p1)  # seat 1 is in turn: drawing closes the window
    assert p1.view is not None
    assert p1.view["state"]["deadlines"]["uno"] is None
    assert p1.view["you"]["moves"]["catch"] == []
    late = await p1.act("catch", seat=0)
    assert late["type"] == "error" and late["code"] == "not_catchable"
    assert p0.view is not None


async def test_a_false_catch_costs_the_catcher(server: Harness) -> None:
    p0, p1, _ids, played = await _down_to_one(server, uno_window_ms=500, false_catch_penalty=2)
    await p1.event("timer_expired", timeout=2)
    before = p1.version
    late = await p1.act("catch", seat=0)
    assert late["type"] == "error" and late["code"] == "not_catchable"
    await p1.quiet(0.2)  # (its penalty events came before the error)
    after = events_after(p1, before)
    assert bare(after[0]) == {"kind": "false_catch", "seat": 1, "target": 0, "penalty": 2}
    drawn = [e for e in after if e["kind"] == "card_drawn"]
    assert sum(e.get("count", 1) for e in drawn) == 2 and all(e["seat"] == 1 for e in drawn)
    assert p1.view is not None
    assert p1.view["seats"][1]["hand_count"] == played["view"]["seats"][1]["hand_count"] + 2
    assert p1.view["seats"][0]["hand_count"] == 1
    seen = await p0.event("false_catch")
    assert seen["seat"] == 1


async def test_a_false_catch_sends_its_penalty_events_before_the_error(server: Harness) -> None:
    _p0, p1, _ids, _ = await _down_to_one(server, uno_window_ms=500, false_catch_penalty=2)
    await p1.event("timer_expired", timeout=2)
    before = p1.version
    late = await p1.act("catch", seat=0)
    assert late["type"] == "error" and late["code"] == "not_catchable"
    # Everything the refused command produced was already read when its answer came.
    assert [e["kind"] for e in events_after(p1, before)][:2] == ["false_catch", "card_drawn"]


# --- next_round_seconds -------------------------------------------------------------------


async def test_next_round_is_dealt_by_itself_at_its_deadline(server: Harness) -> None:
    _room, (p0, p1), ids, _ = await hooked_table(
        server, [["red 1"], ["blue 1"]], "red 9", 1, next_round_seconds=1
    )
    await asyncio.wait_for(asyncio.gather(play_scripted(p0), play_scripted(p1)), 20)
    ended = p0.seen("round_ended")[0]
    deadline = ended.view["state"]["deadlines"]["next_round"]
    assert deadline is not None
    assert 0 <= deadline["at"] - ended.view["server_time"] <= 1000
    mark = ended["version"]
    started = await p0.event("round_started", timeout=3)
    assert started.view["round"] == 2 and started.view["status"] == "playing"
    fired_on_time(started, deadline)
    after = kinds_after(p0, mark)
    assert "timer_expired" in after and after.index("timer_expired") < after.index("round_started")
    expired = next(e for e in events_after(p0, mark) if e["kind"] == "timer_expired")
    assert expired["timer"] == "next_round"
    assert started.view["state"]["deadlines"]["next_round"] is None
    assert ids


async def test_next_round_seconds_zero_waits_for_the_host(server: Harness) -> None:
    _room, (p0, p1), ids, _ = await hooked_table(
        server, [["red 1"], ["blue 1"]], "red 9", 1, next_round_seconds=0
    )
    await asyncio.wait_for(asyncio.gather(play_scripted(p0), play_scripted(p1)), 20)
    assert p0.view is not None and p0.view["status"] == "round_over"
    assert p0.view["state"]["deadlines"].get("next_round") is None
    await p0.quiet(1.5)
    assert p0.view["status"] == "round_over"
    assert (await p0.act("start"))["type"] == "ack"
    assert p0.view["status"] == "playing" and p0.view["round"] == 2
    assert ids
