"""The wire contract checked as a black-box tester holding only PROTOCOL.md would: real HTTP
and WebSocket calls against a real server, asserting status codes, body shapes, frame shapes,
versions and error codes exactly as written there. (The server comes from the e2e harness, so
every frame also passes its leak auditor.)"""

from __future__ import annotations

import asyncio
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
    play_scripted,
)

pytestmark = pytest.mark.timeout(60)

VIEW_KEYS = {
    "room",
    "status",
    "version",
    "server_time",
    "settings",
    "host",
    "match_id",
    "round",
    "seats",
    "you",
    "state",
}  # fmt: skip (and `log`, in the welcome's view alone)
SEAT_KEYS = {"seat", "name", "player_id", "bot", "connected", "hand_count", "uno", "score", "backs"}
YOU_KEYS = {"seat", "hand", "moves"}
MOVE_KEYS = {"play", "draw", "pass", "uno", "challenge", "accept", "catch", "choose"}
STATE_KEYS = {
    "top", "color", "side", "direction", "turn", "draw_count", "discard_count", "pending_draw",
    "draw_top_back", "phase", "deadlines",
}  # fmt: skip
QUIET = {"turn_seconds": 0, "next_round_seconds": 0, "bot_delay_ms": 0}


def is_error(body: Any, code: str | None = None) -> bool:
    err = body.get("error") if isinstance(body, dict) else None
    return (
        isinstance(err, dict)
        and isinstance(err.get("code"), str)
        and isinstance(err.get("message"), str)
        and (code is None or err["code"] == code)
    )


def check_view(view: dict[str, Any], seat: int | None, *, welcome: bool = False) -> None:
    assert set(view) >= VIEW_KEYS
    assert ("log" in view) is welcome  # PROTOCOL v2: only the welcome's view has the log
    if welcome:
        assert all("version" in entry and not card_ids(entry) for entry in view["log"])
    for info in view["seats"]:
        assert set(info) >= SEAT_KEYS
    if seat is None:
        assert view["you"] is None
    else:
        assert set(view["you"]) >= YOU_KEYS and view["you"]["seat"] == seat
        assert set(view["you"]["moves"]) >= MOVE_KEYS
    if view["status"] == "playing":
        assert set(view["state"]) >= STATE_KEYS
        assert set(view["state"]["deadlines"]) >= {"turn", "uno", "challenge"}


# --- HTTP ------------------------------------------------------------------------------------


