"""Redis killed (kill -9) and restarted from its AOF mid-round, under two server processes:
while it is down a command is answered `unavailable` and nothing is applied; once it is back
(functions, rooms, consumer group and all, from the AOF) the resent command applies once, the
pub/sub connections are re-established, and the round finishes with contiguous versions and
is stored once."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from .harness import Player, PrivateRedis, cluster
from .test_cluster_play import QUIET, deal_skips

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]


@pytest.mark.timeout(120)
async def test_redis_restarted_mid_round(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    await redis.start()
    try:
        async with cluster(2, tmp_path, redis_url=redis.url) as c:
            host_reply = await c.post(0, "/api/rooms", {"name": "Host", "settings": QUIET})
            room = host_reply["room"]
            guest_reply = await c.post(1, f"/api/rooms/{room}/players", {"name": "Guest"})
            host, guest = Player(room, host_reply["token"]), Player(room, guest_reply["token"])
            await host.connect(c.processes[0])
            await guest.connect(c.processes[1])
            ids = await deal_skips(c, room, host)
            for n in range(3):
                assert (await host.act("play", card=ids[0][n]))["type"] == "ack"
            before = host.version

            redis.kill()
            # Not acknowledged: an `unavailable` error, or the socket closes (the server could
            # not read the room to send what precedes the error); nothing was applied.
            refused = await host.act("play", "p3", card=ids[0][3])
            assert refused["type"] == "closed" or refused.get("code") == "unavailable", refused
            await redis.start()  # the same port and AOF

            reply: dict[str, object] = {}
            for attempt in range(50):  # resend the same id, as a client does, until acked
                if not host.connected:
                    with contextlib.suppress(Exception):
                        await host.connect(c.processes[attempt % 2])
                    if not host.connected:
                        await asyncio.sleep(0.2)
                        continue
                host.replies.pop("p3", None)
                reply = await host.act("play", "p3", card=ids[0][3])
                if reply["type"] == "ack":
                    break
                await asyncio.sleep(0.2)
            assert reply["type"] == "ack" and int(reply["version"]) > before  # type: ignore[call-overload]
            for n in range(4, 7):
                played = await host.act("play", card=ids[0][n], uno=(n == 5))
                assert played["type"] == "ack", played
            final = host.version
            await guest.until(lambda: guest.version >= final, timeout=15)
            for player in (host, guest):
                assert player.gaps == []
                versions = sorted(player.history)
                assert versions == list(range(versions[0], versions[-1] + 1))
                kinds = [player.history[v]["kind"] for v in versions]
                assert kinds.count("card_played") == 7 and kinds[-1] in (
                    "round_ended",
                    "match_ended",
                )
            match_id = host.view["match_id"]  # type: ignore[index]
            body: dict[str, object] = {}
            for _ in range(100):
                response = await c.get(1, f"/api/matches/{match_id}")
                body = response.json() if response.status_code == 200 else {}
                if body.get("rounds"):
                    break
                await asyncio.sleep(0.1)
            assert [r["number"] for r in body["rounds"]] == [1]  # type: ignore[attr-defined]
            for player in (host, guest):
                await player.close()
    finally:
        redis.kill()
