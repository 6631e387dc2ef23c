"""Frames built ahead of a commit's reply (Hub.prepare, through Redis): sent when the commit
wins soon after, rebuilt when it took long (their server time would be stale), and shared by
every later reader once sent."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from app.engine import new_table, parse_settings
from app.engine.events import Event
from app.store.rooms import Commit
from app.transport.connection import SEND_NOW_EXTENSION, Connection
from app.transport.frames import PREPARED_MAX_AGE_MS, CommitFrames, commit_frames

from .welcomed import welcomed_connection


def _commit(version: int = 1) -> Commit:
    state = new_table("r1", parse_settings({}))
    state.version = version
    return Commit([Event("chat", version, {"text": "hi"}, {})], state)


def _server_time(frame: bytes) -> int:
    return int(orjson.loads(frame)["view"]["server_time"])


def test_frames_built_ahead_are_the_ones_sent_when_the_reply_comes_soon() -> None:
    commit = _commit()
    ahead = commit_frames(commit, 1_000, ahead=True)
    frame = ahead.for_seat(None)
    assert commit_frames(commit, 1_000 + PREPARED_MAX_AGE_MS) is ahead
    assert commit_frames(commit, 1_000 + PREPARED_MAX_AGE_MS).for_seat(None) is frame
    # Once sent, every later reader (a slow socket catching up) shares them, as before.
    assert commit_frames(commit, 60_000) is ahead
    # A second "ahead" request (another socket of the room) shares them too.
    assert commit_frames(commit, 60_000, ahead=True) is ahead


def test_frames_built_ahead_of_a_slow_reply_are_built_again() -> None:
    commit = _commit()
    ahead = commit_frames(commit, 1_000, ahead=True)
    assert _server_time(ahead.for_seat(None)) == 1_000
    late = 1_000 + PREPARED_MAX_AGE_MS + 1
    sent = commit_frames(commit, late)
    assert sent is not ahead
    assert _server_time(sent.for_seat(None)) == late
    assert commit_frames(commit, late + 60_000) is sent


class _DirectSocket:
    """A socket whose scope offers the direct send path (as the served app's does)."""

    def __init__(self) -> None:
        self.direct: list[bytes] = []
        self.scope: dict[str, Any] = {
            "type": "websocket",
            "extensions": {SEND_NOW_EXTENSION: self._send_now},
        }

    def _send_now(self, frames: list[bytes]) -> bool:
        self.direct.extend(frames)
        return True

    async def send_text(self, text: str) -> None:
        return None

    async def send_bytes(self, data: bytes) -> None:
        return None

    async def close(self, code: int = 1000, reason: str = "") -> None:
        return None


async def _idle_connection_and_next_commit() -> tuple[Connection, Commit, _DirectSocket]:
    """A welcomed socket waiting with nothing to send, and a commit right after its version."""
    ws = _DirectSocket()
    service, room, _who, conn = await welcomed_connection(ws)
    async with asyncio.timeout(5):
        while not conn._idle:
            await asyncio.sleep(0.01)
    record = await service.store.load(room)
    assert record is not None
    record.state.version = conn.version + 1
    return conn, Commit([Event("chat", conn.version + 1, {"text": "hi"}, {})], record.state), ws


async def test_a_socket_sends_the_frame_it_built_ahead_without_building_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conn, commit, ws = await _idle_connection_and_next_commit()
    built: list[int | None] = []
    for_seat = CommitFrames.for_seat

    def counted(self: CommitFrames, seat: int | None) -> bytes:
        built.append(seat)
        return for_seat(self, seat)

    monkeypatch.setattr(CommitFrames, "for_seat", counted)
    conn.prepare(commit, 1_000)
    assert built == [0]
    prepared = commit_frames(commit, 1_000, ahead=True).for_seat(0)
    built.clear()
    assert conn.deliver(commit, 1_000 + PREPARED_MAX_AGE_MS)
    assert built == []  # sent as prepared: no lookup of the seat or its frame again
    assert ws.direct[-1] is prepared
    await conn.stop()


async def test_a_socket_builds_again_a_frame_prepared_too_long_ago() -> None:
    conn, commit, ws = await _idle_connection_and_next_commit()
    conn.prepare(commit, 1_000)
    late = 1_000 + PREPARED_MAX_AGE_MS + 1
    assert conn.deliver(commit, late)
    assert _server_time(ws.direct[-1]) == late
    await conn.stop()