async def test_http_answers_and_error_bodies(server: Harness) -> None:
    http = server.http
    created = await http.post("/api/rooms", json={"name": "Ayşe"})
    assert created.status_code == 201
    body = created.json()
    assert set(body) >= {"room", "url", "player_id", "seat", "token"}
    assert body["url"] == f"/r/{body['room']}" and body["seat"] == 0
    assert len(body["room"]) >= 16 and len(body["token"]) >= 16  # >= 128 bits, base64-ish
    room = body["room"]
    server.auditor.tokens.add(body["token"])

    joined = await http.post(f"/api/rooms/{room}/players", json={"name": "Mikko"})
    assert joined.status_code == 201 and joined.json()["seat"] == 1
    assert set(joined.json()) >= {"player_id", "seat", "token"}
    server.auditor.tokens.add(joined.json()["token"])
    watcher = await http.post(f"/api/rooms/{room}/spectators", json={"name": "Eve"})
    assert watcher.status_code == 201 and isinstance(watcher.json()["token"], str)
    server.auditor.tokens.add(watcher.json()["token"])

    as_json = {"content-type": "application/json"}
    bad = [
        ("POST", "/api/rooms", {"content": b"{not json", "headers": as_json}, 400),
        ("POST", "/api/rooms", {"json": []}, 400),
        ("POST", "/api/rooms", {"json": {}}, 400),
        ("POST", "/api/rooms", {"json": {"name": 5}}, 400),
        ("POST", "/api/rooms", {"json": {"name": "x" * 10_000}}, 400),
        ("POST", "/api/rooms", {"json": {"name": "a", "settings": "x"}}, 400),
        ("POST", "/api/rooms/nope/players", {"json": {"name": "b"}}, 404),
        ("POST", f"/api/rooms/{room}/players", {"content": b"\xff\xfe", "headers": as_json}, 400),
        ("POST", f"/api/rooms/{room}/players", {"json": {"name": ["x"]}}, 400),
        ("POST", "/api/rooms/nope/spectators", {"json": {"name": "b"}}, 404),
        ("GET", "/api/rooms/nope", {}, 404),
        ("GET", "/api/rooms/nope/deck", {}, 404),
        ("GET", "/api/matches/nope", {}, 404),
    ]
    for method, url, kwargs, status in bad:
        answer = await http.request(method, url, **kwargs)
        assert answer.status_code == status, (method, url, answer.text)
        assert is_error(answer.json()), answer.text

    summary = (await http.get(f"/api/rooms/{room}")).json()
    assert summary["status"] == "lobby" and "settings" in summary
    assert [s["name"] for s in summary["seats"]] == ["Ayşe", "Mikko"]
    assert all({"name", "bot", "connected"} <= set(s) for s in summary["seats"])
    # Joined over HTTP but no socket yet: nobody is connected.
    assert [s["connected"] for s in summary["seats"]] == [False, False]
    assert "scores" in summary or all("score" in s for s in summary["seats"])


async def test_a_json_body_must_say_it_is_json(server: Harness) -> None:
    # Issue 11, finding 6: a body without `Content-Type: application/json` is what a page on
    # another site can send without a preflight, so it is refused (415), never read as JSON.
    request = server.http.build_request("POST", "/api/rooms", content=b'{"name": "Raw"}')
    request.headers.pop("content-type", None)
    answer = await server.http.send(request)
    assert answer.status_code == 415 and is_error(answer.json()), answer.text
    form = await server.http.post(
        "/api/rooms", content=b'{"name": "Raw"}', headers={"content-type": "text/plain"}
    )
    assert form.status_code == 415 and is_error(form.json())
    typed = await server.http.post(
        "/api/rooms", content=b'{"name": "Raw"}', headers={"content-type": "application/json"}
    )
    assert typed.status_code == 201, typed.text
    server.auditor.tokens.add(typed.json()["token"])


async def test_room_full_and_started_answer_409(server: Harness) -> None:
    host = await server.create_room("H", {"max_players": 2, **QUIET})
    await server.join(host["room"], "B")
    full = await server.http.post(f"/api/rooms/{host['room']}/players", json={"name": "C"})
    assert full.status_code == 409 and is_error(full.json())

    other = await server.create_room("H", QUIET)
    await server.join(other["room"], "B")
    client = await server.connect(other["room"], other["token"])
    assert (await client.act("start"))["type"] == "ack"
    late = await server.http.post(f"/api/rooms/{other['room']}/players", json={"name": "C"})
    assert late.status_code == 409 and is_error(late.json())
    summary = await server.summary(other["room"])
    assert summary["status"] == "playing"  # and (checked by the harness) not a card in it
    # Lobby commands sent during a round: the wrong phase.
    for kind, fields in [
        ("start", {}),
        ("add_bot", {}),
        ("remove_bot", {"seat": 1}),
        ("settings", {"settings": {"target_score": 200}}),
    ]:
        reply = await client.act(kind, **fields)
        assert reply["type"] == "error" and reply["code"] == "wrong_phase", (kind, reply)


