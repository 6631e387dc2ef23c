"""Redis flushed (FLUSHALL on a private redis-server) after a match ended, under two server
processes: every key is gone (rooms, histories, wake-ups, the round stream and its consumer
group). The room comes back from its database checkpoint (the snapshot stored at its latest
round end) the next time anyone uses it, with versions above any it sent before, and play goes
on: a new match is dealt, played to its end on both processes, and recorded once (the round
stream's consumer group is made again)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from .harness import Cluster, Player, PrivateRedis, cluster, resend
from .test_cluster_play import QUIET, deal_skips

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

# The guest holds 60 points and more: with a target of 50 the host's win ends the match.
HEAVY = ["green draw2", "yellow draw2", "yellow reverse", "yellow 9"]


async def _rounds(c: Cluster, match_id: str) -> list[int]:
    """The match's stored round numbers, once the recorder has any (else [])."""
    for _ in range(100):
        response = await c.get(1, f"/api/matches/{match_id}")
        body: dict[str, Any] = response.json() if response.status_code == 200 else {}
        if body.get("rounds"):
            return [int(r["number"]) for r in body["rounds"]]
        await asyncio.sleep(0.1)
    return []


async def _play_match(host: Player, ids: list[int]) -> None:
    for n, card in enumerate(ids):
        played = await host.act("play", card=card, uno=(n == 5))
        assert played["type"] == "ack", played


@pytest.mark.timeout(120)
async def test_redis_flushed_between_matches(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    await redis.start()
    admin = Redis.from_url(redis.url)
    try:
        async with cluster(2, tmp_path, redis_url=redis.url) as c:
            settings: dict[str, Any] = {**QUIET, "target_score": 50}
            host_reply = await c.post(0, "/api/rooms", {"name": "Host", "settings": settings})
            room = host_reply["room"]
            guest_reply = await c.post(1, f"/api/rooms/{room}/players", {"name": "Guest"})
            host, guest = Player(room, host_reply["token"]), Player(room, guest_reply["token"])
            await host.connect(c.processes[0])
            await guest.connect(c.processes[1])
            ids = await deal_skips(c, room, host, HEAVY)
            await _play_match(host, ids[0])
            assert host.history[host.version]["kind"] == "match_ended"
            first_match = host.view["match_id"]  # type: ignore[index]
            assert await _rounds(c, first_match) == [1]  # the checkpoint is in the database
            await guest.until(lambda: guest.version >= host.version, timeout=15)
            flushed_at = max(host.version, guest.version)

            assert await admin.flushall()
            assert await admin.dbsize() == 0

            # The next command brings the room back from its checkpoint and applies once.
            started = await resend(c, host, "start", "again")
            assert started["type"] == "ack", started
            assert int(started["version"]) > flushed_at  # versions never go back
            # The restored room's history begins at its jump, so a socket that missed the jump
            # is welcomed afresh (PROTOCOL: no history to replay); on a loaded machine that
            # welcome could come after the first plays below and skip their events (seen once
            # in CI). Let the sockets reach the deal before playing.
            dealt = int(started["version"])
            await host.until(lambda: host.version >= dealt, timeout=15)
            if guest.connected:
                await guest.until(lambda: guest.version >= dealt, timeout=15)
            await _play_match(host, ids[0])  # a new match: round 1 is dealt from deck_order
            final = host.version
            assert host.history[final]["kind"] == "match_ended"
            second_match = host.view["match_id"]  # type: ignore[index]
            assert second_match != first_match
            # The guest, on the other process, sees the restored room and the whole match.
            if not guest.connected:
                await guest.connect(c.processes[1])
            await guest.until(lambda: guest.version >= final, timeout=15)
            for player in (host, guest):
                after = sorted(v for v in player.history if v > flushed_at)
                assert after and after == list(range(after[0], final + 1))
                assert [player.history[v]["kind"] for v in after].count("card_played") == 7
                assert all(v > flushed_at for _, v in player.gaps)  # only the restore's jump
            assert guest.view["status"] == host.view["status"] == "match_over"  # type: ignore[index]
            # Recorded once each: the flushed consumer group was made again.
            assert await _rounds(c, second_match) == [1]
            assert await _rounds(c, first_match) == [1]
            for player in (host, guest):
                await player.close()
    finally:
        await admin.aclose()
        redis.kill()
