"""Seats, host, settings, connections, chat and `start`: everything around the cards."""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from app.engine.actions import (
    AddBot,
    ChangeSettings,
    Chat,
    Join,
    RemoveBot,
    SetConnected,
    Start,
    Watching,
)
from app.engine.deal import next_round, start_match
from app.engine.decks import deck_for, new_pairing
from app.engine.settings import parse_settings, settings_to_json
from app.engine.state import SeatInfo, State
from app.engine.table import Ctx, fail
from app.engine.text import clean_chat

MAX_NAME: Final = 128  # code points; the service checks the name rule (app/rooms/names.py)
MAX_CHAT: Final = 300
# A departed lobby seat dealt in this long after its socket closed gets a bot at once: longer
# than a page's refresh or a phone's change of network, short of the lobby_drop timer.
START_GRACE_MS: Final = 15_000


def _seat(st: State, seat: int | None) -> int:
    if seat is None or not 0 <= seat < len(st.seats):
        raise fail("bad_command", "no such seat")
    return seat


def _host_only(st: State, seat: int | None) -> int:
    if seat is None or seat != st.host:
        raise fail("not_host", "only the host can do that")
    return seat


def _in_lobby(st: State) -> None:
    if st.status != "lobby":
        raise fail("already_started", "the game has started")


def _lobby_command(st: State) -> None:
    """Socket commands of the lobby answer `wrong_phase` later, like every other command
    sent in the wrong phase (HTTP joins keep `already_started`, a 409)."""
    if st.status != "lobby":
        raise fail("wrong_phase", "only in the lobby")


def _check_room(st: State) -> None:
    _in_lobby(st)
    if len(st.seats) >= st.settings.max_players:
        raise fail("room_full", "every seat is taken")


def ensure_pairing(ctx: Ctx) -> None:
    """Flip decks are paired as soon as the table is Flip, so the hook listing can show it."""
    st = ctx.st
    if st.settings.variant == "flip" and st.pairing is None:
        st.pairing = new_pairing(ctx.rng)
        st.deck = deck_for(st.settings, st.pairing)


def do_join(ctx: Ctx, act: Join) -> None:
    st = ctx.st
    _check_room(st)
    name = act.name.strip()
    if not name or len(name) > MAX_NAME:
        raise fail("bad_command", f"a name has 1 to {MAX_NAME} characters")
    if any(s.player_id == act.player_id for s in st.seats):
        raise fail("bad_command", "already seated")
    # A human joins over HTTP; the seat counts as connected only once its socket says hello.
    st.w_seats().append(SeatInfo(name=name, player_id=act.player_id, connected=False))
    seat = len(st.seats) - 1
    ctx.emit(
        "player_joined", {"seat": seat, "name": name, "player_id": act.player_id, "bot": False}
    )
    if st.host is None:
        ctx.settle()
        st.host = seat
        ctx.emit("host_changed", {"host": seat})


def do_add_bot(ctx: Ctx, seat: int | None, act: AddBot) -> None:
    st = ctx.st
    _host_only(st, seat)
    _lobby_command(st)
    _check_room(st)
    names = {s.name for s in st.seats}
    k = 1
    while f"Bot {k}" in names:
        k += 1
    player_id = f"bot-{ctx.rng.getrandbits(64):016x}"
    st.w_seats().append(SeatInfo(name=f"Bot {k}", player_id=player_id, bot=True))
    new = len(st.seats) - 1
    ctx.emit(
        "player_joined", {"seat": new, "name": f"Bot {k}", "player_id": player_id, "bot": True}
    )


def _remove_seat(ctx: Ctx, seat: int, reason: str | None = None) -> None:
    """Lobby only: later seats move down one, so seats stay numbered 0..n-1."""
    st = ctx.st
    info = st.w_seats().pop(seat)
    left = {"seat": seat, "name": info.name, "player_id": info.player_id, "bot": info.bot}
    if reason is not None:
        left["reason"] = reason
    ctx.emit("player_left", left)
    if st.host is not None and st.host > seat:
        st.host -= 1
    elif st.host == seat:
        # Between `player_left` and `host_changed` nobody is host: the kept table after
        # `player_left` must not name the removed seat (past the end of the seats when it was
        # the last one, or alone) or whoever moved down into its number.
        st.host = None
        ctx.settle()
        new = _next_host(st, seat, None) if st.seats else None
        st.host = new  # the seat number now names someone else: always announce
        ctx.emit("host_changed", {"host": new})


