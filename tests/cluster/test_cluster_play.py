"""Three server processes share Redis and PostgreSQL: the players of one room sit on
different processes and play; the pub/sub connections are killed mid-round; ten clients on
three processes race; a resent command id applies once across processes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from e2e.harness import deal_order

from tests.on_redis.conftest import kill_pubsub

from .harness import Cluster, Player, cluster

pytestmark = [
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),  # the processes are started once per module
]

SKIPS = ["red skip", "red skip", "green skip", "green skip", "blue skip", "blue skip", "blue 1"]
QUIET = {"turn_seconds": 0, "next_round_seconds": 0}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def three(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Cluster]:
    async with cluster(3, tmp_path_factory.mktemp("cluster")) as running:
        yield running


async def _room(c: Cluster, settings: dict[str, Any]) -> tuple[str, Player]:
    host = await c.post(0, "/api/rooms", {"name": "Host", "settings": settings})
    return host["room"], Player(host["room"], host["token"])


async def _join(c: Cluster, index: int, room: str, name: str) -> Player:
    joined = await c.post(index, f"/api/rooms/{room}/players", {"name": name})
    return Player(room, joined["token"])


async def deal_skips(
    c: Cluster, room: str, host: Player, guest_hand: list[str] | None = None
) -> list[list[int]]:
    """Deal the host (seat 0) six Skips and the guest `guest_hand`, a red 5 up, seat 1 dealing:
    with two players the host plays again after each Skip. The dealt card ids per seat."""
    deck = (await c.get(1, f"/api/rooms/{room}/deck")).json()["cards"]
    order, ids, _ = deal_order(deck, [SKIPS, guest_hand or ["yellow 2"]], "red 5", dealer=1)
    hooks = {"dealer": 1, "deck_order": order}
    assert (await host.act("settings", settings=hooks))["type"] == "ack"
    assert (await host.act("start"))["type"] == "ack"
    return ids


def _contiguous(player: Player) -> list[int]:
    versions = sorted(player.history)
    assert player.gaps == []
    assert versions == list(range(versions[0], versions[-1] + 1))
    return versions


@pytest.mark.timeout(90)
async def test_players_on_different_processes_play_a_round(three: Cluster) -> None:
    room, host = await _room(three, QUIET)
    guest = await _join(three, 1, room, "Guest")
    watcher = Player(room, (await three.post(2, f"/api/rooms/{room}/spectators", {}))["token"])
    for player, process in ((host, 0), (guest, 1), (watcher, 2)):
        await player.connect(three.processes[process])
    ids = await deal_skips(three, room, host)
    for n, card in enumerate(ids[0]):
        if n == 3:  # every process's pub/sub connection dies; the watchdogs repair them
            assert await kill_pubsub(three.redis, three.prefix) >= 3
        reply = await host.act("play", card=card, uno=(n == 5))
        assert reply["type"] == "ack", reply
    final = host.version
    for player in (guest, watcher):
        await player.until(lambda p=player: p.version >= final)  # type: ignore[misc]
    for player in (host, guest, watcher):
        _contiguous(player)
        assert player.history[final]["kind"] in ("round_ended", "match_ended")
        assert player.view is not None and player.view["status"] == "round_over"
    ended = next(e for e in host.history.values() if e["kind"] == "round_ended")
    assert ended["winner"] == 0
    # The round reaches the database once, through the round stream, whoever consumed it.
    match_id = host.view["match_id"]  # type: ignore[index]
    for _ in range(100):
        response = await three.get(2, f"/api/matches/{match_id}")
        if response.status_code == 200 and response.json()["rounds"]:
            break
        await asyncio.sleep(0.1)
    body = response.json()
    assert [r["number"] for r in body["rounds"]] == [1]
    assert body["rounds"][0]["winner"] == 0
    for player in (host, guest, watcher):
        await player.close()


@pytest.mark.timeout(90)
async def test_ten_clients_on_three_processes_race(three: Cluster) -> None:
    room, host = await _room(three, {**QUIET, "false_catch_penalty": 0})
    players = [host] + [await _join(three, n % 3, room, f"P{n}") for n in range(1, 10)]
    for n, player in enumerate(players):
        await player.connect(three.processes[n % 3])
    assert (await host.act("start"))["type"] == "ack"
    await asyncio.gather(*(p.until(lambda p=p: p.view["status"] == "playing") for p in players))  # type: ignore[misc,index]
    # All at once: a chat, an UNO call and a catch from everyone (most are refused).
    sent: list[tuple[Player, list[str]]] = []
    for n, player in enumerate(players):
        ids = [
            await player.send("chat", f"chat-{n}", text=f"hello {n}"),
            await player.send("uno", f"uno-{n}"),
            await player.send("catch", f"catch-{n}", seat=(n + 1) % 10),
        ]
        sent.append((player, ids))
    for player, ids in sent:
        for command_id in ids:
            reply = await player.reply(command_id)
            assert reply["type"] in ("ack", "error")
    chats = {p.replies[ids[0]]["version"] for p, ids in sent}
    assert len(chats) == 10  # ten chats, ten versions
    # Each resends its chat through another process: the same ack, not applied again.
    for n, player in enumerate(players):
        await player.connect(three.processes[(n + 1) % 3])
        first = player.replies.pop(f"chat-{n}")
        assert await player.act("chat", f"chat-{n}", text=f"hello {n}") == first
    final = max(p.version for p in players)
    await asyncio.gather(*(p.until(lambda p=p: p.version >= final) for p in players))  # type: ignore[misc]
    texts = [e["text"] for e in host.history.values() if e["kind"] == "chat"]
    assert sorted(texts) == sorted(f"hello {n}" for n in range(10))
    views = [p.view for p in players]
    for player in players:
        _contiguous(player)
    state = views[0]["state"]  # type: ignore[index]
    cards = sum(s["hand_count"] for s in views[0]["seats"])  # type: ignore[index]
    assert cards + state["draw_count"] + state["discard_count"] == 109  # gdj85: conserved
    assert {p.version for p in players} == {final}
    for player in players:
        await player.close()
