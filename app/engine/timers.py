"""Deadlines as data (RULES 29-31): which timers a state implies, and what a Timeout does.

The server sleeps until the earliest `Deadline` and applies `Timeout(kind, set_at)`; one
whose deadline is gone or was set at another version is ignored, so a timer never fires for
a state that has moved on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from app.engine.actions import Timeout
from app.engine.lobby import begin, host_timeout, lobby_drop_timeout, next_drop
from app.engine.play import do_accept, do_draw, do_pass, take_penalty
from app.engine.state import UNO_EXPOSED, Deadline, State
from app.engine.table import Ctx, close_window, keep_turn

HOST_GRACE_MS: Final = 60_000


def sync_deadlines(st: State, now: int) -> None:
    """Bring `st.deadlines` in line with the state; a kept deadline keeps its `set_at`.

    The dict is shared with the state this one was cloned from: read `st.deadlines`, write
    only through `st.w_deadlines()` (which copies it the first time)."""
    s = st.settings
    status = st.status
    playing = status == "playing"
    want = ""
    if playing:
        phase = st.phase
        if phase == "challenge":
            want = "challenge"
        elif s.turn_seconds and phase in ("play", "after_draw", "penalty", "choose"):
            # (a literal tuple: compiled, string comparisons instead of a generic `in`)
            want = "turn"
        if want and (st.turn_key != st.turn_serial or want not in st.deadlines):
            secs = s.turn_seconds if want == "turn" else s.challenge_seconds
            st.w_deadlines()[want] = Deadline(want, now + secs * 1000, st.version, st.turn)
            st.turn_key = st.turn_serial
    # The common case: the one timer wanted is all there is, and nothing else is due.
    only_want = len(st.deadlines) == (1 if want else 0) and (not want or want in st.deadlines)
    host_here = st.host is None or st.seats[st.host].connected
    if only_want and host_here and (playing or (not s.next_round_seconds and status != "lobby")):
        return
    if want != "turn" and "turn" in st.deadlines:
        del st.w_deadlines()["turn"]
    if want != "challenge" and "challenge" in st.deadlines:
        del st.w_deadlines()["challenge"]
    uno = st.deadlines.get("uno")
    if uno is not None:
        exposed = [i for i, u in enumerate(st.uno) if u == UNO_EXPOSED]
        if not playing or not exposed:
            del st.w_deadlines()["uno"]
        elif uno.seat not in exposed:
            st.w_deadlines()["uno"] = Deadline(uno.kind, uno.at, uno.set_at, exposed[0])
    if playing:
        if "next_round" in st.deadlines:
            del st.w_deadlines()["next_round"]
    else:
        # Under `scoring: none` a match_over deals the next match by itself, without end: only
        # while someone is there (a person's seat or a spectator with a socket open), or a
        # table everyone left (bots, and seats handed to bots) would play and record matches
        # for nobody, for ever, and never go idle. Someone's return sets the wait again.
        pause = status == "round_over" or (
            status == "match_over" and s.scoring == "none" and _someone_here(st)
        )
        if pause and s.next_round_seconds:
            if "next_round" not in st.deadlines:
                st.w_deadlines()["next_round"] = Deadline(
                    "next_round", now + s.next_round_seconds * 1000, st.version, None
                )
        elif "next_round" in st.deadlines:
            del st.w_deadlines()["next_round"]
    host = st.host
    if host is not None and not st.seats[host].connected:
        if "host" not in st.deadlines:
            st.w_deadlines()["host"] = Deadline("host", now + HOST_GRACE_MS, st.version, host)
    elif "host" in st.deadlines:
        del st.w_deadlines()["host"]
    _sync_lobby_drop(st)


def _someone_here(st: State) -> bool:
    """A human seat (not left, not a bot) or a spectator with a socket open."""
    return bool(st.spectators) or any(info.connected and not info.bot for info in st.seats)


def _sync_lobby_drop(st: State) -> None:
    """The `lobby_drop` deadline: when the first departed lobby seat is freed. It keeps its
    `set_at` while its time stays the same (only the seat number may move down)."""
    due = next_drop(st)
    old = st.deadlines.get("lobby_drop")
    if due is None:
        if old is not None:
            del st.w_deadlines()["lobby_drop"]
        return
    at, seat = due
    if old is None or old.at != at:
        st.w_deadlines()["lobby_drop"] = Deadline("lobby_drop", at, st.version, seat)
    elif old.seat != seat:
        st.w_deadlines()["lobby_drop"] = Deadline("lobby_drop", at, old.set_at, seat)


def deadlines(st: State) -> list[Deadline]:
    return sorted(st.deadlines.values(), key=lambda d: (d.at, d.kind))


def on_timeout(ctx: Ctx, act: Timeout) -> None:
    st = ctx.st
    d = st.deadlines.get(act.kind)
    if d is None or d.set_at != act.set_at:
        return  # stale: the state moved on
    del st.w_deadlines()[act.kind]
    ctx.emit("timer_expired", {"timer": act.kind, "seat": d.seat})
    if act.kind == "turn":
        _turn_timeout(ctx, st.turn)
    elif act.kind == "challenge":
        do_accept(ctx, st.turn, voluntary=False)
    elif act.kind == "uno":
        close_window(st)
    elif act.kind == "next_round":
        begin(ctx)
    elif act.kind == "host":
        host_timeout(ctx)
    elif act.kind == "lobby_drop":
        lobby_drop_timeout(ctx)


def _turn_timeout(ctx: Ctx, seat: int) -> None:
    """RULES 29: act for the player (the whole turn: a color to name, then the draw and the
    pass), then count the one expiry towards AFK."""
    st = ctx.st
    if st.phase == "choose":
        color = ctx.rng.choice(st.deck.colors(st.side))
        ctx.settle()
        st.color = color
        ctx.emit("color_chosen", {"seat": seat, "color": color, "auto": True})
        keep_turn(st, "play")
    if st.phase == "play":
        do_draw(ctx, seat, voluntary=False)
        after: str = st.phase  # do_draw moved it on (mypy would keep it narrowed to "play")
        if st.status == "playing" and st.turn == seat and after == "after_draw":
            do_pass(ctx, seat, voluntary=False)
    elif st.phase == "after_draw":
        do_pass(ctx, seat, voluntary=False)
    elif st.phase == "penalty":
        take_penalty(ctx, seat)
    if not 0 <= seat < len(st.afk_count):
        return
    ctx.settle()
    st.w_afk()[seat] += 1
    info = st.seats[seat]
    if not info.bot and not info.afk and st.afk_count[seat] >= st.settings.afk_timeouts:
        st.w_seats()[seat] = replace(info, afk=True)
        ctx.emit("bot_took_over", {"seat": seat})