# --- departed lobby seats -------------------------------------------------------------------
# A human whose socket closed in the lobby has "departed" (the seat keeps `away_since`). With
# `lobby_drop_seconds` on, such a seat is never dealt in (`start` frees it) and is freed by
# itself once away that long, so friends are not kept waiting for a closed tab.


def departed(info: SeatInfo) -> bool:
    """A human seat that had a socket and lost it (a seat joined over HTTP whose page has
    not connected yet has not departed)."""
    return not info.bot and not info.connected and not info.left and info.away_since is not None


def _drop_seconds(st: State) -> int:
    """How long the lobby keeps a departed seat; 0: for good (dealt in, as before)."""
    return 0 if st.settings.keep_departed else st.settings.lobby_drop_seconds


def drop_at(st: State, seat: int) -> int | None:
    """When the lobby frees `seat` (ms), or None: not departed, not the lobby, or never."""
    secs = _drop_seconds(st)
    info = st.seats[seat]
    if st.status != "lobby" or not secs or info.away_since is None or not departed(info):
        return None
    return info.away_since + secs * 1000


def next_drop(st: State) -> tuple[int, int] | None:
    """(when, seat) of the first departed seat the lobby will free. Only while a human is
    connected: someone is waiting for the seat; a lobby everyone has left keeps its seats for
    whoever comes back first (and that one's return frees the seats long gone at once)."""
    if st.status != "lobby" or not _drop_seconds(st):
        return None
    if not any(s.connected and not s.bot for s in st.seats):
        return None
    first: tuple[int, int] | None = None
    for seat in range(len(st.seats)):
        at = drop_at(st, seat)
        if at is not None and (first is None or at < first[0]):
            first = (at, seat)
    return first


def _free(ctx: Ctx, seats: list[int]) -> None:
    for seat in sorted(seats, reverse=True):  # the highest first: lower numbers stay right
        ctx.settle()
        _remove_seat(ctx, seat, "away")


def _long_departed(st: State, seat: int, now: int) -> bool:
    """Departed from the lobby longer than a page's refresh (and the lobby frees departed
    seats at all: not with lobby_drop_seconds 0, nor at a tournament's table)."""
    info = st.seats[seat]
    since = info.away_since
    return (
        bool(_drop_seconds(st))
        and departed(info)
        and since is not None
        and now - since >= START_GRACE_MS
    )


def lobby_drop_timeout(ctx: Ctx) -> None:
    """The `lobby_drop` deadline: free every departed seat whose time has come."""
    st = ctx.st
    due = []
    for seat in range(len(st.seats)):
        at = drop_at(st, seat)
        if at is not None and at <= ctx.now:
            due.append(seat)
    _free(ctx, due)


def do_remove_bot(ctx: Ctx, seat: int | None, act: RemoveBot) -> None:
    st = ctx.st
    _host_only(st, seat)
    _lobby_command(st)
    target = _seat(st, act.seat)
    if target == seat:
        raise fail("bad_command", "the host leaves with `leave`")
    if not st.seats[target].bot and not act.any_seat:
        raise fail("bad_command", "that seat is not a bot")
    if not st.seats[target].bot and st.settings.organised:
        # A tournament's table: its seats are the tournament's entrants, and the entrant in
        # the host seat must not free a rival's (a freed entrant forfeits the table).
        raise fail("bad_command", "a tournament table's players cannot be removed")
    _remove_seat(ctx, target)


def do_leave(ctx: Ctx, seat: int | None) -> None:
    st = ctx.st
    seat = _seat(st, seat)
    if st.status == "lobby":
        _remove_seat(ctx, seat)
        return
    info = st.seats[seat]
    st.w_seats()[seat] = replace(info, bot=True, connected=False, left=True)
    ctx.emit(
        "player_left", {"seat": seat, "name": info.name, "player_id": info.player_id, "bot": True}
    )
    if st.host == seat:
        _set_host(ctx, _next_host(st, seat + 1, seat))


def _next_host(st: State, start: int, skip: int | None) -> int | None:
    """The next connected human seat from `start` on (never `skip`), or None."""
    n = len(st.seats)
    for k in range(n):
        s = (start + k) % n
        info = st.seats[s]
        if s != skip and not info.bot and info.connected and not info.left:
            return s
    return None


def _set_host(ctx: Ctx, new: int | None) -> None:
    if new != ctx.st.host:
        ctx.st.host = new
        ctx.emit("host_changed", {"host": new})


def next_host(st: State) -> int | None:
    """Who takes the host role if the host's time away runs out now (None: nobody can)."""
    return None if st.host is None else _next_host(st, st.host + 1, st.host)