@pytest.mark.parametrize(
    ("settings", "size"),
    [({}, 109), ({"deck": "original"}, 108), ({"variant": "all_wild"}, 112)],
)
async def test_deck_listing_shapes(server: Harness, settings: dict[str, Any], size: int) -> None:
    room = (await server.create_room("H", settings))["room"]
    deck = (await server.http.get(f"/api/rooms/{room}/deck")).json()
    assert deck["size"] == size and len(deck["cards"]) == size
    assert len({c["id"] for c in deck["cards"]}) == size
    assert all({"id", "color", "kind"} <= set(c) for c in deck["cards"])


async def test_flip_deck_listing_hides_ids_without_hooks(plain: Harness) -> None:
    room = (await plain.create_room("H", {"variant": "flip"}))["room"]
    deck = (await plain.http.get(f"/api/rooms/{room}/deck")).json()
    assert deck["variant"] == "flip" and "cards" not in deck
    assert len(deck["light"]) == len(deck["dark"]) == deck["size"] == 112
    assert all("id" not in face for face in deck["light"] + deck["dark"])


async def test_flip_deck_listing_pairs_faces_under_hooks(server: Harness) -> None:
    room = (await server.create_room("H", {"variant": "flip"}))["room"]
    deck = (await server.http.get(f"/api/rooms/{room}/deck")).json()
    assert len(deck["cards"]) == 112
    assert all({"id", "light", "dark"} <= set(c) for c in deck["cards"])


async def test_hook_settings_refused_without_the_variable(plain: Harness) -> None:
    for extra in ({"dealer": 0}, {"deck_order": [0]}, {"bot_delay_ms": 0}):
        answer = await plain.http.post("/api/rooms", json={"name": "H", "settings": extra})
        assert answer.status_code == 400 and is_error(answer.json(), "bad_settings"), extra


# --- settings --------------------------------------------------------------------------------

BAD_SETTINGS: list[dict[str, Any]] = [
    {"no_such_setting": 1},
    {"stack_draw2": "yes"},
    {"stack_draw2": 0},
    {"stack_draw2": None},
    {"target_score": 10**30},
    {"max_players": 1},
    {"max_players": "4"},
    {"variant": "flip", "custom_wilds": [{"effect": "swap_hands"}]},
    {"deck": "original", "custom_wilds": [{"effect": "swap_hands"}]},
]


@pytest.mark.parametrize("bad", BAD_SETTINGS)
async def test_bad_settings_over_http_and_socket(server: Harness, bad: dict[str, Any]) -> None:
    answer = await server.http.post("/api/rooms", json={"name": "H", "settings": bad})
    assert answer.status_code == 400 and is_error(answer.json(), "bad_settings"), answer.text

    created = await server.create_room("H")
    host = await server.connect(created["room"], created["token"])
    before = host.view
    reply = await host.act("settings", settings=bad)
    assert reply["type"] == "error" and reply["code"] == "bad_settings"
    assert (await server.summary(created["room"]))["settings"] == (before or {})["settings"]


