"""The view dict of PROTOCOL.md section 3, field by field (players, spectators, lobby)."""

from __future__ import annotations

import random

from app.engine import apply, new_table, parse_settings, settings_to_json, view
from app.engine.actions import Join

from .helpers import T0, Table

VIEW_KEYS = {"room", "status", "version", "server_time", "settings", "host", "match_id", "round"}
SEAT_KEYS = {"seat", "name", "player_id", "bot", "connected", "hand_count", "uno", "score", "backs"}
MOVE_KEYS = {"play", "draw", "pass", "uno", "challenge", "accept", "catch", "choose"}
STATE_KEYS = {
    "top",
    "color",
    "side",
    "direction",
    "turn",
    "draw_count",
    "discard_count",
    "pending_draw",
    "draw_top_back",
    "phase",
    "deadlines",
}


def test_player_view_has_every_protocol_field() -> None:
    t = Table(3, first="red 3", turn_seconds=30)
    v = t.view(1)
    assert set(v) >= VIEW_KEYS
    assert "seats" in v and "you" in v and "state" in v
    assert v["room"] == "T"
    assert v["status"] == "playing"
    assert v["version"] == t.events[-1].version
    assert v["server_time"] == t.now
    assert v["settings"] == settings_to_json(t.settings)
    assert v["host"] == 0
    assert isinstance(v["match_id"], str) and v["match_id"]
    assert v["round"] == 1
    for i, seat in enumerate(v["seats"]):
        assert set(seat) >= SEAT_KEYS
        assert seat["seat"] == i
        assert seat["name"] == f"P{i}" and seat["player_id"] == f"p{i}"
        assert seat["bot"] is False and seat["connected"] is True
        assert seat["hand_count"] == 7 and seat["uno"] is False and seat["score"] == 0
    you = v["you"]
    assert you["seat"] == 1
    assert len(you["hand"]) == 7
    for card in you["hand"]:
        assert set(card) >= {"id", "color", "kind", "value"}
    assert set(you["moves"]) >= MOVE_KEYS
    assert you["moves"]["play"] == []  # not seat 1's turn, no jump-in
    assert you["moves"]["draw"] is False
    st = v["state"]
    assert set(st) >= STATE_KEYS
    assert st["top"]["id"] == t.first_id and st["color"] == "red"
    assert st["side"] == "light" and st["direction"] == 1 and st["turn"] == 0
    assert st["phase"] == "play" and st["pending_draw"] == 0
    assert {"turn", "uno", "challenge"} <= set(st["deadlines"])
    assert st["deadlines"]["turn"] == {"seat": 0, "at": t.deadline("turn").at}
    assert st["deadlines"]["uno"] is None and st["deadlines"]["challenge"] is None


def test_player_in_turn_sees_its_moves() -> None:
    hand0 = ["red 7", "wild", "blue 1", "blue 2", "green 1", "green 2", "yellow 1"]
    t = Table(2, hands={0: hand0}, first="red 3")
    moves = t.moves(0)
    by_card = {p["card"]: p for p in moves["play"]}
    assert set(by_card) == {t.hand_ids[0][0], t.hand_ids[0][1]}
    assert by_card[t.hand_ids[0][0]]["colors"] is None
    assert set(by_card[t.hand_ids[0][1]]["colors"]) == {"red", "yellow", "green", "blue"}
    assert by_card[t.hand_ids[0][0]]["targets"] is None
    assert moves["draw"] is True and moves["pass"] is False
    assert moves["catch"] == [] and moves["choose"] is None


def test_spectator_view_has_no_you_and_no_hand() -> None:
    t = Table(3, first="red 3")
    v = t.view(None)
    assert v["you"] is None
    assert [s["hand_count"] for s in v["seats"]] == [7, 7, 7]


def test_lobby_view() -> None:
    state = new_table("ROOM", parse_settings({}))
    state, events = apply(state, None, Join(name="Ayşe", player_id="a"), random.Random(1), T0)
    v = view(state, 0, T0)
    assert v["status"] == "lobby"
    assert v["version"] == events[-1].version == len(events)
    assert v["host"] == 0
    assert v["seats"][0]["name"] == "Ayşe"
    assert v["you"]["seat"] == 0
