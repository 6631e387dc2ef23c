"""Audit 3: the room summary's `spectators` counted every spectator token ever issued, while
the view's `spectators` (docs/protocol.md section 4) counts the spectators with a socket open;
a newcomer reading the summary saw watchers where nobody watched. Both now count the people
watching now."""

from __future__ import annotations

import pytest
from e2e.harness import Harness

from blackbox.test_contract import QUIET

pytestmark = pytest.mark.timeout(60)


async def test_the_summary_counts_the_spectators_watching_now(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    room = created["room"]
    tokens = []
    for name in ("A", "B", "C"):
        answer = await server.http.post(f"/api/rooms/{room}/spectators", json={"name": name})
        assert answer.status_code == 201, answer.text
        tokens.append(answer.json()["token"])
    host = await server.connect(room, created["token"])
    assert host.view is not None and host.view["spectators"] == 0
    assert (await server.summary(room))["spectators"] == 0  # three tokens, nobody watching
    watcher = await server.connect(room, tokens[0])
    joined = await host.event("spectator_joined")
    assert joined.view["spectators"] == 1
    assert (await server.summary(room))["spectators"] == 1
    await watcher.close()
    left = await host.event("spectator_left")
    assert left.view["spectators"] == 0
    assert (await server.summary(room))["spectators"] == 0