async def test_host_only_commands(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    guest = await server.join(created["room"], "G")
    client = await server.connect(created["room"], guest["token"])
    for kind, fields in [
        ("start", {}),
        ("settings", {"settings": {"target_score": 200}}),
        ("add_bot", {}),
        ("remove_bot", {"seat": 0}),
    ]:
        reply = await client.act(kind, **fields)
        assert reply["type"] == "error" and reply["code"] == "not_host", kind


# --- sockets ---------------------------------------------------------------------------------


async def test_hello_welcome_views_and_contiguous_versions(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    room = created["room"]
    guest = await server.join(room, "G")
    eve = await server.spectate(room)

    host = await server.connect(room, created["token"])
    welcome = host.frames[-1]
    assert welcome["you"] == {"seat": 0, "player_id": created["player_id"], "role": "player"}
    assert welcome["version"] == welcome["view"]["version"]
    check_view(welcome["view"], 0, welcome=True)
    assert welcome["view"]["status"] == "lobby" and welcome["view"]["host"] == 0
    assert welcome["view"]["seats"][0]["connected"] is True  # after its own hello
    assert welcome["view"]["seats"][1]["connected"] is False  # no socket yet

    watcher = await server.connect(room, eve)
    spectator_welcome = watcher.frames[-1]
    assert spectator_welcome["you"]["seat"] is None
    assert spectator_welcome["you"]["role"] == "spectator"
    check_view(spectator_welcome["view"], None, welcome=True)

    g = await server.connect(room, guest["token"])
    connected = await host.event("connected")
    assert connected["seat"] == 1

    bot = await host.act("add_bot")
    assert bot["type"] == "ack"
    assert host.view is not None and host.view["seats"][2]["bot"] is True
    assert host.view["seats"][2]["connected"] is True  # bots are always there

    reply = await host.act("start")
    assert reply["type"] == "ack"
    # The ack follows the actor's one `events` frame and names the last of its events.
    committed = host.frames[-2]
    assert committed["type"] == "events" and host.frames[-3]["type"] != "events"
    assert reply["version"] == committed["version"] == committed["events"][-1]["version"]
    assert "round_started" in kinds(committed)
    for client, seat in ((host, 0), (g, 1), (watcher, None)):
        await client.quiet(0.2)
        frames = [f for f in client.frames if f["type"] == "events"]
        assert frames, seat
        for frame in frames:
            versions = [e["version"] for e in frame["events"]]
            assert frame["version"] == frame["view"]["version"] == versions[-1]
            assert consecutive(versions)
            assert all(isinstance(e["kind"], str) for e in frame["events"])
            check_view(frame["view"], seat)
        assert consecutive(client.versions), (seat, client.versions)
        assert consecutive(e["version"] for e in client.events), seat
        # The start's commit reached every member as one frame with the same versions.
        theirs = client.frame_for(reply["version"])
        assert [e["version"] for e in theirs["events"]] == [
            e["version"] for e in committed["events"]
        ]
        assert client.view is not None and client.view["status"] == "playing"


async def test_bad_frames_and_unknown_types(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    unauth = await server.open(created["room"])
    await unauth.send({"type": "hello", "token": "not-a-token", "since": None})
    answer = await unauth.recv()
    assert answer["type"] == "error" and answer["code"] == "unauthorized"
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await unauth.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    silent = await server.open(created["room"])  # no hello within the limit (1 s here)
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await silent.recv(timeout=3)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401

    client = await server.connect(created["room"], created["token"])
    await client.send_raw("{nope")
    assert (await client.until(lambda f: f["type"] == "error"))["code"] == "bad_frame"
    reply = await client.act("levitate")
    assert reply["type"] == "error" and reply["code"] == "unknown_type"
    await client.send({"type": "ping"})
    pong = await client.until(lambda f: f["type"] == "pong")
    assert isinstance(pong["server_time"], int)


async def test_every_hello_is_answered_with_a_welcome(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    room = created["room"]
    guest = await server.join(room, "G")
    host = await server.connect(room, created["token"])
    await host.act("chat", text="one")
    seen = host.version
    await host.act("chat", text="two")
    # The same credential again, with `since`: the events after it, then a welcome.
    await host.send({"type": "hello", "token": created["token"], "since": seen})
    welcome = await host.until(lambda f: f["type"] == "welcome")
    assert welcome["version"] == host.version == welcome["view"]["version"]
    again = [
        f
        for f in host.frames
        if f["type"] == "events" and any(e["version"] == seen + 1 for e in f["events"])
    ]
    assert len(again) == 2  # first as it happened, then replayed before the welcome
    assert host.frames[-2] is again[-1] and again[-1]["version"] == welcome["version"]
    # Another seat's token cannot take this socket over.
    await host.send({"type": "hello", "token": guest["token"], "since": None})
    refused = await host.until(lambda f: f["type"] == "error")
    assert refused["code"] == "bad_frame"
    assert (await host.act("chat", text="still me"))["type"] == "ack"
    assert host.view is not None and host.view["you"]["seat"] == 0


async def test_since_resume_duplicate_id_and_stale(server: Harness) -> None:
    created = await server.create_room("H", QUIET)
    room = created["room"]
    guest = await server.join(room, "G")
    host = await server.connect(room, created["token"])
    g = await server.connect(room, guest["token"])
    await host.event("connected")

    # A resent id is not applied again: the same ack.
    first = await host.act("chat", id="same", text="hello")
    again = await host.act("chat", id="same", text="hello")
    assert first["type"] == again["type"] == "ack" and first["version"] == again["version"]

    seen = g.version
    await g.close()
    await host.act("chat", text="while away")
    back = await server.connect(room, guest["token"], since=seen)
    replayed = back.frames[:-1]
    assert replayed and all(f["type"] == "events" for f in replayed)
    assert back.events[0]["version"] == seen + 1
    assert "chat" in [e["kind"] for e in back.events]
    assert back.frames[-1]["type"] == "welcome"
    assert back.events[-1]["version"] == back.frames[-1]["version"]
    assert consecutive([seen, *back.versions])

    # `at` older than the room, on a command the newer state makes illegal: stale.
    old = host.version
    await host.act("add_bot")
    await host.act("start")
    reply = await host.act("settings", at=old, settings={"target_score": 200})
    assert reply["type"] == "error" and reply["code"] == "stale"


# --- hooked deals ----------------------------------------------------------------------------


async def hooked_table(
    server: Harness, hands: list[list[str]], top: str, dealer: int, **settings: Any
) -> tuple[str, list[Client], list[list[int]], list[int]]:
    """Seats 0..n-1 each with a socket, dealt exactly `hands` (padded to 7) and `top` first."""
    created = await server.create_room("P0", {**QUIET, **settings})
    room = created["room"]
    tokens = [created["token"]]
    for k in range(1, len(hands)):
        tokens.append((await server.join(room, f"P{k}"))["token"])
    deck = await server.deck(room)
    order, ids, _ = deal_order(deck, hands, top, dealer)
    clients = [await server.connect(room, t) for t in tokens]
    reply = await clients[0].act("settings", settings={"dealer": dealer, "deck_order": order})
    assert reply["type"] == "ack", reply
    assert (await clients[0].act("start"))["type"] == "ack"
    return room, clients, ids, order


async def test_a_hooked_deal_follows_section_5(server: Harness) -> None:
    created = await server.create_room("P0", QUIET)
    room = created["room"]
    tokens = [created["token"]] + [(await server.join(room, f"P{k}"))["token"] for k in (1, 2)]
    deck = await server.deck(room)
    numbers = [c for c in deck if c["kind"] == "number"]
    order = [c["id"] for c in numbers] + [c["id"] for c in deck if c["kind"] != "number"]
    clients = [await server.connect(room, t) for t in tokens]
    dealer = 1
    assert (await clients[0].act("settings", settings={"dealer": dealer, "deck_order": order}))[
        "type"
    ] == "ack"
    assert (await clients[0].act("start"))["type"] == "ack"
    for seat, client in enumerate(clients):
        if (client.view or {}).get("status") != "playing":
            await client.until(lambda f: f.get("view", {}).get("status") == "playing")
        view = client.view
        assert view is not None
        # One card at a time from dealer+1: seat s gets positions k*3 + (s - dealer - 1) % 3.
        offset = (seat - dealer - 1) % 3
        want = {order[k * 3 + offset] for k in range(7)}
        assert {c["id"] for c in view["you"]["hand"]} == want
        assert view["state"]["top"]["id"] == order[21]
        assert view["state"]["draw_count"] == len(order) - 22
    # The turn starts left of the dealer; its first draw is the next card of the order.
    turn = clients[0].view["state"]["turn"]  # type: ignore[index]
    assert turn == (dealer + 1) % 3
    await clients[turn].act("draw")
    drawn = [c["id"] for c in clients[turn].view["you"]["hand"]]  # type: ignore[index]
    assert order[22] in drawn


async def test_a_first_card_sent_back_goes_to_the_bottom(server: Harness) -> None:
    _room, clients, _, order = await hooked_table(server, [["red 1"], ["red 2"]], "wild_draw4", 0)
    await clients[0].quiet(0.2)
    view = clients[0].view
    assert view is not None
    # The Wild Draw Four went back under the pile; the next card of the order is on top.
    assert view["state"]["top"]["id"] == order[15]
    assert view["state"]["draw_count"] == len(order) - 15


async def test_uno_window_catch_and_not_catchable(server: Harness) -> None:
    _room, clients, _ids, _ = await hooked_table(
        server, [["red 3", "red 4"], ["blue 5", "blue 6"], ["green 7"]], "red 9", 2
    )
    p0, p1, _p2 = clients  # seat 2 holds 7 cards: nobody may call it out
    catch = await p1.act("catch", seat=2)
    assert catch["type"] == "error" and catch["code"] == "not_catchable"
    assert p0.view is not None and p0.view["state"]["turn"] == 0


async def test_uno_declared_and_caught_in_two_players(server: Harness) -> None:
    hand0 = ["red 1", "red 2", "red 3", "red 4", "red 5", "red 6", "red 7"]
    hand1 = ["blue 1", "blue 2", "blue 3", "blue 4", "blue 5", "blue 6", "blue 7"]
    _room, clients, ids, _ = await hooked_table(server, [hand0, hand1], "red 9", 1)
    p0, p1 = clients
    # Two players: red 1.. red 5 from seat 0 while seat 1 draws and passes each time.
    for k in range(5):
        assert (await p0.act("play", card=ids[0][k]))["type"] == "ack"
        assert (await p1.act("draw"))["type"] == "ack"
        if p1.view and p1.view["you"]["moves"]["pass"]:
            assert (await p1.act("pass"))["type"] == "ack"
    # Seat 0 plays its second-to-last card without declaring: it is catchable now.
    assert (await p0.act("play", card=ids[0][5]))["type"] == "ack"
    await p1.event("card_played")
    assert p1.view is not None and 0 in p1.view["you"]["moves"]["catch"]
    assert p1.view["state"]["deadlines"]["uno"] is not None
    caught = await p1.act("catch", seat=0)
    assert caught["type"] == "ack"
    assert p0.view is not None
    called = await p0.event("uno_caught")
    # The penalty cards come with the call-out, in the same frame.
    after = kinds(called.frame)[kinds(called.frame).index("uno_caught") :]
    assert after[:2] == ["uno_caught", "card_drawn"]
    assert called.view["seats"][0]["hand_count"] == 3  # one card plus the two of the penalty
    assert p0.frame_for(caught["version"]) is called.frame


@pytest.mark.parametrize("case", ["declared", "window_closed"])
async def test_uno_not_catchable(server: Harness, case: str) -> None:
    hand0 = ["red 1", "red 2", "red 3", "red 4", "red 5", "red 6", "red 7"]
    hand1 = ["blue 1", "blue 2", "blue 3", "blue 4", "blue 5", "blue 6", "blue 7"]
    _room, clients, ids, _ = await hooked_table(
        server, [hand0, hand1], "red 9", 1, uno_window_ms=500
    )
    p0, p1 = clients
    for k in range(5):
        assert (await p0.act("play", card=ids[0][k]))["type"] == "ack"
        assert (await p1.act("draw"))["type"] == "ack"
        if p1.view and p1.view["you"]["moves"]["pass"]:
            assert (await p1.act("pass"))["type"] == "ack"
    declared = case == "declared"
    assert (await p0.act("play", card=ids[0][5], uno=declared))["type"] == "ack"
    if declared:
        assert p0.seen("uno_declared")
    else:
        await p1.event("timer_expired", timeout=3)  # the catch window closed
    await p1.quiet(0.1)
    assert p1.view is not None and p1.view["you"]["moves"]["catch"] == []
    reply = await p1.act("catch", seat=0)
    assert reply["type"] == "error" and reply["code"] == "not_catchable"


async def test_wild_draw_four_challenge_and_round_end(server: Harness) -> None:
    hand0 = ["wild_draw4", "red 5"]
    hand1 = ["blue 1"]
    room, clients, ids, _ = await hooked_table(server, [hand0, hand1], "red 9", 1)
    p0, p1 = clients
    watcher = await server.connect(room, await server.spectate(room))
    # Seat 0 holds red 5 (matching red): the Wild Draw Four is an illegal one.
    reply = await p0.act("play", card=ids[0][0], color="blue")
    assert reply["type"] == "ack"
    await p1.event("challenge_opened")
    assert p1.view is not None and p1.view["you"]["moves"]["challenge"] is True
    assert p1.view["state"]["phase"] == "challenge" and p1.view["state"]["turn"] == 1
    assert (await p1.act("challenge"))["type"] == "ack"
    mine = p1.seen("challenge_resolved")[0]
    theirs = await p0.event("challenge_resolved")
    seen = await watcher.event("challenge_resolved")
    hand_ids = set(ids[0][1:])
    assert hand_ids <= card_ids(mine)  # shown to the challenger
    assert not (hand_ids & card_ids(seen))  # not to anyone else
    assert not (hand_ids & card_ids(theirs))
    assert mine["version"] == theirs["version"] == seen["version"]


async def test_round_end_match_record_and_match_end(server: Harness) -> None:
    hand0 = ["red 1"]
    hand1 = ["blue 1"]
    # Under `scoring: none` every round is a match of its own: round_ended, then match_ended.
    room, clients, _, _ = await hooked_table(server, [hand0, hand1], "red 9", 1, scoring="none")
    p0, p1 = clients
    await asyncio.wait_for(asyncio.gather(play_scripted(p0), play_scripted(p1)), 30)
    await p0.quiet(0.3)
    ended = p0.seen("round_ended")[0]
    check_view(ended.view, 0)
    assert set(ended) >= {"kind", "round", "winner", "hands", "points", "scores"}
    assert len(ended["hands"]) == len(ended["points"]) == len(ended["scores"]) == 2
    assert ended["winner"] in (0, 1) and ended["round"] == 1
    # Extension `hand_points` (additive): what each hand is worth, the winner's empty one 0.
    loser = 1 - ended["winner"]
    assert ended["hand_points"][ended["winner"]] == 0 and len(ended["hand_points"]) == 2
    if all(c["kind"] == "number" for c in ended["hands"][loser]):
        assert ended["hand_points"][loser] == sum(c["value"] for c in ended["hands"][loser])
    match_id = ended.view["match_id"]
    record = (await server.http.get(f"/api/matches/{match_id}")).json()
    assert set(record) >= {"match_id", "status", "settings", "players", "rounds", "scores"}
    assert record["match_id"] == match_id
    # PROTOCOL's `room` is kept, null: the code would let anyone with a results link watch
    # the room (issue 11, finding 10).
    assert record["room"] is None and room not in str(record)
    assert record["rounds"][0]["number"] == 1 and record["rounds"][0]["winner"] == ended["winner"]
    assert record["rounds"][0]["points"] == ended["points"]
    assert record["scores"] == ended["scores"]
    assert [(p["seat"], p["name"]) for p in record["players"]] == [(0, "P0"), (1, "P1")]
    assert set(record["rounds"][0]) >= {"number", "winner", "points", "ended_at"}
    (match_ended,) = p0.seen("match_ended")
    assert set(match_ended) >= {"winner", "scores"}
    assert record["status"] == "finished" and record["winner"] == match_ended["winner"]
