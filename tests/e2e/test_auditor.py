"""The leak auditor itself catches what it is meant to catch."""

from __future__ import annotations

import json

from e2e.harness import Harness, LeakAuditor


async def test_the_auditor_flags_foreign_cards_tokens_and_secret_keys(server: Harness) -> None:
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    room = host["room"]
    await server.join(room, "Mikko")
    a = await server.connect(room, host["token"])
    assert (await a.act("start"))["type"] == "ack"
    record = await server.service.store.load(room)
    assert record is not None
    state = record.state
    own, foreign = state.hands[0][0], state.hands[1][0]
    card = {"color": "red", "kind": "number", "value": 1}
    auditor = LeakAuditor(server.service)
    auditor.tokens.add(host["token"])

    def frame(**extra: object) -> str:
        return json.dumps({"type": "event", "version": state.version, **extra})

    await auditor.check(room, 0, frame(event={"kind": "x", "card": {"id": own, **card}}))
    assert auditor.problems == []
    await auditor.check(room, 0, frame(event={"kind": "x", "card": {"id": foreign, **card}}))
    assert len(auditor.problems) == 1
    await auditor.check(room, None, frame(event={"kind": "x", "card": {"id": own, **card}}))
    assert len(auditor.problems) == 2  # a spectator sees no hand at all
    await auditor.check(room, 0, frame(event={"kind": "x"}, note=host["token"]))
    await auditor.check(room, 0, frame(event={"kind": "x", "draw_pile": []}))
    assert len(auditor.problems) == 4
