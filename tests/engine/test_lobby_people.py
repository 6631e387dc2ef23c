"""Issue 12 in the engine: a player who left the lobby is never dealt in and is freed after
`lobby_drop_seconds`; the view shows when the host role passes and to whom, when a departed
seat is freed, and how many spectators watch; a spectator's chat is marked as theirs."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from app.engine import (
    AddBot,
    Chat,
    EngineError,
    Join,
    SetConnected,
    Start,
    Timeout,
    Watching,
    apply,
    deadlines,
    new_table,
    parse_settings,
    state_from_json,
    state_to_json,
    view,
)
from app.engine.legal import legal_actions, moves
from app.engine.lobby import START_GRACE_MS
from app.engine.state import Deadline, State

T0 = 1_764_453_000_000


def _lobby(n: int = 3, **settings: object) -> tuple[State, random.Random]:
    """`n` players, every one connected at T0 (seat 0 hosts)."""
    rng = random.Random(5)
    st = new_table("R", parse_settings(dict(settings)))
    for k in range(n):
        st, _ = apply(st, None, Join(name=f"P{k}", player_id=f"p{k}"), rng, T0)
        st, _ = apply(st, None, SetConnected(k, True), rng, T0)
    return st, rng


def _timer(st: State, kind: str) -> Deadline:
    return next(d for d in deadlines(st) if d.kind == kind)


def test_a_departed_seat_is_freed_after_the_setting_and_shown_until_then() -> None:
    st, rng = _lobby(3)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0 + 5_000)
    assert st.seats[1].away_since == T0 + 5_000
    seen = view(st, 0, T0 + 6_000)
    assert seen["seats"][1]["drop_at"] == T0 + 5_000 + 120_000
    assert seen["seats"][0]["drop_at"] is None and seen["seats"][2]["drop_at"] is None
    drop = _timer(st, "lobby_drop")
    assert (drop.at, drop.seat) == (T0 + 125_000, 1)
    st, events = apply(st, None, Timeout("lobby_drop", drop.set_at), rng, drop.at)
    assert [e.kind for e in events] == ["timer_expired", "player_left"]
    left = events[-1].public
    assert left == {"seat": 1, "name": "P1", "player_id": "p1", "bot": False, "reason": "away"}
    assert [s.name for s in st.seats] == ["P0", "P2"]
    assert not [d for d in deadlines(st) if d.kind == "lobby_drop"]


def test_coming_back_in_time_keeps_the_seat() -> None:
    st, rng = _lobby(2)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0)
    drop = _timer(st, "lobby_drop")
    st, _ = apply(st, None, SetConnected(1, True), rng, T0 + 60_000)
    assert st.seats[1].away_since is None
    assert view(st, 0, T0 + 60_000)["seats"][1]["drop_at"] is None
    st, events = apply(st, None, Timeout("lobby_drop", drop.set_at), rng, drop.at)
    assert events == [] and len(st.seats) == 2  # the stale timer does nothing


def test_the_earliest_departure_goes_first_and_seats_renumber() -> None:
    st, rng = _lobby(4)
    st, _ = apply(st, None, SetConnected(3, False), rng, T0)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0 + 30_000)
    first = _timer(st, "lobby_drop")
    assert first.seat == 3
    st, _ = apply(st, None, Timeout("lobby_drop", first.set_at), rng, first.at)
    assert [s.name for s in st.seats] == ["P0", "P1", "P2"]
    second = _timer(st, "lobby_drop")
    assert (second.at, second.seat) == (T0 + 150_000, 1)


def test_nobody_is_dropped_while_nobody_waits_and_a_return_frees_the_long_gone() -> None:
    st, rng = _lobby(2)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0)
    st, _ = apply(st, None, SetConnected(0, False), rng, T0 + 1_000)
    assert not [d for d in deadlines(st) if d.kind == "lobby_drop"]
    st, _ = apply(st, None, SetConnected(0, True), rng, T0 + 600_000)
    drop = _timer(st, "lobby_drop")
    assert drop.at <= T0 + 600_000
    st, _events = apply(st, None, Timeout("lobby_drop", drop.set_at), rng, T0 + 600_000)
    assert [s.name for s in st.seats] == ["P0"]


def test_start_deals_a_departed_player_in_and_their_token_goes_on() -> None:
    """A seat whose socket closed (a page refreshed in the lobby) is dealt in like any other:
    PROTOCOL loses a seat only by `leave`; the player back a moment later finds a hand. Only
    the lobby_drop timer (or the host's `remove_seat`) frees a departed seat."""
    st, rng = _lobby(3)
    st, _ = apply(st, 0, AddBot(), rng, T0)
    st, _ = apply(st, None, SetConnected(2, False), rng, T0 + 1_000)
    assert view(st, 0, T0 + 1_000)["you"]["moves"]["start"] is True
    st, events = apply(st, 0, Start(), rng, T0 + 2_000)
    kinds = [e.kind for e in events]
    assert "player_left" not in kinds and kinds[0] == "dealer_chosen"
    assert [s.name for s in st.seats] == ["P0", "P1", "P2", "Bot 1"]
    assert len(st.hands) == 4 and all(len(h) == 7 for h in st.hands)
    st, _ = apply(st, None, SetConnected(2, True), rng, T0 + 3_000)
    assert view(st, 2, T0 + 3_000)["you"]["hand"]


def test_a_player_away_longer_than_a_refresh_is_dealt_in_with_a_bot_playing_for_them() -> None:
    """Away from the lobby longer than START_GRACE_MS when the host deals: dealt in, and a bot
    plays the seat from the first turn (the table does not wait out their turns) until the
    player is back; the token goes on. Within the grace (a refresh) no bot: plain dealt in."""
    st, rng = _lobby(3)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0)
    st, _ = apply(st, None, SetConnected(2, False), rng, T0 + START_GRACE_MS - 1_000)
    st, events = apply(st, 0, Start(), rng, T0 + START_GRACE_MS)
    assert [e.public["seat"] for e in events if e.kind == "bot_took_over"] == [1]
    assert [s.afk for s in st.seats] == [False, True, False]
    assert len(st.hands) == 3


