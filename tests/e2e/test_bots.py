"""Bots fill seats and play whole matches on their own."""

from __future__ import annotations

import asyncio

from e2e.harness import Harness, consecutive, play_scripted


async def test_four_bots_play_a_whole_match_to_the_target(server: Harness) -> None:
    settings = {
        "target_score": 150,
        "bot_delay_ms": 0,
        "turn_seconds": 0,
        "next_round_seconds": 1,
    }
    host = await server.create_room("Host", settings)
    room = host["room"]
    seated = await server.connect(room, host["token"])
    for _ in range(3):
        assert (await seated.act("add_bot"))["type"] == "ack"
    spectator = await server.connect(room, await server.spectate(room))
    assert (await seated.act("start"))["type"] == "ack"
    # The host walks away: a bot keeps the seat, so four bots play on with no help.
    assert (await seated.act("leave"))["type"] == "ack"
    await seated.close()

    ended = await spectator.event("match_ended", timeout=40)
    scores = ended["scores"]
    assert max(scores) >= 150
    assert ended["winner"] == scores.index(max(scores))
    assert all(seat["bot"] for seat in ended.view["seats"])
    # One welcome, then every commit: a watcher that reads slower than four bots play gets
    # the commits it missed merged, never a fresh welcome that skips versions.
    assert [f["type"] for f in spectator.frames].count("welcome") == 1
    assert consecutive(spectator.versions)
    rounds = spectator.seen("round_ended")
    assert rounds and rounds[-1]["scores"] == scores
    # The next round came by itself, once per finished round but the last.
    next_rounds = [e for e in spectator.seen("timer_expired") if e["timer"] == "next_round"]
    assert len(next_rounds) == len(rounds) - 1
    match = (await server.http.get(f"/api/matches/{ended.view['match_id']}")).json()
    assert match["status"] == "finished"
    assert match["winner"] == ended["winner"]
    assert len(match["rounds"]) == len(rounds)


async def test_host_starts_a_new_match_after_match_over(server: Harness) -> None:
    settings = {"scoring": "none", "bot_delay_ms": 0, "turn_seconds": 0, "next_round_seconds": 0}
    host = await server.create_room("Host", settings)
    room = host["room"]
    seated = await server.connect(room, host["token"])
    assert (await seated.act("add_bot"))["type"] == "ack"
    assert (await seated.act("start"))["type"] == "ack"
    await play_scripted(seated, stop_kind="match_ended")  # scoring none: one round, one match
    first = seated.view
    assert first is not None and first["status"] == "match_over"
    assert (await seated.act("start"))["type"] == "ack"
    started = seated.seen("round_started")[-1]
    assert started.view["match_id"] != first["match_id"]
    for match_id, status in (
        (first["match_id"], "finished"),
        (started.view["match_id"], "running"),
    ):
        record = (await server.http.get(f"/api/matches/{match_id}")).json()
        assert record["status"] == status


async def test_a_table_of_bots_nobody_watches_deals_no_next_round_until_a_spectator(
    server: Harness,
) -> None:
    """Once the last person leaves a running match, the bots play the round out but no next
    round is dealt for nobody (a stranger could leave rooms of bots playing match after
    match until the idle sweep); a spectator's arrival wakes the table and the next round
    comes for them."""
    settings = {"bot_delay_ms": 0, "turn_seconds": 5, "next_round_seconds": 1}
    host = await server.create_room("Host", settings)
    room = host["room"]
    seated = await server.connect(room, host["token"])
    for _ in range(3):
        assert (await seated.act("add_bot"))["type"] == "ack"
    assert (await seated.act("start"))["type"] == "ack"
    assert (await seated.act("leave"))["type"] == "ack"
    await seated.close()
    deadline = asyncio.get_running_loop().time() + 30
    while (summary := await server.summary(room))["status"] != "round_over":
        assert summary["status"] == "playing"
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.5)  # well past next_round_seconds
    later = await server.summary(room)
    assert (later["status"], later["version"]) == ("round_over", summary["version"])
    spectator = await server.connect(room, await server.spectate(room))
    await spectator.event("round_started", timeout=10)
    await spectator.event("card_played", timeout=10)
