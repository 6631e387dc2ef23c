"""Frames built ahead of a commit's reply (Hub.prepare, through Redis): sent when the commit
wins soon after, rebuilt when it took long (their server time would be stale), and shared by
every later reader once sent."""

from __future__ import annotations

import orjson

from app.engine import new_table, parse_settings
from app.engine.events import Event
from app.store.rooms import Commit
from app.transport.frames import PREPARED_MAX_AGE_MS, commit_frames


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