def test_the_setting_off_deals_a_long_departed_seat_in_without_a_bot() -> None:
    st, rng = _lobby(2, lobby_drop_seconds=0)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0)
    st, events = apply(st, 0, Start(), rng, T0 + 10 * START_GRACE_MS)
    assert "bot_took_over" not in [e.kind for e in events] and not st.seats[1].afk


def test_two_players_one_of_them_refreshing_may_still_start() -> None:
    st, rng = _lobby(2)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0)
    assert view(st, 0, T0)["you"]["moves"]["start"] is True
    st, _ = apply(st, 0, Start(), rng, T0)
    assert st.status == "playing" and len(st.hands) == 2


def test_start_needs_two_seats() -> None:
    st, rng = _lobby(1)
    assert view(st, 0, T0)["you"]["moves"]["start"] is False
    with pytest.raises(EngineError) as refused:
        apply(st, 0, Start(), rng, T0)
    assert refused.value.code == "bad_command"


def test_the_setting_off_keeps_the_departed_seat_and_deals_it_in() -> None:
    st, rng = _lobby(2, lobby_drop_seconds=0)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0)
    assert not [d for d in deadlines(st) if d.kind == "lobby_drop"]
    assert view(st, 0, T0)["seats"][1]["drop_at"] is None
    st, events = apply(st, 0, Start(), rng, T0)
    assert "player_left" not in [e.kind for e in events] and len(st.hands) == 2


def test_a_seat_whose_page_never_connected_has_not_departed() -> None:
    rng = random.Random(1)
    st = new_table("R", parse_settings({}))
    st, _ = apply(st, None, Join(name="Host", player_id="h"), rng, T0)
    st, _ = apply(st, None, SetConnected(0, True), rng, T0)
    st, _ = apply(st, None, Join(name="Api", player_id="a"), rng, T0)  # no socket yet
    assert view(st, 0, T0)["seats"][1]["drop_at"] is None
    st, _events = apply(st, 0, Start(), rng, T0 + 500_000)
    assert len(st.hands) == 2


def test_the_setting_is_checked_and_shown_only_when_changed() -> None:
    assert "lobby_drop_seconds" not in view(_lobby(1)[0], 0, T0)["settings"]
    assert parse_settings({"lobby_drop_seconds": 30}).lobby_drop_seconds == 30
    for bad in (5, 4000, True, "60"):
        with pytest.raises(EngineError):
            parse_settings({"lobby_drop_seconds": bad})
    st, _ = _lobby(1, lobby_drop_seconds=600)
    assert view(st, 0, T0)["settings"]["lobby_drop_seconds"] == 600


def test_the_view_says_when_the_host_role_passes_and_to_whom() -> None:
    st, rng = _lobby(3)
    assert view(st, 1, T0)["host_deadline"] is None
    st, _ = apply(st, None, SetConnected(0, False), rng, T0 + 1_000)
    assert view(st, 1, T0 + 2_000)["host_deadline"] == {"seat": 0, "at": T0 + 61_000, "to": 1}
    st, _ = apply(st, None, SetConnected(1, False), rng, T0 + 3_000)
    assert view(st, None, T0 + 3_000)["host_deadline"]["to"] == 2  # the next one still here
    st, _ = apply(st, None, SetConnected(0, True), rng, T0 + 4_000)
    assert view(st, 2, T0 + 4_000)["host_deadline"] is None


