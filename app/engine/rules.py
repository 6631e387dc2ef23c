"""apply(): the one transition function of a table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from app.engine.actions import (
    Accept,
    Action,
    AddBot,
    Back,
    Catch,
    Challenge,
    ChangeSettings,
    Chat,
    Choose,
    DeclareUno,
    Draw,
    Join,
    Leave,
    Pass,
    Play,
    RemoveBot,
    SetConnected,
    Start,
    Timeout,
    Watching,
)
from app.engine.errors import EngineError
from app.engine.events import Event
from app.engine.lobby import (
    do_add_bot,
    do_change_settings,
    do_chat,
    do_join,
    do_leave,
    do_remove_bot,
    do_set_connected,
    do_start,
    do_watching,
    ensure_pairing,
)
from app.engine.play import (
    do_accept,
    do_catch,
    do_challenge,
    do_choose,
    do_draw,
    do_pass,
    do_play,
    do_uno,
    false_catch,
)
from app.engine.rng import Rng
from app.engine.state import State
from app.engine.table import Ctx
from app.engine.timers import on_timeout, sync_deadlines

Handler = Callable[[Ctx, "int | None", Any], None]

_HANDLERS: Final[dict[type, Handler]] = {
    Join: lambda ctx, seat, a: do_join(ctx, a),
    Leave: lambda ctx, seat, a: do_leave(ctx, seat),
    # Nothing of its own: apply() hands an away seat back before any own action.
    Back: lambda ctx, seat, a: None,
    SetConnected: lambda ctx, seat, a: do_set_connected(ctx, a),
    Watching: lambda ctx, seat, a: do_watching(ctx, a),
    ChangeSettings: do_change_settings,
    AddBot: do_add_bot,
    RemoveBot: do_remove_bot,
    Start: lambda ctx, seat, a: do_start(ctx, seat, a),
    Chat: do_chat,
    Choose: do_choose,
    Play: do_play,
    Draw: lambda ctx, seat, a: do_draw(ctx, seat),
    Pass: lambda ctx, seat, a: do_pass(ctx, seat),
    DeclareUno: lambda ctx, seat, a: do_uno(ctx, seat),
    Catch: do_catch,
    Challenge: lambda ctx, seat, a: do_challenge(ctx, seat),
    Accept: lambda ctx, seat, a: do_accept(ctx, seat),
    Timeout: lambda ctx, seat, a: on_timeout(ctx, a),
}
_SYSTEM: Final = frozenset((Join, SetConnected, Watching, Timeout))


def apply(
    state: State,
    seat: int | None,
    action: Action,
    rng: Rng,
    now: int,
    *,
    trace: bool = False,
    bot: bool = False,
) -> tuple[State, list[Event]]:
    """The table after `seat` does `action`, and what happened. Never mutates `state`.

    `bot=True` marks an action the server took for a bot-played (AFK) seat; any other action
    of a seat is its player's own and hands an AFK seat back (`player_returned`).
    Raises EngineError (nothing changed) when the action is refused. An action that changes
    nothing (a stale Timeout, a repeated connection state) returns `state` itself and [].
    """
    # The turn actions, nearly every call, go straight to their rule; the rest via the table.
    kind = type(action)
    handler = None
    if kind is not Play and kind is not Draw and kind is not Pass:
        handler = _HANDLERS.get(kind)
        if handler is None:
            raise EngineError("bad_command", "unknown action")
    st = state.clone()
    ctx = Ctx(st, rng, now, trace)
    if st.pairing is None and st.settings.variant == "flip":
        ensure_pairing(ctx)
    own = (
        seat is not None
        and not bot
        and st.status != "lobby"
        and 0 <= seat < len(st.afk_count)
        and (st.afk_count[seat] or st.seats[seat].afk)
        and type(action) not in _SYSTEM
    )
    if own:
        assert seat is not None
        _own_action(ctx, seat)
    ctx.settle()  # (after player_returned: the action's own changes start here)
    try:
        if handler is not None:
            handler(ctx, seat, action)
        elif isinstance(action, Play):
            do_play(ctx, seat, action)
        elif isinstance(action, Draw):
            do_draw(ctx, seat)
        else:
            do_pass(ctx, seat)
    except EngineError as err:
        if err.code == "not_catchable" and isinstance(action, Catch):
            _false_catch(ctx, seat, action, err)
        if err.state is None and own and seat is not None and state.seats[seat].afk:
            _returned_anyway(state, seat, rng, now, trace, err)
        raise
    if not ctx.events:
        return state, []
    sync_deadlines(st, now)
    ctx.finish()
    return st, ctx.events


def _own_action(ctx: Ctx, seat: int) -> None:
    """The seat's player acted: the AFK count restarts and a bot hands the seat back."""
    st = ctx.st
    st.w_afk()[seat] = 0
    info = st.seats[seat]
    if info.afk:
        st.w_seats()[seat] = replace(info, afk=False)
        ctx.emit("player_returned", {"seat": seat})


def _returned_anyway(
    state: State, seat: int, rng: Rng, now: int, trace: bool, err: EngineError
) -> None:
    """RULES 29: the bot plays an away seat "until the player sends any command", so a
    refused one hands the seat back too. The refusal changes nothing else: the outcome (only
    `player_returned`) rides on the error, committed before it is sent, like a false catch's
    penalty. Only an away seat: an expiry count short of `afk_timeouts` stays as it is."""
    st = state.clone()
    ctx = Ctx(st, rng, now, trace)
    _own_action(ctx, seat)
    sync_deadlines(st, now)
    ctx.finish()
    err.state = st
    err.events = ctx.events


def _false_catch(ctx: Ctx, seat: int | None, action: Catch, err: EngineError) -> None:
    """A refused catch that still costs the catcher (RULES 13): the outcome rides on the error."""
    st = ctx.st
    if (
        st.status != "playing"
        or seat is None
        or not 0 <= seat < len(st.seats)
        or st.settings.false_catch_penalty <= 0
    ):
        return
    false_catch(ctx, seat, action.seat)
    sync_deadlines(st, ctx.now)
    ctx.finish()
    err.state = st
    err.events = ctx.events
