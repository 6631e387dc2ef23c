"""Client frames are parsed once into typed commands; anything else is refused by code."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import actions as act
from app.rooms.commands import Command
from app.transport.commands import FrameError, Hello, Ping, decode, parse


def _command(data: dict[str, Any]) -> Command:
    frame = parse(data)
    assert isinstance(frame, Command)
    return frame


def test_every_command_maps_to_its_engine_action() -> None:
    cases: list[tuple[dict[str, Any], act.Action]] = [
        ({"type": "start"}, act.Start()),
        ({"type": "choose", "color": "red"}, act.Choose("red")),
        (
            {"type": "settings", "settings": {"uno_penalty": 4}},
            act.ChangeSettings({"uno_penalty": 4}),
        ),
        ({"type": "add_bot"}, act.AddBot()),
        ({"type": "remove_bot", "seat": 2}, act.RemoveBot(2)),
        ({"type": "play", "card": 17}, act.Play(17, None, None, False)),
        (
            {"type": "play", "card": 17, "color": "red", "target": 2, "uno": True},
            act.Play(17, "red", 2, True),
        ),
        ({"type": "draw"}, act.Draw()),
        ({"type": "pass"}, act.Pass()),
        ({"type": "uno"}, act.DeclareUno()),
        ({"type": "catch", "seat": 1}, act.Catch(1)),
        ({"type": "challenge"}, act.Challenge()),
        ({"type": "accept"}, act.Accept()),
        ({"type": "chat", "text": "gg"}, act.Chat("gg")),
        ({"type": "leave"}, act.Leave()),
    ]
    for data, action in cases:
        command = _command({**data, "id": "c1", "at": 4, "extra": "ignored"})
        assert command.action == action
        assert (command.command_id, command.at, command.type) == ("c1", 4, data["type"])


def test_hello_and_ping() -> None:
    assert parse({"type": "hello", "token": "t", "since": None}) == Hello("t", None)
    assert parse({"type": "hello", "token": "t", "since": 9}) == Hello("t", 9)
    assert parse({"type": "hello", "token": "t"}) == Hello("t", None)
    assert parse({"type": "ping"}) == Ping(None)
    assert parse({"type": "ping", "id": "p"}) == Ping("p")


@pytest.mark.parametrize(
    ("data", "code", "command_id"),
    [
        ({}, "bad_frame", None),
        ({"type": None, "id": "a"}, "bad_frame", "a"),
        ({"type": "dance", "id": "a"}, "unknown_type", "a"),
        ({"type": "draw"}, "bad_frame", None),
        ({"type": "draw", "id": ""}, "bad_frame", None),
        ({"type": "draw", "id": "x" * 65}, "bad_frame", None),
        ({"type": "draw", "id": 3}, "bad_frame", None),
        ({"type": "draw", "id": "a", "at": True}, "bad_frame", "a"),
        ({"type": "draw", "id": "a", "at": 1.5}, "bad_frame", "a"),
        ({"type": "play", "id": "a", "card": True}, "bad_frame", "a"),
        ({"type": "play", "id": "a", "card": 1, "color": 3}, "bad_frame", "a"),
        ({"type": "play", "id": "a", "card": 1, "target": "2"}, "bad_frame", "a"),
        ({"type": "play", "id": "a", "card": 1, "uno": 1}, "bad_frame", "a"),
        ({"type": "remove_bot", "id": "a"}, "bad_frame", "a"),
        ({"type": "choose", "id": "a", "color": ["red"]}, "bad_frame", "a"),
        ({"type": "settings", "id": "a", "settings": None}, "bad_frame", "a"),
        ({"type": "chat", "id": "a", "text": "x" * 301}, "bad_frame", "a"),
        ({"type": "hello", "token": 5}, "bad_frame", None),
        ({"type": "hello", "token": "t", "since": "3"}, "bad_frame", None),
    ],
)
def test_refused_frames(data: dict[str, Any], code: str, command_id: str | None) -> None:
    with pytest.raises(FrameError) as refused:
        parse(data)
    assert refused.value.code == code
    assert refused.value.command_id == command_id


@pytest.mark.parametrize("text", ["", "nope", "[]", "3", '"hello"', "{" * 100_000])
def test_decode_refuses_anything_but_an_object(text: str) -> None:
    with pytest.raises(FrameError) as refused:
        decode(text)
    assert refused.value.code == "bad_frame"
