"""The hub sends a commit's frame straight to every idle socket of the room (no wake-up of
each socket's task), and the frames are the same ones a socket's own catch-up sends."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets

from app.rooms.service import RoomService
from app.store.rooms import Commit
from app.transport.connection import Connection
from tests.e2e.harness import running_server, server_settings


async def _welcomed(url: str, token: str) -> Any:
    ws = await websockets.connect(url)
    await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
    while json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] != "welcome":
        pass
    return ws


async def test_idle_sockets_get_each_commit_from_the_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    delivered: list[bool] = []
    deliver = Connection.deliver

    def recording(self: Connection, commit: Commit, now: int) -> bool:
        done = deliver(self, commit, now)
        delivered.append(done)
        return done

    monkeypatch.setattr(Connection, "deliver", recording)
    asked: list[int] = []  # the versions the history was read from
    commits_since = RoomService.commits_since

    async def reading(self: RoomService, room: str, version: int) -> list[Commit] | None:
        asked.append(version)
        return await commits_since(self, room, version)

    monkeypatch.setattr(RoomService, "commits_since", reading)
    async with running_server(server_settings()) as harness:
        created = await harness.create_room("Host")
        room = created["room"]
        url = f"{harness.ws_base}/ws/rooms/{room}"
        host = await _welcomed(url, created["token"])
        watchers = []
        for i in range(2):
            joined = await harness.http.post(
                f"/api/rooms/{room}/spectators", json={"name": f"w{i}"}
            )
            watchers.append(await _welcomed(url, joined.json()["token"]))
        for ws in (host, *watchers):  # the spectators' arrivals are commits too
            while True:
                try:
                    await asyncio.wait_for(ws.recv(), 0.3)
                except TimeoutError:
                    break
        delivered.clear()
        for i in range(5):
            await host.send(json.dumps({"type": "chat", "id": f"c{i}", "text": f"line {i}"}))
            for ws in watchers:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
                assert frame["type"] == "events"
                assert [e["text"] for e in frame["events"]] == [f"line {i}"]
            while json.loads(await asyncio.wait_for(host.recv(), 5))["type"] != "ack":
                pass
        # Both idle spectators got all five from the hub; the host (its ack queued) from its
        # own task.
        assert delivered.count(True) >= 10, delivered
        # A commit of several events (the deal) too: the hub reads from the sockets' version,
        # not from inside the commit.
        await host.send(json.dumps({"type": "add_bot", "id": "b1"}))
        for ws in watchers:
            assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "events"
        delivered.clear()
        asked.clear()
        await host.send(json.dumps({"type": "start", "id": "s1"}))
        for ws in watchers:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert frame["type"] == "events" and len(frame["events"]) > 1
        assert delivered.count(True) >= 2, delivered
        # Only ever from a commit's boundary (the store's contract; the Redis store finds
        # nothing from inside a commit).
        dealt = frame["events"][0]["version"] - 1
        assert asked and set(asked) <= {dealt, frame["version"]}, (asked, dealt)
        for ws in (host, *watchers):
            await ws.close()
