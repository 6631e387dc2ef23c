"""The HTTP API of PROTOCOL section 2 over a real server: shapes, statuses, error bodies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from e2e.harness import Harness, card_ids, running_server, server_settings

from app.engine.decks import FLIP_LIGHT


@pytest.fixture
async def server() -> AsyncIterator[Harness]:
    async with running_server(server_settings()) as harness:
        yield harness
        assert harness.auditor.problems == []  # the few frames read here are audited too


def _error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str)


async def test_create_room_answers_the_host_seat(server: Harness) -> None:
    response = await server.http.post("/api/rooms", json={"name": "Ayşe"})
    assert response.status_code == 201
    body = response.json()
    assert body["url"] == f"/r/{body['room']}"
    assert body["seat"] == 0
    assert len(body["room"]) >= 22 and len(body["token"]) >= 22  # ≥ 128 bits, URL-safe
    other = (await server.http.post("/api/rooms", json={"name": "B"})).json()
    assert other["room"] != body["room"] and other["token"] != body["token"]
    summary = await server.summary(body["room"])
    assert summary["status"] == "lobby" and summary["host"] == 0
    assert summary["seats"][0]["name"] == "Ayşe"
    assert body["token"] not in str(summary)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "bad_request"),
        ({"name": 5}, "bad_request"),
        ({"name": ""}, "bad_name"),
        ({"name": "x" * 100}, "bad_name"),
        ({"name": "Ali\u202e"}, "bad_name"),
        ({"name": "Ayşe", "settings": "fast"}, "bad_request"),
    ],
)
async def test_create_room_refuses_bad_bodies(
    server: Harness, body: dict[str, Any], code: str
) -> None:
    _error(await server.http.post("/api/rooms", json=body), 400, code)


async def test_create_room_refuses_invalid_json(server: Harness) -> None:
    response = await server.http.post(
        "/api/rooms", content=b"{nope", headers={"content-type": "application/json"}
    )
    _error(response, 400, "bad_request")


@pytest.mark.parametrize(
    "settings",
    [
        {"variant": "speed"},
        {"turn_seconds": 2},
        {"jump_in": "yes"},
        {"bluffing": None},
        {"target_score": True},
        {"no_such_setting": 1},
        {"variant": "flip", "custom_wilds": [{"effect": "reverse"}]},
    ],
)
async def test_bad_settings_are_refused_with_400(server: Harness, settings: dict[str, Any]) -> None:
    response = await server.http.post("/api/rooms", json={"name": "A", "settings": settings})
    _error(response, 400, "bad_settings")


async def test_test_hooks_are_refused_without_the_variable() -> None:
    async with running_server(server_settings(uno_test_hooks=False)) as harness:
        for hook in ({"dealer": 0}, {"deck_order": [1, 2]}, {"bot_delay_ms": 0}):
            response = await harness.http.post("/api/rooms", json={"name": "A", "settings": hook})
            _error(response, 400, "bad_settings")


async def test_join_full_started_and_unknown_rooms(server: Harness) -> None:
    host = await server.create_room("A", {"max_players": 2})
    room = host["room"]
    joined = await server.join(room, "B")
    assert joined["seat"] == 1 and joined["player_id"] != host["player_id"]
    _error(
        await server.http.post(f"/api/rooms/{room}/players", json={"name": "C"}), 409, "room_full"
    )
    _error(await server.http.post("/api/rooms/nope/players", json={"name": "C"}), 404, "not_found")
    _error(await server.http.post(f"/api/rooms/{room}/players", json={}), 400, "bad_request")

    other = await server.create_room("A")
    open_room = other["room"]
    await server.join(open_room, "B")
    client = await server.connect(open_room, other["token"])
    assert (await client.act("start"))["type"] == "ack"
    _error(
        await server.http.post(f"/api/rooms/{open_room}/players", json={"name": "Late"}),
        409,
        "already_started",
    )
    # Spectators may still come.
    assert (
        await server.http.post(f"/api/rooms/{open_room}/spectators", json={"name": "Eve"})
    ).status_code == 201


async def test_summary_never_shows_a_card(server: Harness) -> None:
    host = await server.create_room("A", {"turn_seconds": 0})
    room = host["room"]
    await server.join(room, "B")
    client = await server.connect(room, host["token"])
    assert (await client.act("start"))["type"] == "ack"
    summary = await server.summary(room)  # asserts no card id inside
    assert summary["status"] == "playing"
    counts = [s["hand_count"] for s in summary["seats"]]
    # The deal is random: a Draw Two turned up first gives the first player 9 cards.
    assert sorted(counts) in ([7, 7], [7, 9])
    assert summary["scores"] == [0, 0]
    assert "state" not in summary and "you" not in summary
    assert not card_ids(summary)


async def test_deck_listing(server: Harness) -> None:
    room = (await server.create_room("A"))["room"]
    listing = (await server.http.get(f"/api/rooms/{room}/deck")).json()
    assert listing["variant"] == "classic" and listing["size"] == 109
    assert sorted(c["id"] for c in listing["cards"]) == list(range(109))
    original = (await server.create_room("A", {"deck": "original"}))["room"]
    assert (await server.http.get(f"/api/rooms/{original}/deck")).json()["size"] == 108
    _error(await server.http.get("/api/rooms/nope/deck"), 404, "not_found")
    _error(await server.http.get("/api/rooms/nope"), 404, "not_found")


async def test_spectators_get_a_read_only_token(server: Harness) -> None:
    room = (await server.create_room("A"))["room"]
    response = await server.http.post(f"/api/rooms/{room}/spectators", json={})
    assert response.status_code == 201 and len(response.json()["token"]) >= 22
    _error(await server.http.post("/api/rooms/nope/spectators", json={}), 404, "not_found")


async def test_matches_health_pages_and_unknown_routes(server: Harness) -> None:
    _error(await server.http.get("/api/matches/nope"), 404, "not_found")
    health = await server.http.get("/healthz")
    assert health.status_code == 200
    assert health.json() == {"status": "ok", "store": True, "bus": True, "db": True}
    for path in ("/", "/r/some-room", "/t/some-tournament"):
        page = await server.http.get(path)
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert page.headers["referrer-policy"] == "no-referrer"
    _error(await server.http.get("/api/nothing-here"), 404, "not_found")
    _error(await server.http.delete("/api/rooms"), 405, "method_not_allowed")


async def test_oversized_bodies_are_refused(server: Harness) -> None:
    big = {"name": "A", "settings": {"pad": "x" * 70_000}}
    _error(await server.http.post("/api/rooms", json=big), 413, "too_large")

    async def chunks():  # type: ignore[no-untyped-def]
        for _ in range(20):
            yield b"x" * 8192

    response = await server.http.post(
        "/api/rooms", content=chunks(), headers={"content-type": "application/json"}
    )
    _error(response, 413, "too_large")
    assert response.headers["referrer-policy"] == "no-referrer"


def test_access_log_masks_room_codes() -> None:
    import logging

    from app.api.logfilter import MaskRoomCodes

    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/r/JREMcqxDQntU3A4J1QEutA?x=1", "1.1", 200),
        None,
    )
    assert MaskRoomCodes().filter(record)
    assert "JREMcqxDQntU3A4J1QEutA" not in record.getMessage()
    assert "/r/JREM…" in record.getMessage()
    match = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/api/matches/Qx9fLm2Zp0aBcDeF", "1.1", 200),
        None,
    )
    assert MaskRoomCodes().filter(match)
    assert "Qx9fLm2Zp0aBcDeF" not in match.getMessage()  # issue 11, finding 10


async def test_api_answers_are_not_cached(server: Harness) -> None:
    response = await server.http.post("/api/rooms", json={"name": "A"})
    assert response.headers["cache-control"] == "no-store"
    # Also the answers the middleware gives before the app sees the request (docs/protocol 1).
    refused = [
        await server.http.post(
            "/api/rooms", content=b"x" * 70_000, headers={"content-type": "application/json"}
        ),
        await server.http.post(
            "/api/rooms", content=b'{"name": "A"}', headers={"content-type": "text/plain"}
        ),
        await server.http.post(
            "/api/rooms", json={"name": "A"}, headers={"origin": "http://elsewhere.example"}
        ),
    ]
    assert [r.status_code for r in refused] == [413, 415, 403]
    assert all(r.headers.get("cache-control") == "no-store" for r in refused)


async def test_a_flip_card_id_does_not_tell_its_faces() -> None:
    """PROTOCOL 1: which dark face backs which light face is never sent. A card is sent with its
    id and the face in play, so were a Flip deck's ids to follow the public list of light faces
    (the deck listing without hooks), every dark face sent with its id would show its light
    face. Without hooks, the ids a player is dealt do not follow that list."""
    light = list(FLIP_LIGHT)
    agreeing = 0
    async with running_server(server_settings(uno_test_hooks=False)) as harness:
        for _ in range(3):
            host = await harness.create_room("A", {"variant": "flip"})
            room = host["room"]
            await harness.join(room, "B")
            listing = (await harness.http.get(f"/api/rooms/{room}/deck")).json()
            assert "cards" not in listing  # faces only: no ids, no pairing
            client = await harness.connect(room, host["token"])
            assert (await client.act("start"))["type"] == "ack"
            assert client.view is not None
            hand = client.view["you"]["hand"]
            assert len(hand) >= 7  # 8 when the first card (a Draw One) made the host draw
            agreeing += sum(light[card["id"]].to_json() == card["face"] for card in hand)
            await client.close()
    # Ids following the list would agree on all 21 cards; random ids on about 21 × 2/112.
    assert agreeing <= 6, agreeing
