"""kill -9 of one of three processes mid-round: its players reconnect to another process
(resuming with `since`), the round finishes (the seats' bots play it out, each move a timer
claimed by whichever process), every client sees contiguous versions and converges, each
seat's turn timer fired once, and the round is stored once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from .harness import Player, cluster
from .test_cluster_play import deal_skips

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

# Nobody acts: each seat's turn runs out once (the timeout draws and passes), a bot takes the
# seat (afk_timeouts 1) and the bots play the round to its end; no next round by itself.
SETTINGS = {
    "turn_seconds": 5,
    "afk_timeouts": 1,
    "bot_delay_ms": 30,
    "next_round_seconds": 0,
}


@pytest.mark.timeout(120)
async def test_a_process_killed_mid_round(tmp_path: Path) -> None:
    # The bots' moves are timers, each found by a process's poll of the wake-up index: every
    # 20 ms instead of 100 ms, so that their hundred-odd moves take 2 s and not 10 s.
    env = {"REDIS_CLAIM_LEASE_MS": "1000", "REDIS_ROUND_CLAIM_MS": "2000", "REDIS_POLL_MS": "20"}
    async with cluster(3, tmp_path, **env) as c:
        host_reply = await c.post(0, "/api/rooms", {"name": "Host", "settings": SETTINGS})
        room = host_reply["room"]
        guest_reply = await c.post(1, f"/api/rooms/{room}/players", {"name": "Guest"})
        host, guest = Player(room, host_reply["token"]), Player(room, guest_reply["token"])
        await host.connect(c.processes[0])
        await guest.connect(c.processes[1])
        # A short round: seat 0's bot holds six Skips (two players: it plays again after each).
        await deal_skips(c, room, host)

        def took_over() -> int:
            return sum(1 for e in guest.history.values() if e["kind"] == "bot_took_over")

        await guest.until(lambda: took_over() == 2, timeout=30)  # both seats' timers ran out
        # The bots play now: processes commit, claim and wake while one of them dies.
        c.processes[0].kill()
        assert not any(e["kind"] == "round_ended" for e in guest.history.values())
        await host.until(lambda: not host.connected, timeout=10)
        await host.connect(c.processes[2])  # hello with `since`: the missed commits first

        def ended(p: Player) -> bool:
            return any(e["kind"] == "round_ended" for e in p.history.values())

        await asyncio.gather(
            host.until(lambda: ended(host), 60), guest.until(lambda: ended(guest), 60)
        )
        final = max(host.version, guest.version)
        await host.until(lambda: host.version >= final)
        await guest.until(lambda: guest.version >= final)
        for player in (host, guest):
            assert player.gaps == []
            versions = sorted(player.history)
            assert versions == list(range(versions[0], versions[-1] + 1))
            assert player.view is not None and player.view["status"] == "round_over"
        common = set(host.history) & set(guest.history)
        assert all(host.history[v]["kind"] == guest.history[v]["kind"] for v in common)
        # Each seat's turn timer fired exactly once before its bot took over.
        timeline = [guest.history[v] for v in sorted(guest.history)]
        for seat in (0, 1):
            takeover = next(
                i
                for i, e in enumerate(timeline)
                if e["kind"] == "bot_took_over" and e["seat"] == seat
            )
            expiries = [
                e
                for e in timeline[:takeover]
                if e["kind"] == "timer_expired" and e["timer"] == "turn" and e["seat"] == seat
            ]
            assert len(expiries) == 1, expiries
        # Stored once, through the round stream (a dead consumer's entry is claimed).
        match_id = guest.view["match_id"]  # type: ignore[index]
        body = {}
        for _ in range(150):
            response = await c.get(1, f"/api/matches/{match_id}")
            body = response.json() if response.status_code == 200 else {}
            if body.get("rounds"):
                break
            await asyncio.sleep(0.1)
        assert [r["number"] for r in body["rounds"]] == [1]
        for player in (host, guest):
            await player.close()
