"""Seats joined over HTTP count as connected only after their socket's hello, and the host
role passes after the host has stayed away for 60 s (PROTOCOL.md section 3)."""

from __future__ import annotations

import random

from app.engine import (
    AddBot,
    Join,
    Leave,
    SetConnected,
    Timeout,
    apply,
    deadlines,
    new_table,
    parse_settings,
)
from app.engine.state import State

T0 = 1_764_453_000_000


def _lobby() -> tuple[State, random.Random]:
    rng = random.Random(7)
    st = new_table("R", parse_settings({}))
    for k in range(3):
        st, _ = apply(st, None, Join(name=f"P{k}", player_id=f"p{k}"), rng, T0)
    return st, rng


def test_joined_seats_are_not_connected_until_hello_but_bots_are() -> None:
    st, rng = _lobby()
    assert [s.connected for s in st.seats] == [False, False, False]
    st, events = apply(st, None, SetConnected(1, True), rng, T0)
    assert [e.kind for e in events] == ["connected"]
    st, _ = apply(st, 0, AddBot(), rng, T0)
    assert [s.connected for s in st.seats] == [False, True, False, True]


def test_an_absent_host_hands_over_after_60_s_to_the_next_connected_human() -> None:
    st, rng = _lobby()
    st, _ = apply(st, None, SetConnected(2, True), rng, T0)
    st, _ = apply(st, 0, AddBot(), rng, T0)  # a bot never becomes host
    host_timer = next(d for d in deadlines(st) if d.kind == "host")
    assert host_timer.at == T0 + 60_000 and host_timer.seat == 0
    st, events = apply(st, None, Timeout("host", host_timer.set_at), rng, host_timer.at)
    assert st.host == 2  # seat 1 never said hello: it is skipped
    assert [e.kind for e in events][-1] == "host_changed"


def test_a_host_who_says_hello_keeps_the_role() -> None:
    st, rng = _lobby()
    st, _ = apply(st, None, SetConnected(1, True), rng, T0)
    st, _ = apply(st, None, SetConnected(0, True), rng, T0 + 1000)
    assert not [d for d in deadlines(st) if d.kind == "host"]
    assert st.host == 0


def test_a_host_on_the_last_seat_or_alone_can_leave_the_lobby() -> None:
    """The server applies with `trace`, which keeps the table after each event: the one after
    `player_left` must not name the removed host's seat (past the end of the seats, it broke
    the command with an IndexError: `internal`, nothing applied)."""
    st, rng = _lobby()
    st, _ = apply(st, None, SetConnected(2, True), rng, T0)
    host_timer = next(d for d in deadlines(st) if d.kind == "host")
    st, _ = apply(st, None, Timeout("host", host_timer.set_at), rng, host_timer.at)
    assert st.host == 2  # the last seat
    after, events = apply(st, 2, Leave(), rng, host_timer.at + 1, trace=True)
    assert [e.kind for e in events] == ["player_left", "host_changed"]
    assert len(after.seats) == 2 and events[-1].public == {"host": after.host}
    between = events[0].after
    assert between is not None
    assert between.host is None or between.host < len(between.seats)

    alone = new_table("R", parse_settings({}))
    alone, _ = apply(alone, None, Join(name="Solo", player_id="p0"), rng, T0)
    alone, events = apply(alone, 0, Leave(), rng, T0 + 1, trace=True)
    assert [e.kind for e in events] == ["player_left", "host_changed"]
    assert alone.seats == [] and alone.host is None