def host_timeout(ctx: Ctx) -> None:
    """The host stayed away 60 s: the next connected human takes over (if there is one)."""
    new = next_host(ctx.st)
    if new is not None:  # nobody to hand over to: the absent host keeps the role
        _set_host(ctx, new)


def do_set_connected(ctx: Ctx, act: SetConnected) -> None:
    st = ctx.st
    seat = _seat(st, act.seat)
    info = st.seats[seat]
    if info.connected == act.connected:
        return  # nothing changed: no event, no version
    away = None if act.connected or info.bot else ctx.now
    st.w_seats()[seat] = replace(info, connected=act.connected, away_since=away)
    ctx.emit("connected" if act.connected else "disconnected", {"seat": seat})
    if act.connected and st.host is None and not info.bot and not info.left:
        st.host = seat  # a table left without a host gets the first human who returns
        ctx.emit("host_changed", {"host": seat})


def do_change_settings(ctx: Ctx, seat: int | None, act: ChangeSettings) -> None:
    st = ctx.st
    _host_only(st, seat)
    if st.status != "lobby":
        raise fail("wrong_phase", "settings change only in the lobby")
    new = parse_settings(act.settings, st.settings)
    if new.max_players < len(st.seats):
        raise fail("bad_settings", "max_players is below the number of seated players")
    st.settings = new
    st.deck = deck_for(new, st.pairing)
    ensure_pairing(ctx)
    ctx.emit("settings_changed", {"settings": settings_to_json(new)})


def do_watching(ctx: Ctx, act: Watching) -> None:
    st = ctx.st
    here = act.spectator_id in st.spectators
    if here == act.connected:
        return  # nothing changed: no event, no version
    if act.connected:
        st.spectators = (*st.spectators, act.spectator_id)
    else:
        st.spectators = tuple(s for s in st.spectators if s != act.spectator_id)
    ctx.emit(
        "spectator_joined" if act.connected else "spectator_left",
        {"name": act.name, "count": len(st.spectators)},
    )


def do_chat(ctx: Ctx, seat: int | None, act: Chat) -> None:
    st = ctx.st
    text = clean_chat(act.text) if isinstance(act.text, str) else ""
    if not text or len(act.text) > MAX_CHAT:
        raise fail("bad_command", f"a chat message has 1 to {MAX_CHAT} characters")
    if act.spectator is not None:
        # A spectator's line: no seat, their name, and marked so nobody takes it for a player's.
        ctx.emit("chat", {"seat": None, "name": act.spectator, "text": text, "spectator": True})
        return
    name = st.seats[seat].name if seat is not None and 0 <= seat < len(st.seats) else None
    ctx.emit("chat", {"seat": seat, "name": name, "text": text})


def do_start(ctx: Ctx, seat: int | None, act: Start) -> None:
    st = ctx.st
    _host_only(st, seat)
    if st.status == "lobby" and st.settings.organised and not act.organiser:
        # A tournament's table is dealt by the tournament once its entrants are here or its
        # grace period is over: the entrant in the host seat dealing at once would deal its
        # rivals in before they arrived.
        raise fail("bad_command", "the tournament deals this table when its players are here")
    begin(ctx)


def begin(ctx: Ctx) -> None:
    """`start` (or the next_round timer): the first round, the next round, or a new match."""
    st = ctx.st
    if st.status == "lobby":
        # A seat whose socket is closed is dealt in like any other: only `leave`, `remove_seat`
        # and the lobby_drop timer free a seat, so a player back a moment later (a page
        # refreshed as the host deals) finds their hand, not a refused token. A player away
        # longer than a refresh (START_GRACE_MS) has a bot play for them from the first turn,
        # instead of the table waiting out their turns, until they are back.
        if len(st.seats) < 2:
            raise fail("bad_command", "at least 2 players are needed")
        dealer = st.settings.dealer
        if dealer is not None and dealer >= len(st.seats):
            # (test hook) not taken modulo the seats: the deck order is dealt from the dealer
            raise fail("bad_settings", f"dealer {dealer} names no seat of this table")
        away = [s for s in range(len(st.seats)) if _long_departed(st, s, ctx.now)]
        ctx.settle()
        start_match(ctx)
        for seat in away:
            ctx.settle()
            st.w_seats()[seat] = replace(st.seats[seat], afk=True)
            ctx.emit("bot_took_over", {"seat": seat})
    elif st.status == "round_over":
        next_round(ctx)
    elif st.status == "match_over":
        start_match(ctx)
    else:
        raise fail("wrong_phase", "a round is being played")
