"""The view dict of PROTOCOL.md section 3, field by field (players, spectators, lobby)."""

from __future__ import annotations

import random

from app.engine import apply, deck_listing, new_table, parse_settings, settings_to_json, view
from app.engine.actions import Join

from .helpers import T0, Table, quick_win_table, win_quickly

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
        # Joined, but no socket has said hello for the seat: not connected.
        assert seat["bot"] is False and seat["connected"] is False
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


def test_a_wild_on_the_pile_keeps_color_null_and_the_state_names_it() -> None:
    t = Table(2, hands={0: ["wild"]}, first="red 3")
    t.play(0, "wild", color="blue")
    assert t.top["kind"] == "wild" and t.top["color"] is None
    assert t.st["color"] == "blue"
    assert all(c["color"] is None for c in t.hand(0) if c["kind"].startswith("wild"))


def test_round_and_match_ended_fields() -> None:
    t = quick_win_table(["wild", "wild_draw4"], target_score=50)
    win_quickly(t)
    ended = t.find("round_ended").public
    keys = {"round", "winner", "hands", "points", "scores", "match_id", "reason"}
    assert keys | {"started_at", "ended_at"} <= set(ended)
    assert ended["round"] == 1 and ended["winner"] == 0
    assert ended["match_id"] == t.view(None)["match_id"]
    assert ended["started_at"] <= ended["ended_at"] == t.now
    assert len(ended["hands"]) == 2 and ended["hands"][0] == []
    # Extension `hand_points`: each hand's worth; the winner collects the other's.
    assert ended["hand_points"] == [0, ended["points"][0]]
    match = t.find("match_ended").public
    assert {"winner", "scores", "match_id"} <= set(match)
    assert match["match_id"] == ended["match_id"] and match["scores"] == ended["scores"]


def test_flip_deck_listing_without_hooks_has_faces_only() -> None:
    t = Table(2, variant="flip", start=False, dealer=None)
    listing = deck_listing(t.state, test_hooks=False)
    assert listing["variant"] == "flip" and listing["size"] == 112
    assert "cards" not in listing
    assert len(listing["light"]) == len(listing["dark"]) == 112
    assert all("id" not in f for f in listing["light"] + listing["dark"])
    hooked = deck_listing(t.state, test_hooks=True)
    assert {"id", "light", "dark"} <= set(hooked["cards"][0])


def test_classic_deck_listing_lists_every_card_with_an_id() -> None:
    t = Table(2, start=False, dealer=None, deck="original")
    listing = deck_listing(t.state, test_hooks=False)
    assert listing["variant"] == "classic" and listing["size"] == 108
    assert sorted(c["id"] for c in listing["cards"]) == list(range(108))
    kinds = [c["kind"] for c in listing["cards"]]
    assert kinds.count("wild") == 4 and kinds.count("wild_draw4") == 4
    assert kinds.count("number") == 76
    assert sum(1 for c in listing["cards"] if c["kind"] == "number" and c["value"] == 0) == 4
