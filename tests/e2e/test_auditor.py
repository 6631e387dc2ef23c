"""The leak auditor itself catches what it is meant to catch, in v2 `events` frames: each
event judged at its own version, the view at the frame's."""

from __future__ import annotations

import json
from typing import Any

from e2e.harness import Harness, LeakAuditor, deal_order

CARD = {"color": "red", "kind": "number", "value": 1}


def card(cid: int) -> dict[str, Any]:
    return {"id": cid, **CARD}


def events_frame(version: int, *events: dict[str, Any], view: Any = None) -> str:
    return json.dumps(
        {"type": "events", "version": version, "events": list(events), "view": view or {}}
    )


async def test_the_auditor_flags_foreign_cards_tokens_and_secret_keys(server: Harness) -> None:
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    room = host["room"]
    await server.join(room, "Mikko")
    auditor = LeakAuditor(server.service)  # listens to every commit from here on
    auditor.tokens.add(host["token"])
    a = await server.connect(room, host["token"])
    assert (await a.act("start"))["type"] == "ack"
    record = await server.service.store.load(room)
    assert record is not None
    state = record.state
    v = state.version
    own, foreign = state.hands[0][0], state.hands[1][0]
    hidden_in_pile = state.draw_pile[-1]

    def event(cid: int, version: int = v, kind: str = "x") -> dict[str, Any]:
        return {"version": version, "kind": kind, "card": card(cid)}

    await auditor.check(room, 0, events_frame(v, event(own), view={"you": {"hand": [card(own)]}}))
    assert auditor.problems == []
    await auditor.check(room, 0, events_frame(v, event(foreign)))
    assert len(auditor.problems) == 1
    await auditor.check(room, None, events_frame(v, event(own)))
    assert len(auditor.problems) == 2  # a spectator sees no hand at all
    await auditor.check(room, 0, events_frame(v, event(hidden_in_pile)))
    assert len(auditor.problems) == 3  # nor the draw pile
    await auditor.check(room, 0, events_frame(v, {"version": v, "kind": "x", "n": host["token"]}))
    await auditor.check(room, 0, events_frame(v, {"version": v, "kind": "x", "draw_pile": []}))
    assert len(auditor.problems) == 5
    await auditor.check(room, 0, events_frame(v, {"kind": "x"}, view={"hand": [card(foreign)]}))
    assert len(auditor.problems) == 6  # the view, judged at the frame's version
    await auditor.check(room, 0, json.dumps({"type": "ack", "id": "c1", "card": card(own)}))
    assert len(auditor.problems) == 7  # cards outside events and views: never
    await auditor.check(room, 0, events_frame(v + 50, event(own, v + 50)))
    assert len(auditor.problems) == 8  # a version the server never reached
    welcome = {"type": "welcome", "you": {"seat": 1}, "version": v, "view": {"h": [card(own)]}}
    await auditor.check(room, 0, json.dumps(welcome))
    assert len(auditor.problems) == 9  # the welcome's `you` names the recipient


async def test_each_event_is_judged_at_its_own_version(server: Harness) -> None:
    """Seat 0 plays card X: in an event of the version before, X is still a foreign card to
    seat 1; from the play on it lies on the discard pile for all to see."""
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    room = host["room"]
    await server.join(room, "Mikko")
    order, ids, _ = deal_order(await server.deck(room), [["red 3"], ["blue 4"]], "red 9", 1)
    auditor = LeakAuditor(server.service)
    a = await server.connect(room, host["token"])
    assert (await a.act("settings", settings={"dealer": 1, "deck_order": order}))["type"] == "ack"
    before = (await a.act("start"))["version"]
    x = ids[0][0]
    assert x in auditor.truth[(room, before)].hands[0]
    played = await a.act("play", card=x)
    assert played["type"] == "ack"
    v = played["version"]
    await auditor.check(room, 1, events_frame(v, event_at(v, x), view={"top": card(x)}))
    assert auditor.problems == []
    await auditor.check(room, 1, events_frame(v, event_at(before, x), event_at(v, x)))
    assert len(auditor.problems) == 1 and f"at version {before}" in auditor.problems[0]
    # The view is judged at the frame's version: the same view at `before` leaks X.
    await auditor.check(
        room, 1, events_frame(before, {"version": before, "kind": "x"}, view={"t": card(x)})
    )
    assert len(auditor.problems) == 2 and "view" in auditor.problems[1]


def event_at(version: int, cid: int) -> dict[str, Any]:
    return {"version": version, "kind": "x", "card": card(cid)}


async def test_the_challenged_hand_is_exempt_for_the_challenger_alone(server: Harness) -> None:
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    room = host["room"]
    await server.join(room, "Mikko")
    auditor = LeakAuditor(server.service)
    a = await server.connect(room, host["token"])
    assert (await a.act("start"))["type"] == "ack"
    record = await server.service.store.load(room)
    assert record is not None
    v = record.state.version
    offender_hand = [card(c) for c in record.state.hands[1]]
    resolved = {"version": v, "kind": "challenge_resolved", "seat": 0, "offender": 1}
    await auditor.check(room, 0, events_frame(v, {**resolved, "hand": offender_hand}))
    assert auditor.problems == []
    await auditor.check(room, 0, events_frame(v, {**resolved, "seat": 1, "hand": offender_hand}))
    assert len(auditor.problems) == 1  # shown to someone who did not challenge
    await auditor.check(room, 0, events_frame(v, {**resolved, "other": offender_hand}))
    assert len(auditor.problems) == 2  # only the `hand` field is exempt


async def test_the_harness_auditor_has_a_state_for_every_version(server: Harness) -> None:
    host = await server.create_room("Ayşe", {"turn_seconds": 0})
    room = host["room"]
    await server.join(room, "Mikko")
    a = await server.connect(room, host["token"])
    assert (await a.act("start"))["type"] == "ack"
    assert (await a.act("chat", text="hi"))["type"] == "ack"
    auditor = server.auditor
    assert auditor.missing_after == 0
    first = a.events[0]["version"]
    for version in range(first, a.version + 1):
        assert (room, version) in auditor.truth, version
    assert auditor.truth[(room, a.version)].status == "playing"
