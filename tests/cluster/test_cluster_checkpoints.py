"""Redis flushed (FLUSHALL on a private redis-server) in the middle of a round and in a lobby,
under two server processes that checkpoint the rooms they change every 0.3 s.

What docs/deploy.md promises, checked here: the room comes back exactly as its newest
checkpoint in the database holds it (every command acknowledged up to that version is in it:
the host's hand, the discard, the turn, the lobby's seats and settings), only the moves after
it are lost, and versions never go back (the room continues above its version ceiling). Then
play goes on to the round's end, which is stored once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from .harness import Cluster, Player, PrivateRedis, cluster, resend
from .test_cluster_play import QUIET, deal_skips
from .test_cluster_redis_flush import _rounds

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

INTERVAL = "0.3"


async def _checkpoint_version(c: Cluster, room: str) -> int:
    """The version of the room's checkpoint in the database (0: none)."""
    engine = create_async_engine(c.database_url)
    try:
        async with engine.connect() as conn:
            row = (
                await conn.execute(
                    text("SELECT version FROM room_checkpoints WHERE room = :room"),
                    {"room": room},
                )
            ).first()
        return int(row.version) if row is not None else 0
    finally:
        await engine.dispose()


async def _checkpointed(c: Cluster, room: str, version: int) -> int:
    """Wait until the database holds a checkpoint of `room` at `version` or later."""
    for _ in range(100):
        stored = await _checkpoint_version(c, room)
        if stored >= version:
            return stored
        await asyncio.sleep(0.1)
    raise AssertionError(f"no checkpoint at version {version} (have {stored})")


async def _table(c: Cluster, settings: dict[str, Any]) -> tuple[str, Player, Player]:
    host_reply = await c.post(0, "/api/rooms", {"name": "Host", "settings": settings})
    room = host_reply["room"]
    guest_reply = await c.post(1, f"/api/rooms/{room}/players", {"name": "Guest"})
    host, guest = Player(room, host_reply["token"]), Player(room, guest_reply["token"])
    await host.connect(c.processes[0])
    await guest.connect(c.processes[1])
    return room, host, guest


def _contiguous_after(player: Player, flushed_at: int, final: int) -> list[int]:
    after = sorted(v for v in player.history if v > flushed_at)
    assert after and after == list(range(after[0], final + 1))
    assert all(v > flushed_at for _, v in player.gaps)  # only the restore's jump
    return after


@pytest.mark.timeout(120)
async def test_a_round_in_progress_comes_back_from_its_checkpoint(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    await redis.start()
    admin = Redis.from_url(redis.url)
    try:
        async with cluster(2, tmp_path, redis_url=redis.url, CHECKPOINT_SECONDS=INTERVAL) as c:
            room, host, guest = await _table(c, dict(QUIET))
            ids = await deal_skips(c, room, host)
            # Three skips: the host plays again after each (two players).
            for card in ids[0][:3]:
                assert (await host.act("play", card=card))["type"] == "ack"
            acked = host.version
            await guest.until(lambda: guest.version >= acked)
            checkpoint = await _checkpointed(c, room, acked)
            assert checkpoint == acked  # nothing moved since: the checkpoint is the table now
            hand = host.hands[acked]
            assert not hand & set(ids[0][:3]) and len(hand) == 4
            flushed_at = max(host.version, guest.version)

            assert await admin.flushall()

            # The next command restores the round from the checkpoint and applies once.
            played = await resend(c, host, "play", "after-flush", card=ids[0][3])
            assert played["type"] == "ack", played
            assert int(played["version"]) > flushed_at  # versions never go back
            restored = host.view
            assert restored is not None and restored["status"] == "playing"
            assert host.hands[host.version] == hand - {ids[0][3]}
            assert restored["round"] == 1
            # Both sockets stayed open: their processes record their seats again (their
            # presence keys were flushed too) and show them connected.
            await host.until(
                lambda: all(seat["connected"] for seat in host.view["seats"]),  # type: ignore[index]
                timeout=8,
            )
            # The rest of the round: two skips and the winning card.
            for n, card in enumerate(ids[0][4:]):
                reply = await host.act("play", card=card, uno=(n == 1))
                assert reply["type"] == "ack", reply
            final = host.version
            assert host.history[final]["kind"] in ("round_ended", "match_ended")
            if not guest.connected:
                await guest.connect(c.processes[1])
            await guest.until(lambda: guest.version >= final, timeout=15)
            for player in (host, guest):
                after = _contiguous_after(player, flushed_at, final)
                kinds = [player.history[v]["kind"] for v in after]
                # The first play after the flush may come inside the welcome that jumps over
                # the restore (the history before the restored version is gone).
                assert kinds.count("card_played") in (3, 4)
                assert player.view is not None and player.view["status"] != "playing"
            match_id = host.view["match_id"]  # type: ignore[index]
            assert await _rounds(c, match_id) == [1]  # stored once
            for player in (host, guest):
                await player.close()
    finally:
        await admin.aclose()
        redis.kill()


@pytest.mark.timeout(120)
async def test_a_lobby_comes_back_from_its_checkpoint(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    await redis.start()
    admin = Redis.from_url(redis.url)
    try:
        async with cluster(2, tmp_path, redis_url=redis.url, CHECKPOINT_SECONDS=INTERVAL) as c:
            room, host, guest = await _table(c, dict(QUIET))
            settings = {"target_score": 123}
            assert (await host.act("settings", settings=settings))["type"] == "ack"
            assert (await host.act("add_bot"))["type"] == "ack"
            acked = host.version
            await guest.until(lambda: guest.version >= acked)
            await _checkpointed(c, room, acked)
            flushed_at = max(host.version, guest.version)

            assert await admin.flushall()

            # Another guest joins through the other process: the lobby is back as it was.
            third = await c.post(1, f"/api/rooms/{room}/players", {"name": "Third"})
            summary = (await c.get(0, f"/api/rooms/{room}")).json()
            assert summary["status"] == "lobby"
            assert summary["version"] > flushed_at
            assert summary["settings"]["target_score"] == 123
            seats = summary["seats"]
            assert [s["name"] for s in seats[:2]] == ["Host", "Guest"]
            assert seats[2]["bot"] is True
            assert len(seats) == 4 and third["seat"] == 3
            # The guest's old socket may hear the restored room, or be closed by its
            # process's watchdog when it finds the room gone, at any moment of the next 2 s.
            # A lobby seat whose socket is closed at `start` is not dealt in (the lobby frees
            # departed seats), so the guest comes back now, as the page does on a close, and
            # the host deals once the room shows the guest connected. The old credentials
            # still work.
            await guest.connect(c.processes[1])

            async def guest_seated() -> bool:
                seats = (await c.get(0, f"/api/rooms/{room}")).json()["seats"]
                return bool(seats[1]["connected"])

            deadline = asyncio.get_running_loop().time() + 10
            while not await guest_seated():
                assert asyncio.get_running_loop().time() < deadline
                await asyncio.sleep(0.05)
            assert (await resend(c, host, "start", "deal"))["type"] == "ack"
            final = host.version
            await guest.until(lambda: guest.version >= final, timeout=15)
            for player in (host, guest):
                _contiguous_after(player, flushed_at, final)
                assert player.view is not None and player.view["status"] == "playing"
            for player in (host, guest):
                await player.close()
    finally:
        await admin.aclose()
        redis.kill()
