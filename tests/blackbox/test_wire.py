"""More of PROTOCOL.md, statement by statement, as a black-box tester would check it: the
error code (and the echoed `id`) for each bad input, the socket surviving bad frames, the
first-frame rules, `since`, resends, `stale`, spectators, redaction of draws, Flip views,
turned-up wilds, the round and match cycle, and the HTTP answers not covered in
test_contract.py."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
import websockets
from e2e.harness import (
    Client,
    Harness,
    card_ids,
    consecutive,
    deal_order,
    kinds,
    running_server,
    server_settings,
)

from blackbox.test_contract import QUIET, check_view, hooked_table, is_error

pytestmark = pytest.mark.timeout(60)

COLORS = ["red", "yellow", "green", "blue"]


def now_ms() -> int:
    return int(time.time() * 1000)


async def two_seats(server: Harness, **settings: Any) -> tuple[str, Client, Client, list[str]]:
    """A lobby with the host (seat 0) and a guest (seat 1), both connected; their tokens."""
    created = await server.create_room("H", {**QUIET, **settings})
    room = created["room"]
    guest = await server.join(room, "G")
    host = await server.connect(room, created["token"])
    g = await server.connect(room, guest["token"])
    await host.event("connected")
    return room, host, g, [created["token"], guest["token"]]


async def closed_with(client: Client) -> int | None:
    """Read until the server closes the socket; the close code it sent."""
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            await client.recv(timeout=3)
    return closed.value.rcvd.code if closed.value.rcvd is not None else None


# --- errors answer their command and change nothing ----------------------------------------


async def test_game_refusals_name_their_code_echo_the_id_and_change_nothing(
    server: Harness,
) -> None:
    hand0 = ["wild", "red 2", "blue 3"]
    hand1 = ["green 1"]
    room, (p0, p1), ids, _ = await hooked_table(server, [hand0, hand1], "red 9", 1)
    assert p0.view is not None and p0.view["state"]["turn"] == 0
    cases: list[tuple[Client, str, dict[str, Any], str]] = [
        (p1, "draw", {}, "not_your_turn"),
        (p1, "play", {"card": ids[1][0]}, "not_your_turn"),
        (p0, "play", {"card": ids[1][0]}, "illegal_card"),  # another seat's card
        (p0, "play", {"card": 10_000}, "illegal_card"),  # no such card
        (p0, "play", {"card": ids[0][2]}, "illegal_card"),  # blue on red 9
        (p0, "play", {"card": ids[0][0]}, "need_color"),  # a wild without a color
        (p0, "play", {"card": ids[0][0], "color": "purple"}, "need_color"),  # not in play
        (p0, "pass", {}, "wrong_phase"),  # nothing drawn
        (p0, "choose", {"color": "red"}, "wrong_phase"),
        (p0, "challenge", {}, "wrong_phase"),
        (p0, "accept", {}, "wrong_phase"),
        (p0, "catch", {"seat": 1}, "not_catchable"),  # seven cards
    ]
    before = await server.version(room)
    for client, kind, fields, code in cases:
        command_id = f"bad-{kind}-{code}-{len(fields)}"
        reply = await client.act(kind, id=command_id, **fields)
        assert reply["type"] == "error", (kind, fields, reply)
        assert reply["code"] == code, (kind, fields, reply)
        assert reply["id"] == command_id and isinstance(reply["message"], str)
        assert await server.version(room) == before, (kind, fields)
    # Still the same table: the right move is accepted.
    assert (await p0.act("play", card=ids[0][1]))["type"] == "ack"


@pytest.mark.parametrize(
    ("frame", "code", "echoes_id"),
    [
        ({"type": "play", "id": "f1"}, "bad_frame", True),  # missing card
        ({"type": "play", "id": "f1", "card": "5"}, "bad_frame", True),
        ({"type": "play", "id": "f1", "card": True}, "bad_frame", True),
        ({"type": "play", "id": "f1", "card": 5.5}, "bad_frame", True),
        ({"type": "play", "id": "f1", "card": 5, "uno": "yes"}, "bad_frame", True),
        ({"type": "play", "id": "f1", "card": 5, "target": "1"}, "bad_frame", True),
        ({"type": "choose", "id": "f1"}, "bad_frame", True),
        ({"type": "choose", "id": "f1", "color": 3}, "bad_frame", True),
        ({"type": "catch", "id": "f1"}, "bad_frame", True),
        ({"type": "remove_bot", "id": "f1", "seat": "1"}, "bad_frame", True),
        ({"type": "settings", "id": "f1"}, "bad_frame", True),
        ({"type": "settings", "id": "f1", "settings": "fast"}, "bad_frame", True),
        ({"type": "chat", "id": "f1"}, "bad_frame", True),
        ({"type": "chat", "id": "f1", "text": 7}, "bad_frame", True),
        ({"type": "draw", "id": "f1", "at": "3"}, "bad_frame", True),
        ({"type": "draw", "id": "f1", "at": True}, "bad_frame", True),
        ({"type": "draw"}, "bad_frame", False),  # no id
        ({"type": "draw", "id": 7}, "bad_frame", False),
        ({"type": "teleport", "id": "f1"}, "unknown_type", True),
        ({"id": "f1"}, "bad_frame", True),  # no type
        ({"type": 3, "id": "f1"}, "bad_frame", True),
    ],
)
async def test_malformed_commands(
    server: Harness, frame: dict[str, Any], code: str, echoes_id: bool
) -> None:
    created = await server.create_room("H", QUIET)
    client = await server.connect(created["room"], created["token"])
    before = await server.version(created["room"])
    await client.send(frame)
    reply = await client.until(lambda f: f["type"] == "error")
    assert reply["code"] == code and isinstance(reply["message"], str)
    if echoes_id:
        assert reply["id"] == "f1"
    assert await server.version(created["room"]) == before
    assert (await client.act("chat", text="still open"))["type"] == "ack"


async def test_non_json_binary_and_oversized_frames_keep_the_socket(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    client = await server.connect(created["room"], created["token"])
    for raw, code in [
        ("{nope", "bad_frame"),
        ("[1, 2]", "bad_frame"),
        ('"hello"', "bad_frame"),
        ("null", "bad_frame"),
        (json.dumps({"type": "chat", "id": "big", "text": "x" * 20_000}), "too_large"),
    ]:
        await client.send_raw(raw)
        reply = await client.until(lambda f: f["type"] == "error")
        assert reply["code"] == code, raw[:20]
    await client.ws.send(b'{"type": "ping"}')  # a binary frame is not a JSON text frame
    assert (await client.until(lambda f: f["type"] == "error"))["code"] == "bad_frame"
    await client.send({"type": "ping"})
    pong = await client.until(lambda f: f["type"] == "pong")
    assert isinstance(pong["server_time"], int) and abs(pong["server_time"] - now_ms()) < 5_000


async def test_rate_limited_frames_are_answered_rate_limited() -> None:
    config = server_settings(rate_limit_per_second=1.0, rate_limit_burst=5)
    async with running_server(config) as harness:
        created = await harness.create_room("H", QUIET)
        client = await harness.connect(created["room"], created["token"])
        for k in range(12):
            await client.send({"type": "chat", "id": f"r{k}", "text": "spam"})
        frames = await client.quiet(0.5)
        limited = [f for f in frames if f["type"] == "error" and f["code"] == "rate_limited"]
        assert limited and all(f["id"].startswith("r") for f in limited)
        acks = [f for f in frames if f["type"] == "ack"]
        assert 1 <= len(acks) <= 6
        assert harness.auditor.problems == []


# --- hello --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "first",
    [
        {"type": "ping"},
        {"type": "chat", "id": "c1", "text": "hi"},
        {"type": "hello"},  # no token
        {"type": "hello", "token": 5, "since": None},
        {"type": "hello", "token": "x" * 20_000, "since": None},  # too large
        "{not json",
    ],
)
async def test_a_first_frame_that_is_not_a_good_hello_closes_4401(
    server: Harness, first: Any
) -> None:
    created = await server.create_room("H", QUIET)
    client = await server.open(created["room"])
    if isinstance(first, str):
        await client.send_raw(first)
    else:
        await client.send(first)
    assert await closed_with(client) == 4401
    assert not any(f["type"] == "welcome" for f in client.frames)


async def test_a_token_only_opens_its_own_room(server: Harness) -> None:
    first = await server.create_room("A", QUIET)
    second = await server.create_room("B", QUIET)
    for room in (second["room"], "no-such-room"):
        client = await server.open(room)
        await client.send({"type": "hello", "token": first["token"], "since": None})
        reply = await client.recv()
        assert reply["type"] == "error" and reply["code"] == "unauthorized"
        assert await closed_with(client) == 4401


async def test_since_semantics(server: Harness) -> None:
    _room, host, g, tokens = await two_seats(server)
    for k in range(3):
        await host.act("chat", text=f"m{k}")
    await g.quiet(0.1)
    current = host.version

    async def resume(since: Any) -> list[dict[str, Any]]:
        # A new socket each time: repeated hellos on one socket have a small budget of their
        # own (docs/protocol.md "Limits"). The room stays at `current`: the seat is replaced,
        # never disconnected.
        client = await server.open(g.room)
        client.seat = 1
        await client.send({"type": "hello", "token": tokens[1], "since": since})
        await client.until(lambda f: f["type"] == "welcome")
        return client.frames

    for since, replayed in [
        (current - 2, [current - 1, current]),
        (current, []),  # up to date: the welcome alone
        (current + 50, []),  # ahead of the room: the welcome alone
        (-5, []),
        (None, []),
    ]:
        got = await resume(since)
        # The missed events in one or more `events` frames, then the welcome.
        assert [f["type"] for f in got][-1] == "welcome", since
        assert all(f["type"] == "events" for f in got[:-1]), since
        assert [e["version"] for f in got[:-1] for e in f["events"]] == replayed, since
        assert [e["kind"] for f in got[:-1] for e in f["events"]] == ["chat"] * len(replayed)
        assert all("log" not in f["view"] for f in got[:-1])
        assert got[-1]["version"] == current == got[-1]["view"]["version"]
        assert got[-1]["you"]["seat"] == 1 and "log" in got[-1]["view"]


async def test_since_older_than_the_history_gets_the_welcome_alone() -> None:
    async with running_server(server_settings(history_limit=4)) as harness:
        created = await harness.create_room("H", QUIET)
        host = await harness.connect(created["room"], created["token"])
        for k in range(8):
            await host.act("chat", text=f"m{k}")
        client = await harness.connect(created["room"], created["token"], since=1)
        assert [f["type"] for f in client.frames] == ["welcome"]
        assert client.frames[0]["version"] == await harness.version(created["room"])
        # Within the history: the missed events first, in order, then the welcome.
        seen = client.version
        await client.act("chat", text="late")  # (this socket replaced `host`)
        again = await harness.connect(created["room"], created["token"], since=seen)
        assert [f["type"] for f in again.frames] == ["events", "welcome"]
        assert again.events[0]["version"] == seen + 1
        assert consecutive([seen, *again.versions])
        assert harness.auditor.problems == []


async def test_a_replay_is_redacted_for_its_recipient(server: Harness) -> None:
    _room, (p0, p1), _ids, order = await hooked_table(server, [["red 1"], ["blue 1"]], "red 9", 1)
    seen = p1.version
    await p1.close()
    assert (await p0.act("draw"))["type"] == "ack"  # seat 0 draws order[15]
    back = await server.connect(p0.room, list(server.seats)[1], since=seen)
    drawn = back.seen("card_drawn")
    assert drawn and drawn[0]["seat"] == 0 and drawn[0]["count"] == 1
    assert drawn[0].frame in back.frames[:-1]  # replayed before the welcome
    assert order[15] not in card_ids(drawn[0])
    assert back.frames[-1]["type"] == "welcome"


# --- resends and stale ------------------------------------------------------------------


async def test_a_resent_id_is_applied_once_even_from_another_socket(server: Harness) -> None:
    room, host, g, tokens = await two_seats(server)
    first = await host.act("chat", id="once", text="hello")
    assert first["type"] == "ack"
    again = await server.connect(room, tokens[0])  # replaces the first socket
    resent = await again.act("chat", id="once", text="hello")
    assert resent == {"type": "ack", "id": "once", "version": first["version"]}
    # The same id from another seat is that seat's own command.
    other = await g.act("chat", id="once", text="mine")
    assert other["type"] == "ack" and other["version"] > first["version"]
    await g.quiet(0.2)
    assert [c["text"] for c in g.seen("chat")] == ["hello", "mine"]


async def test_stale_only_when_the_newer_state_made_it_illegal(server: Harness) -> None:
    hand0 = ["red 2", "red 3"]
    hand1 = ["blue 1", "blue 2"]
    _room, (p0, p1), ids, _ = await hooked_table(server, [hand0, hand1], "red 9", 1)
    old = p0.version
    await p0.act("chat", text="a newer version")
    # Legal in the newer state too: applied despite the old `at`.
    assert (await p0.act("play", card=ids[0][0], at=old))["type"] == "ack"
    # Seat 1, up to date: blue on red 2 is simply illegal.
    await p1.event("card_played")
    mid = p1.version
    reply = await p1.act("play", card=ids[1][0], at=mid)
    assert reply["type"] == "error" and reply["code"] == "illegal_card"  # `at` is current
    assert (await p1.act("draw", at=p1.version))["type"] == "ack"
    if p1.view is not None and p1.view["you"]["moves"]["pass"]:
        assert (await p1.act("pass"))["type"] == "ack"
    # Seat 0's turn again: seat 1 replaying a draw decided on its old view is stale.
    stale = await p1.act("draw", at=mid)
    assert stale["type"] == "error" and stale["code"] == "stale"


async def test_an_old_at_does_not_hide_an_error_the_old_state_had_too(server: Harness) -> None:
    _room, host, g, _ = await two_seats(server)
    old = g.version
    await host.act("chat", text="move the version on")
    # Not the host then, not the host now: `not_host`, not `stale`.
    reply = await g.act("start", at=old)
    assert reply["type"] == "error" and reply["code"] == "not_host", reply
    _room, (p0, p1), ids, _ = await hooked_table(server, [["red 1"], ["blue 1"]], "red 9", 1)
    await p1.quiet(0.2)  # seat 1's view is the dealt table
    old = p1.version
    await p0.act("chat", text="newer")
    # Seat 1 was not to play at `old` either.
    reply = await p1.act("draw", at=old)
    assert reply["type"] == "error" and reply["code"] == "not_your_turn", reply
    # A card of another hand was never playable.
    reply = await p1.act("play", card=ids[0][0], at=old)
    assert reply["type"] == "error" and reply["code"] == "illegal_card", reply
    # A refusal whose reason changed since `at` is stale: drawing was not possible in the
    # lobby (wrong phase) and is not now for another reason (not this seat's turn).
    reply = await p1.act("draw", at=1)
    assert reply["type"] == "error" and reply["code"] == "stale", reply


# --- what each member sees -------------------------------------------------------------


async def test_spectators_see_every_event_and_cannot_act(server: Harness) -> None:
    room, (p0, p1), _ids, order = await hooked_table(server, [["red 1"], ["blue 1"]], "red 9", 1)
    eve = await server.connect(room, await server.spectate(room))
    assert eve.frames[-1]["you"]["role"] == "spectator" and eve.frames[-1]["you"]["seat"] is None
    check_view(eve.view or {}, None, welcome=True)
    assert all(seat["backs"] is None for seat in (eve.view or {})["seats"])  # not Flip
    for kind, fields in [
        ("draw", {}),
        ("play", {"card": order[0]}),
        ("start", {}),  # (chat is the one thing a spectator may send: test_room_people.py)
        ("catch", {"seat": 0}),
    ]:
        reply = await eve.act(kind, **fields)
        assert reply["type"] == "error" and reply["code"] == "unauthorized", kind
    before = eve.version
    assert (await p0.act("draw"))["type"] == "ack"
    assert (await p0.act("chat", text="hello all"))["type"] == "ack"
    await eve.quiet(0.2)
    await p1.quiet(0.1)
    frames = [f for f in eve.frames if f["type"] == "events"]
    assert consecutive([before, *[e["version"] for e in eve.events_after(before)]])
    drawn = eve.seen("card_drawn")[0]
    assert drawn["seat"] == 0 and drawn["count"] == 1 and order[15] not in card_ids(drawn)
    theirs = p1.seen("card_drawn")[0]
    assert order[15] not in card_ids(theirs)
    mine = p0.seen("card_drawn")[0]
    assert order[15] in card_ids(mine)  # the drawer sees the card
    assert mine["version"] == theirs["version"] == drawn["version"]
    chat = eve.seen("chat")[0]
    assert chat["text"] == "hello all" and chat["seat"] == 0
    for frame in frames:
        assert frame["view"]["you"] is None and frame["version"] == frame["view"]["version"]


async def test_chat_limits_and_fan_out(server: Harness) -> None:
    room, host, g, _ = await two_seats(server)
    eve = await server.connect(room, await server.spectate(room))
    longest = "ş" * 300
    ack = await host.act("chat", text=longest)
    assert ack["type"] == "ack"
    for client in (g, eve):
        await client.event("chat")
    for client in (host, g, eve):
        (chat,) = client.seen("chat")
        assert chat["text"] == longest and chat["version"] == ack["version"]
        assert kinds(chat.frame) == ["chat"] and chat.frame["version"] == ack["version"]
    too_long = await host.act("chat", text="x" * 301)
    assert too_long["type"] == "error" and too_long["id"]
    assert await server.version(room) == ack["version"]


async def test_connected_disconnected_and_lobby_events(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    room = created["room"]
    host = await server.connect(room, created["token"])
    guest = await server.join(room, "G")
    joined = await host.event("player_joined")
    assert joined["seat"] == 1 and host.view is not None
    assert host.view["seats"][1]["name"] == "G" and host.view["seats"][1]["connected"] is False
    g = await server.connect(room, guest["token"])
    assert (await host.event("connected"))["seat"] == 1
    await g.close()
    gone = await host.event("disconnected")
    assert gone["seat"] == 1 and gone.view["seats"][1]["connected"] is False
    changed = await host.act("settings", settings={"target_score": 200, "stack_draw2": True})
    assert changed["type"] == "ack"
    frame = host.frame_for(changed["version"])
    assert kinds(frame) == ["settings_changed"]
    assert frame["view"]["settings"]["target_score"] == 200
    assert frame["view"]["settings"]["stack_draw2"] is True
    assert (await server.summary(room))["settings"]["target_score"] == 200
    bot = await host.act("add_bot")
    assert kinds(host.frames[-2]) == ["player_joined"]
    assert host.frames[-2]["version"] == bot["version"]
    removed = await host.act("remove_bot", seat=2)
    assert removed["type"] == "ack" and kinds(host.frames[-2]) == ["player_left"]
    assert host.view is not None and len(host.view["seats"]) == 2


async def test_the_deal_draws_for_dealer_without_the_hook(server: Harness) -> None:
    room, host, g, _ = await two_seats(server)
    assert (await host.act("start"))["type"] == "ack"
    dealt = kinds(host.frames[-2])  # the start's one commit
    assert "dealer_chosen" in dealt and "round_started" in dealt
    assert dealt.index("dealer_chosen") < dealt.index("round_started")
    view = host.view
    assert view is not None and view["status"] == "playing" and view["round"] == 1
    assert isinstance(view["match_id"], str) and view["match_id"]
    state = view["state"]
    assert state["phase"] in ("play", "choose") and state["direction"] in (1, -1)
    assert state["side"] == "light" and state["draw_top_back"] is None
    held = sum(seat["hand_count"] for seat in view["seats"])
    assert state["draw_count"] + state["discard_count"] + held == 109
    assert len(view["you"]["hand"]) == view["seats"][0]["hand_count"]
    assert all(seat["backs"] is None for seat in view["seats"])
    assert isinstance(view["server_time"], int) and abs(view["server_time"] - now_ms()) < 5_000
    # A running match is on record already.
    record = await server.http.get(f"/api/matches/{view['match_id']}")
    assert record.status_code == 200
    body = record.json()
    assert body["status"] == "running" and body["winner"] is None
    assert body["room"] is None and room not in record.text  # issue 11, finding 10
    assert body["rounds"] == [] and len(body["players"]) == 2
    assert g.view is not None


async def test_timed_turns_carry_their_deadline(server: Harness) -> None:
    _room, (p0, _p1), _ids, _ = await hooked_table(
        server, [["red 1"], ["blue 1"]], "red 9", 1, turn_seconds=30
    )
    view = p0.view
    assert view is not None
    turn = view["state"]["deadlines"]["turn"]
    assert turn["seat"] == 0 and isinstance(turn["at"], int)
    assert 25_000 <= turn["at"] - view["server_time"] <= 30_000


# --- turned-up wilds, Flip -----------------------------------------------------------------


async def test_a_turned_up_wild_is_named_by_the_first_player(server: Harness) -> None:
    _room, (p0, p1), _ids, _ = await hooked_table(server, [["red 1"], ["blue 1"]], "wild", 0)
    await p1.quiet(0.2)
    assert p1.view is not None and p0.view is not None
    assert p1.view["state"]["phase"] == "choose" and p1.view["state"]["turn"] == 1
    assert sorted(p1.view["you"]["moves"]["choose"]) == sorted(COLORS)
    assert p0.view["you"]["moves"]["choose"] is None
    reply = await p0.act("choose", color="red")
    assert reply["type"] == "error" and reply["code"] == "not_your_turn"
    reply = await p1.act("choose", color="pink")  # a dark-side color, not in play
    assert reply["type"] == "error"
    chosen = await p1.act("choose", color="green")
    assert chosen["type"] == "ack"
    frame = p1.frame_for(chosen["version"])
    assert kinds(frame) == ["color_chosen"] and frame["events"][0]["color"] == "green"
    assert frame["view"]["state"]["color"] == "green"
    assert frame["view"]["state"]["phase"] == "play"


async def test_flip_views_show_backs_without_ids(server: Harness) -> None:
    created = await server.create_room("H", {**QUIET, "variant": "flip"})
    room = created["room"]
    guest = await server.join(room, "G")
    host = await server.connect(room, created["token"])
    g = await server.connect(room, guest["token"])
    eve = await server.connect(room, await server.spectate(room))
    assert (await host.act("start"))["type"] == "ack"
    for client in (g, eve):
        await client.until(lambda f: f.get("view", {}).get("status") == "playing")
        await client.quiet(0.2)
    view = host.view
    assert view is not None and view["state"]["side"] == "light"
    for card in view["you"]["hand"]:
        assert isinstance(card["id"], int) and {"color", "kind"} <= set(card["face"])
    mine, theirs = view["seats"]
    assert mine["backs"] is None
    assert len(theirs["backs"]) == theirs["hand_count"]
    assert all("id" not in face and {"color", "kind"} <= set(face) for face in theirs["backs"])
    assert all(
        face["color"] in ("pink", "teal", "orange", "purple", None) for face in theirs["backs"]
    )
    back = view["state"]["draw_top_back"]
    assert isinstance(back, dict) and "id" not in back
    top = view["state"]["top"]
    assert isinstance(top["id"], int) and "face" in top
    public = eve.view
    assert public is not None and public["you"] is None
    assert [len(s["backs"]) for s in public["seats"]] == [s["hand_count"] for s in public["seats"]]


# --- the round and match cycle ------------------------------------------------------------


async def test_start_after_round_over_and_after_match_over(server: Harness) -> None:
    from e2e.harness import play_scripted

    room, (p0, p1), _ids, _ = await hooked_table(
        server, [["red 1"], ["blue 1"]], "red 9", 1, scoring="none"
    )
    await asyncio.wait_for(asyncio.gather(play_scripted(p0), play_scripted(p1)), 30)
    await p0.quiet(0.3)
    assert p0.view is not None and p0.view["status"] == "match_over"
    first_match = p0.view["match_id"]
    refused = await p1.act("start")
    assert refused["type"] == "error" and refused["code"] == "not_host"
    # In match_over `start` begins a new match with the same seats.
    assert (await p0.act("start"))["type"] == "ack"
    assert p0.view["status"] == "playing" and p0.view["round"] == 1
    assert p0.view["match_id"] != first_match
    assert [s["score"] for s in p0.view["seats"]] == [0, 0]
    assert [s["name"] for s in p0.view["seats"]] == ["P0", "P1"]
    assert room


async def test_the_next_round_is_dealt_by_itself(server: Harness) -> None:
    from e2e.harness import play_scripted

    _room, (p0, p1), _ids, _ = await hooked_table(
        server, [["red 1"], ["blue 1"]], "red 9", 1, next_round_seconds=1
    )
    await asyncio.wait_for(asyncio.gather(play_scripted(p0), play_scripted(p1)), 30)
    ended = p0.seen("round_ended")[0]
    assert ended.view["status"] == "round_over"
    deadline = ended.view["state"]["deadlines"].get("next_round")
    started = await p0.event("round_started", timeout=4)
    assert started["round"] == 2 and started.view["round"] == 2
    assert started.view["status"] == "playing"
    if deadline is not None:
        assert started.view["server_time"] >= deadline["at"]
    # Scores carried over from round one.
    assert [s["score"] for s in started.view["seats"]] == ended["scores"]


# --- HTTP ----------------------------------------------------------------------------------


async def test_http_odds_and_ends(server: Harness) -> None:
    http = server.http
    created = await server.create_room("H", QUIET)
    room = created["room"]
    assert isinstance(created["player_id"], str) and isinstance(created["seat"], int)
    health = await http.get("/healthz")
    assert health.status_code == 200 and {"store", "bus"} <= set(health.json())
    assert (await http.head("/healthz")).status_code == 200  # probes often use HEAD
    page = await http.get(f"/r/{room}")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    deck = (await http.get(f"/api/rooms/{room}/deck")).json()
    assert deck["variant"] == "classic" and deck["size"] == len(deck["cards"])
    # Spectator body is optional-ish: a name only.
    watcher = await http.post(f"/api/rooms/{room}/spectators", json={"name": "Eve"})
    assert watcher.status_code == 201 and isinstance(watcher.json()["token"], str)
    server.auditor.tokens.add(watcher.json()["token"])
    as_json = {"content-type": "application/json"}
    cases: list[tuple[str, str, dict[str, Any], int]] = [
        ("POST", "/api/rooms", {"json": {"name": ""}}, 400),
        ("POST", "/api/rooms", {"json": {"name": "   "}}, 400),
        ("POST", "/api/rooms", {"json": {"name": None}}, 400),
        ("POST", "/api/rooms", {"json": {"name": "a\u0000b"}}, 400),
        ("POST", "/api/rooms", {"json": {"name": "H", "settings": [1]}}, 400),
        ("POST", f"/api/rooms/{room}/players", {"json": {}}, 400),
        ("POST", f"/api/rooms/{room}/players", {"content": b"null", "headers": as_json}, 400),
        ("POST", f"/api/rooms/{room}/players", {"content": b'{"name": "b"}'}, 415),
        ("POST", f"/api/rooms/{room}/spectators", {"json": {"name": 5}}, 400),
        ("GET", "/api/rooms/" + "x" * 300, {}, 404),
        ("GET", "/api/rooms/%00/deck", {}, 404),
        ("GET", "/api/matches/" + "x" * 300, {}, 404),
        ("POST", "/api/rooms/%E2%98%83/players", {"json": {"name": "b"}}, 404),
        ("DELETE", f"/api/rooms/{room}", {}, 405),
        ("GET", "/api/no-such-route", {}, 404),
    ]
    for method, url, kwargs, status in cases:
        answer = await http.request(method, url, **kwargs)
        assert answer.status_code == status, (method, url, answer.text)
        assert is_error(answer.json()), answer.text
    # A join once the round is dealt or while the table is full: 409 with a body.
    assert (await server.summary(room))["status"] == "lobby"


async def test_under_scoring_none_a_new_match_comes_by_itself(server: Harness) -> None:
    from e2e.harness import play_scripted

    _room, (p0, p1), _ids, _ = await hooked_table(
        server, [["red 1"], ["blue 1"]], "red 9", 1, scoring="none", next_round_seconds=1
    )
    await asyncio.wait_for(
        asyncio.gather(play_scripted(p0, "match_ended"), play_scripted(p1, "match_ended")), 30
    )
    (ended,) = p0.seen("match_ended")
    assert ended.view["status"] == "match_over"
    first = ended.view["match_id"]
    started = await p0.event("round_started", timeout=4)
    assert started.view["round"] == 1 and started.view["match_id"] != first


# --- targets and penalties ----------------------------------------------------------------


async def test_a_targeted_card_needs_another_seat(server: Harness) -> None:
    hand0 = ["wild_targeted_draw2", "wild_forced_swap"] + ["wild"] * 5
    hands = [hand0, ["wild"] * 7, ["wild"] * 7]
    _room, (p0, p1, _p2), ids, _ = await hooked_table(
        server, hands, "wild_reverse", 2, variant="all_wild"
    )
    await p0.quiet(0.2)
    assert p0.view is not None and p0.view["state"]["turn"] == 0
    options = {o["card"]: o for o in p0.view["you"]["moves"]["play"]}
    assert sorted(options[ids[0][0]]["targets"]) == [1, 2]
    before = await server.version(p0.room)
    for target in (None, 0, 7, -1):
        fields: dict[str, Any] = {"card": ids[0][0]}
        if target is not None:
            fields["target"] = target
        reply = await p0.act("play", **fields)
        assert reply["type"] == "error" and reply["code"] == "bad_target", (target, reply)
    assert await server.version(p0.room) == before
    assert (await p0.act("play", card=ids[0][0], target=2))["type"] == "ack"
    await p1.quiet(0.2)
    assert p1.view is not None and p1.view["seats"][2]["hand_count"] == 9


async def test_a_pending_penalty_is_taken_by_draw(server: Harness) -> None:
    _room, (p0, p1), ids, _ = await hooked_table(
        server, [["red draw2", "red 3"], ["blue draw2"]], "red 9", 1, stack_draw2=True
    )
    assert (await p0.act("play", card=ids[0][0]))["type"] == "ack"
    await p1.event("card_played")
    assert p1.view is not None
    state = p1.view["state"]
    assert state["phase"] == "penalty" and state["turn"] == 1 and state["pending_draw"] == 2
    assert p1.view["you"]["moves"]["draw"] is True
    assert (await p1.act("draw"))["type"] == "ack"
    (drawn,) = p1.seen("card_drawn")
    assert drawn["seat"] == 1 and drawn["count"] == 2 and len(drawn["cards"]) == 2
    assert p1.view["state"]["pending_draw"] == 0 and p1.view["state"]["turn"] == 0


async def test_uno_declared_right_after_the_play(server: Harness) -> None:
    hand0 = ["red 1", "red 2", "red 3", "red 4", "red 5", "red 6", "red 7"]
    hand1 = ["blue 1", "blue 2", "blue 3", "blue 4", "blue 5", "blue 6", "blue 7"]
    _room, (p0, p1), ids, _ = await hooked_table(server, [hand0, hand1], "red 9", 1)
    early = await p0.act("uno")  # seven cards: nothing to declare
    assert early["type"] == "error"
    for k in range(5):
        assert (await p0.act("play", card=ids[0][k]))["type"] == "ack"
        assert (await p1.act("draw"))["type"] == "ack"
        if p1.view and p1.view["you"]["moves"]["pass"]:
            assert (await p1.act("pass"))["type"] == "ack"
    assert (await p0.act("play", card=ids[0][5]))["type"] == "ack"  # one card left
    assert p0.view is not None and p0.view["you"]["moves"]["uno"] is True
    declared = await p0.act("uno")
    assert declared["type"] == "ack"
    frame = p0.frame_for(declared["version"])
    assert kinds(frame) == ["uno_declared"] and frame["events"][0]["seat"] == 0
    assert frame["view"]["seats"][0]["uno"] is True
    await p1.event("uno_declared")
    assert p1.view is not None and p1.view["you"]["moves"]["catch"] == []
    reply = await p1.act("catch", seat=0)
    assert reply["type"] == "error" and reply["code"] == "not_catchable"


async def test_jump_in_is_listed_and_played_out_of_turn(server: Harness) -> None:
    hands = [["green 3"], ["green 4"], ["red 9", "blue 2"]]
    _room, (p0, p1, p2), ids, _ = await hooked_table(server, hands, "red 9", 0, jump_in=True)
    await p2.quiet(0.2)
    assert p2.view is not None and p2.view["state"]["turn"] == 1
    out_of_turn = [o["card"] for o in p2.view["you"]["moves"]["play"]]
    assert out_of_turn == [ids[2][0]]  # only the identical red 9
    assert (await p2.act("play", card=ids[2][1]))["code"] == "not_your_turn"
    assert (await p2.act("play", card=ids[2][0]))["type"] == "ack"
    # Play continues from the jumper: seat 1, whose turn it was, lost it.
    assert p2.view["state"]["turn"] == 0
    await p1.quiet(0.2)
    assert p1.view is not None and p1.view["seats"][2]["hand_count"] == 6
    assert p1.view["you"]["moves"]["draw"] is False and p0.view is not None


# --- settings and the deck they make --------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "size", "kinds"),
    [
        ({"custom_wilds": [{"effect": "swap_hands"}, {"effect": "skip_next", "n": 2}]}, 111, 2),
        ({"deck": "original"}, 108, 0),
        ({"variant": "all_wild", "deck": "original", "seven_zero": True}, 112, 0),
        ({"variant": "flip", "deck": "original", "jump_in": True}, 112, 0),
    ],
)
async def test_unused_settings_are_accepted_without_effect(
    server: Harness, settings: dict[str, Any], size: int, kinds: int
) -> None:
    created = await server.create_room("H", settings)
    deck = (await server.http.get(f"/api/rooms/{created['room']}/deck")).json()
    assert deck["size"] == size == len(deck["cards"])
    assert sum(1 for c in deck["cards"] if c.get("kind") == "wild_custom") == kinds
    if settings.get("deck") == "original":
        assert not any(c.get("kind") == "wild_shuffle" for c in deck["cards"])


async def test_custom_wilds_stay_refused_when_the_variant_changes(server: Harness) -> None:
    created = await server.create_room("H", {"custom_wilds": [{"effect": "rotate_hands"}]})
    host = await server.connect(created["room"], created["token"])
    for change in ({"variant": "flip"}, {"variant": "all_wild"}, {"deck": "original"}):
        reply = await host.act("settings", settings=change)
        assert reply["type"] == "error" and reply["code"] == "bad_settings", change
    summary = await server.summary(created["room"])
    assert summary["settings"]["variant"] == "classic" and summary["settings"]["deck"] == "gdj85"
    # Dropping the custom wilds with the change is fine.
    both = await host.act("settings", settings={"variant": "flip", "custom_wilds": []})
    assert both["type"] == "ack"
    deck = (await server.http.get(f"/api/rooms/{created['room']}/deck")).json()
    assert deck["variant"] == "flip"


async def flip_table(
    server: Harness, hands: list[list[str]], top: str, dealer: int
) -> tuple[list[Client], list[list[int]]]:
    """A hooked Flip deal, by light faces."""
    created = await server.create_room("P0", {**QUIET, "variant": "flip"})
    room = created["room"]
    tokens = [created["token"]]
    tokens += [(await server.join(room, f"P{k}"))["token"] for k in range(1, len(hands))]
    listing = (await server.http.get(f"/api/rooms/{room}/deck")).json()["cards"]
    light = [{"id": c["id"], **c["light"]} for c in listing]
    order, ids, _ = deal_order(light, hands, top, dealer)
    clients = [await server.connect(room, t) for t in tokens]
    settings = {"dealer": dealer, "deck_order": order}
    assert (await clients[0].act("settings", settings=settings))["type"] == "ack"
    assert (await clients[0].act("start"))["type"] == "ack"
    for client in clients[1:]:
        await client.event("round_started")
    return clients, ids


@pytest.mark.parametrize("answer", ["challenge", "accept", "draw"])
async def test_flip_wild_draw_two_is_challengeable(server: Harness, answer: str) -> None:
    (p0, p1), ids = await flip_table(server, [["wild_draw2", "red 5"], ["blue 1"]], "red 9", 1)
    # Seat 0 holds a red card matching the red 9: the Wild Draw Two is an illegal one.
    assert (await p0.act("play", card=ids[0][0], color="blue"))["type"] == "ack"
    await p1.event("challenge_opened")
    assert p1.view is not None
    assert p1.view["state"]["phase"] == "challenge" and p1.view["state"]["turn"] == 1
    assert p1.view["you"]["moves"]["challenge"] is True and p1.view["you"]["moves"]["accept"]
    assert (await p1.act(answer))["type"] == "ack"
    await p0.quiet(0.2)
    counts = [s["hand_count"] for s in p1.view["seats"]]
    if answer == "challenge":  # guilty: the offender draws the two
        assert p1.seen("challenge_resolved")
        assert counts == [8, 7]
    else:  # accepted (`draw` with a penalty pending takes it): two cards, the turn lost
        assert counts == [6, 9] and p1.view["state"]["turn"] == 0


async def test_draw_until_playable_then_pass_keeps_the_card(server: Harness) -> None:
    created = await server.create_room("P0", {**QUIET, "draw": "until_playable"})
    room = created["room"]
    guest = await server.join(room, "P1")
    deck = await server.deck(room)
    blues = [f"blue {n}" for n in range(1, 8)]
    greens = [f"green {n}" for n in range(1, 8)]
    order, _ids, _ = deal_order(deck, [blues, greens], "red 9", 1)
    by_id = {c["id"]: c for c in deck}
    tail = order[15:]

    def pick(color: str, value: int) -> int:
        card = next(i for i in tail if (by_id[i]["color"], by_id[i]["value"]) == (color, value))
        tail.remove(card)
        return card

    drawn = [pick("yellow", 1), pick("yellow", 2), pick("red", 3)]
    order = order[:15] + drawn + tail
    p0 = await server.connect(room, created["token"])
    p1 = await server.connect(room, guest["token"])
    assert (await p0.act("settings", settings={"dealer": 1, "deck_order": order}))["type"] == "ack"
    assert (await p0.act("start"))["type"] == "ack"
    assert (await p0.act("draw"))["type"] == "ack"
    mine = p0.seen("card_drawn")
    assert sum(e["count"] for e in mine) == 3
    assert [c["id"] for e in mine for c in e["cards"]] == drawn
    assert p0.view is not None and p0.view["state"]["phase"] == "after_draw"
    assert p0.view["you"]["moves"]["pass"] is True
    assert [o["card"] for o in p0.view["you"]["moves"]["play"]] == [drawn[2]]
    passed = await p0.act("pass")
    assert passed["type"] == "ack"
    assert kinds(p0.frames[-2]) == ["turn_passed"] and p0.frames[-2]["version"] == passed["version"]
    assert p0.view["state"]["turn"] == 1 and p0.view["seats"][0]["hand_count"] == 10
    await p1.quiet(0.2)
    assert p1.view is not None and p1.view["you"]["moves"]["draw"] is True


async def test_a_played_wild_keeps_a_null_color_and_names_it_in_the_state(
    server: Harness,
) -> None:
    _room, (p0, p1), ids, _ = await hooked_table(
        server, [["wild", "blue 3"], ["green 1"]], "red 9", 1
    )
    hand = {c["id"]: c for c in (p0.view or {})["you"]["hand"]}
    assert hand[ids[0][0]]["color"] is None and hand[ids[0][0]]["kind"] == "wild"
    option = next(o for o in p0.view["you"]["moves"]["play"] if o["card"] == ids[0][0])  # type: ignore[index]
    assert sorted(option["colors"]) == sorted(COLORS)
    assert (await p0.act("play", card=ids[0][0], color="yellow"))["type"] == "ack"
    played = await p1.event("card_played")
    assert played["card"]["id"] == ids[0][0] and played["card"]["color"] is None
    assert played["color"] == "yellow"
    state = played.view["state"]
    assert state["top"]["id"] == ids[0][0] and state["top"]["color"] is None
    assert state["color"] == "yellow" and state["turn"] == 1


async def test_hook_settings_are_refused_over_the_socket_too(plain: Harness) -> None:
    created = await plain.create_room("H")
    host = await plain.connect(created["room"], created["token"])
    for extra in ({"dealer": 0}, {"deck_order": [0]}, {"bot_delay_ms": 0}):
        reply = await host.act("settings", settings=extra)
        assert reply["type"] == "error" and reply["code"] == "bad_settings", extra


async def test_draw_facing_a_wild_draw_four_takes_the_penalty(server: Harness) -> None:
    _room, (p0, p1), ids, _ = await hooked_table(
        server, [["wild_draw4", "blue 3"], ["green 1"]], "red 9", 1
    )
    assert (await p0.act("play", card=ids[0][0], color="blue"))["type"] == "ack"
    await p1.event("challenge_opened")
    assert (await p1.act("draw"))["type"] == "ack"
    (drawn,) = p1.seen("card_drawn")
    assert drawn["seat"] == 1 and drawn["count"] == 4
    assert p1.view is not None
    assert p1.view["seats"][1]["hand_count"] == 11 and p1.view["state"]["turn"] == 0


@pytest.mark.parametrize("variant", ["classic", "flip"])
async def test_moves_list_draw_while_a_challenge_is_open(server: Harness, variant: str) -> None:
    if variant == "flip":
        (p0, p1), ids = await flip_table(server, [["wild_draw2", "red 5"], ["blue 1"]], "red 9", 1)
    else:
        _room, (p0, p1), ids, _ = await hooked_table(
            server, [["wild_draw4", "blue 3"], ["green 1"]], "red 9", 1
        )
    assert (await p0.act("play", card=ids[0][0], color="blue"))["type"] == "ack"
    await p1.event("challenge_opened")
    assert p1.view is not None and p1.view["you"]["moves"]["accept"] is True
    assert p1.view["you"]["moves"]["draw"] is True
