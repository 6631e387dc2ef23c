"""Audit 3: a refused setting's error named the unknown key in full, so a client could have
any text of up to a frame's (16 KiB) or a body's (64 KiB) size, control and bidi characters
included, sent back in an error message. The message now names at most the key's first 32
characters, quoted (as `unknown_type` does for a frame type)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from e2e.harness import Harness, running_server, server_settings

LONG_KEY = "k" * 5000 + "\u202e\x1b[31m"


@pytest.fixture
async def server() -> AsyncIterator[Harness]:
    async with running_server(server_settings()) as harness:
        yield harness


def _bounded(message: str) -> None:
    assert "unknown" in message
    assert len(message) <= 100, message
    assert "\u202e" not in message and "\x1b" not in message


async def test_an_unknown_setting_over_http_is_named_briefly(server: Harness) -> None:
    for settings in ({LONG_KEY: 1}, {"custom_wilds": [{"effect": "reverse", LONG_KEY: 1}]}):
        answer = await server.http.post("/api/rooms", json={"name": "A", "settings": settings})
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error["code"] == "bad_settings"
        _bounded(error["message"])


async def test_an_unknown_setting_over_the_socket_is_named_briefly(server: Harness) -> None:
    created = await server.create_room("A", {})
    host = await server.connect(created["room"], created["token"])
    for settings in ({LONG_KEY: 1}, {"custom_wilds": [{"effect": "reverse", LONG_KEY: 1}]}):
        reply = await host.act("settings", settings=settings)
        assert reply["type"] == "error" and reply["code"] == "bad_settings", reply
        _bounded(reply["message"])
    short = await host.act("settings", settings={"colour": 1})
    assert short["message"] == "unknown setting: 'colour'"