def test_a_host_with_nobody_to_take_over_is_shown_without_a_successor() -> None:
    st, rng = _lobby(2)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0)
    st, _ = apply(st, None, SetConnected(0, False), rng, T0 + 1)
    assert view(st, None, T0 + 2)["host_deadline"]["to"] is None


def test_spectators_are_counted_once_each_and_their_chat_is_marked() -> None:
    st, rng = _lobby(2)
    assert view(st, 0, T0)["spectators"] == 0
    st, events = apply(st, None, Watching("s_1", "Eve", True), rng, T0)
    assert [(e.kind, e.public) for e in events] == [
        ("spectator_joined", {"name": "Eve", "count": 1})
    ]
    same, none = apply(st, None, Watching("s_1", "Eve", True), rng, T0)
    assert none == [] and same is st  # a second socket of the same spectator is no news
    st, _ = apply(st, None, Watching("s_2", "Eve 2", True), rng, T0)
    assert view(st, 1, T0)["spectators"] == 2 and view(st, None, T0)["spectators"] == 2
    st, events = apply(st, None, Chat("hi\u202e all\n", spectator="Eve"), rng, T0)
    assert events[0].public == {"seat": None, "name": "Eve", "text": "hi all", "spectator": True}
    st, events = apply(st, 0, Chat("hello"), rng, T0)
    assert events[0].public == {"seat": 0, "name": "P0", "text": "hello"}  # unchanged
    with pytest.raises(EngineError):
        apply(st, None, Chat("x" * 301, spectator="Eve"), rng, T0)
    st, events = apply(st, None, Watching("s_1", "Eve", False), rng, T0)
    assert events[0].kind == "spectator_left" and events[0].public["count"] == 1


def test_departures_and_spectators_survive_a_snapshot() -> None:
    st, rng = _lobby(2)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0 + 7)
    st, _ = apply(st, None, Watching("s_1", "Eve", True), rng, T0)
    again = state_from_json(state_to_json(st))
    assert again == st
    assert again.seats[1].away_since == T0 + 7 and again.spectators == ("s_1",)
    old = state_to_json(st)
    del old["spectators"]
    for seat in old["seats"]:
        del seat["away_since"]
    older = state_from_json(old)  # a snapshot from before these fields
    assert older.spectators == () and older.seats[1].away_since is None


def test_a_tournament_table_is_dealt_by_its_tournament_not_by_its_host_seat() -> None:
    """The entrant in a tournament table's host seat could `start` at once, before its rivals
    arrived, and deal them in absent (their turns timing out until a bot covered them). Only
    the tournament's own start deals such a lobby; the host seat's is refused and changes
    nothing, and `start` is not among its moves."""
    rng = random.Random(3)
    st = new_table("R", replace(parse_settings({}), keep_departed=True, organised=True))
    for k in range(3):
        st, _ = apply(st, None, Join(name=f"P{k}", player_id=f"p{k}"), rng, T0)
    st, _ = apply(st, None, SetConnected(0, True), rng, T0)
    assert not [a for a in legal_actions(st, 0) if isinstance(a, Start)]
    assert moves(st, 0)["start"] is False
    with pytest.raises(EngineError) as refused:
        apply(st, 0, Start(), rng, T0)
    assert refused.value.code == "bad_command" and refused.value.state is None
    again = state_from_json(state_to_json(st))  # a checkpoint or the Redis blob keeps it
    assert again.settings.organised and again == st
    st, _ = apply(st, 0, Start(organiser=True), rng, T0)
    assert st.status == "playing" and len(st.hands) == 3


def test_a_table_that_keeps_departed_seats_deals_them_in_and_says_so_nowhere() -> None:
    rng = random.Random(2)
    st = new_table("R", replace(parse_settings({}), keep_departed=True))  # a tournament's
    for k in range(2):
        st, _ = apply(st, None, Join(name=f"P{k}", player_id=f"p{k}"), rng, T0)
        st, _ = apply(st, None, SetConnected(k, True), rng, T0)
    st, _ = apply(st, None, SetConnected(1, False), rng, T0)
    assert not [d for d in deadlines(st) if d.kind == "lobby_drop"]
    seen = view(st, 0, T0)
    assert seen["seats"][1]["drop_at"] is None and "keep_departed" not in seen["settings"]
    with pytest.raises(EngineError):
        parse_settings({"keep_departed": True})  # nobody sends it
    again = state_from_json(state_to_json(st))
    assert again.settings.keep_departed and again == st
    st, _ = apply(st, 0, Start(), rng, T0 + 900_000)
    assert len(st.hands) == 2
