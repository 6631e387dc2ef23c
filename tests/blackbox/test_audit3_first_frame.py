"""Audit 3: a first frame that is a command (not `hello`) is refused and the socket closed
4401, as before; the refusal now echoes the command's `id` when it could be read, as every
other refusal of a command does (docs/protocol.md: `error` carries `id` "when answering a
command whose `id` could be read"), so a client matching replies by id is not left waiting."""

from __future__ import annotations

from typing import Any

import pytest
from e2e.harness import Harness

from blackbox.test_contract import QUIET
from blackbox.test_wire import closed_with

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("first", "code"),
    [
        ({"type": "chat", "id": "c1", "text": "hi"}, "unauthorized"),
        ({"type": "draw", "id": "d1"}, "unauthorized"),
        ({"type": "dance", "id": "x1"}, "unknown_type"),
        ({"type": "play", "id": "p1", "card": "5"}, "bad_frame"),
        ({"type": "ping", "id": "q1"}, "unauthorized"),
    ],
)
async def test_a_first_command_is_refused_with_its_id_then_closed_4401(
    server: Harness, first: dict[str, Any], code: str
) -> None:
    created = await server.create_room("H", QUIET)
    client = await server.open(created["room"])
    await client.send(first)
    reply = await client.recv()
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert reply.get("id") == first["id"], reply
    assert isinstance(reply["message"], str) and reply["message"]
    assert await closed_with(client) == 4401


async def test_a_first_frame_without_a_readable_id_is_refused_without_one(
    server: Harness,
) -> None:
    created = await server.create_room("H", QUIET)
    client = await server.open(created["room"])
    await client.send({"type": "draw", "id": 5})
    reply = await client.recv()
    assert reply["type"] == "error" and "id" not in reply, reply
    assert await closed_with(client) == 4401
