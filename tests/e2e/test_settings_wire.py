"""Every malformed setting gets the same answer on both paths (PROTOCOL 4): `400` with code
`bad_settings` when creating a room, an `error` frame `bad_settings` for the `settings`
command; nothing is changed. Wrong JSON types, out of range, unknown keys. A `settings`
value that is no object at all is a malformed body or frame: `bad_request` / `bad_frame`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from e2e.harness import Harness

MALFORMED: list[Any] = [
    {"speed": "fast"},
    {"hooks_allowed": True},
    {"keep_departed": True},
    {"variant": "uno"},
    {"variant": None},
    {"deck": 108},
    {"jump_in": "yes"},
    {"jump_in": 0},
    {"jump_in": None},
    {"target_score": "500"},
    {"target_score": 500.5},
    {"target_score": 10**30},
    {"target_score": -(10**30)},
    {"target_score": True},
    {"target_score": 49},
    {"turn_seconds": 3},
    {"turn_seconds": None},
    {"max_players": 11},
    {"max_players": [10]},
    {"uno_window_ms": {"ms": 3000}},
    {"custom_wilds": None},
    {"custom_wilds": "reverse"},
    {"custom_wilds": [{"effect": "reverse", "label": None}]},
    {"custom_wilds": [{"effect": "reverse", "n": None}]},
    {"custom_wilds": [{"effect": "next_draws", "n": None}]},
    {"custom_wilds": [{"effect": "reverse", "label": 7}]},
    {"custom_wilds": [{"effect": "reverse"}], "variant": "flip"},
    {"custom_wilds": [[]]},
    {"dealer": 10},
    {"dealer": -1},
    {"dealer": "0"},
    {"deck_order": [1, 2, 3]},
    {"deck_order": {"0": 1}},
    {"bot_delay_ms": -5},
]


@pytest.mark.parametrize("settings", MALFORMED, ids=repr)
async def test_a_malformed_setting_is_bad_settings_on_both_paths(
    server: Harness, settings: Any
) -> None:
    created = await server.http.post("/api/rooms", json={"name": "Ayşe", "settings": settings})
    assert created.status_code == 400, created.text
    assert created.json()["error"]["code"] == "bad_settings", created.text

    host = await server.create_room("Ayşe")
    client = await server.connect(host["room"], host["token"])
    before = client.version
    refused = await client.act("settings", settings=settings)
    assert refused["type"] == "error" and refused["code"] == "bad_settings", refused
    assert await server.version(host["room"]) == before


async def test_an_empty_custom_wilds_list_is_accepted_in_every_variant(server: Harness) -> None:
    """`[]` is the default and what every settings object carries: a client that sends a whole
    settings object back (or clears the list when it leaves the classic deck, as the web
    form does) is not refused."""
    for variant in ("flip", "all_wild"):
        created = await server.http.post(
            "/api/rooms",
            json={"name": "Ayşe", "settings": {"variant": variant, "custom_wilds": []}},
        )
        assert created.status_code == 201, created.text


async def test_settings_null_means_no_settings(server: Harness) -> None:
    created = await server.http.post("/api/rooms", json={"name": "Ayşe", "settings": None})
    assert created.status_code == 201, created.text


@pytest.mark.parametrize("settings", [[], "classic", 5, True, [{"jump_in": True}]], ids=repr)
async def test_settings_that_are_no_object_are_a_malformed_body_or_frame(
    server: Harness, settings: Any
) -> None:
    created = await server.http.post("/api/rooms", json={"name": "Ayşe", "settings": settings})
    assert created.status_code == 400, created.text
    assert created.json()["error"]["code"] == "bad_request", created.text
    host = await server.create_room("Ayşe")
    client = await server.connect(host["room"], host["token"])
    refused = await client.act("settings", settings=settings)
    assert refused["type"] == "error" and refused["code"] == "bad_frame", refused


@pytest.mark.parametrize(
    "label", ["\ud800", "a\u202eb", "line\nbreak", "nul\x00", "tab\tstop", "\u2066x\u2069"]
)
async def test_a_custom_wild_label_must_be_printable_text(server: Harness, label: str) -> None:
    """A label reaches every screen like a chat line, so what chat removes is refused here:
    control characters, line breaks and bidi controls (an override makes the card read as
    something else). A lone surrogate, which Python's JSON reader lets through over HTTP,
    could not even be encoded back: it must be refused, not stored."""
    settings = {"custom_wilds": [{"effect": "reverse", "label": label}]}
    body = json.dumps({"name": "Ayşe", "settings": settings})  # (\\ud800 as an escape)
    created = await server.http.post(
        "/api/rooms", content=body, headers={"content-type": "application/json"}
    )
    assert created.status_code == 400, created.text
    assert created.json()["error"]["code"] == "bad_settings", created.text
    host = await server.create_room("Ayşe")
    client = await server.open(host["room"])
    await client.send({"type": "hello", "token": host["token"], "since": None})
    await client.until(lambda f: f["type"] == "welcome")
    await client.send_raw(
        json.dumps({"type": "settings", "id": "s1", "settings": settings}, ensure_ascii=True)
    )
    # (orjson reads no lone surrogate: that frame is not JSON, so its error has no id)
    refused = await client.until(lambda f: f["type"] in ("error", "ack"))
    assert refused["type"] == "error", refused
    assert refused["code"] == ("bad_frame" if label == "\ud800" else "bad_settings"), refused


async def test_a_custom_wild_label_may_hold_emoji_and_any_script(server: Harness) -> None:
    label = "Ayşe 👩‍👩‍👧 سارا ✨"
    created = await server.create_room(
        "Ayşe", {"custom_wilds": [{"effect": "reverse", "label": label}]}
    )
    summary = await server.summary(created["room"])
    assert summary["settings"]["custom_wilds"] == [{"effect": "reverse", "label": label}]
