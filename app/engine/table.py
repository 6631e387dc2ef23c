"""The working context of one `apply` call and the small moves every rule is built from.

A `Ctx` owns a private clone of the table; the rule modules mutate that clone freely and
record what happened with `emit`, which bumps the version (the room's only counter).
"""

from __future__ import annotations

from typing import Any, Final

from app.engine.cards import UNTIL_COLOR
from app.engine.errors import EngineError, ErrorCode
from app.engine.events import Builder, Event, EventKind, Private, Public
from app.engine.rng import Rng, is_plain_random
from app.engine.state import (
    OWN_DISCARD,
    OWN_DRAW,
    UNO_DECLARED,
    UNO_EARLY,
    UNO_EXPOSED,
    UNO_NONE,
    UNO_SAFE,
    Deadline,
    Phase,
    State,
    any_exposed,
)
from app.engine.wire import cards_json

# Field names of the events built with `Ctx.emit_pairs`.
SEAT: Final = ("seat",)
SEAT_AUTO: Final = ("seat", "auto")
DIRECTION_SEAT: Final = ("direction", "seat")
SEAT_BY: Final = ("seat", "by")


class Ctx:
    __slots__ = ("events", "now", "rng", "st", "trace", "uno_intent")

    def __init__(self, st: State, rng: Rng, now: int, trace: bool) -> None:
        self.st = st
        self.rng = rng
        self.now = now
        self.trace = trace
        self.events: list[Event] = []
        # The seat whose current play carries `uno: true`: the declaration counts whenever
        # that play's own effects (discarding a color, a swap...) leave the seat at one card.
        self.uno_intent: int | None = None

    def settle(self) -> None:
        """Tracing: the changes of the next event start now, so the table as it stands is the
        one right after the previous event. Called before each block of changes that belongs
        to the event emitted at its end; an event not settled by then is settled by `emit`
        (and the last one by `finish`)."""
        if self.trace and self.events and self.events[-1].after is None:
            from app.engine.timers import sync_deadlines  # timers builds on this module

            after = self.st.clone()
            sync_deadlines(after, self.now)
            self.events[-1].after = after

    def emit(
        self,
        kind: EventKind,
        public: dict[str, Any] | None = None,
        private: dict[int, dict[str, Any]] | None = None,
    ) -> None:
        st = self.st
        if self.trace:
            self.settle()
        st.version += 1
        ev = Event(kind, st.version, public if public is not None else {}, private or {})
        self.events.append(ev)

    def emit_deferred(self, kind: EventKind, build: Builder, args: tuple[Any, ...]) -> None:
        """`emit`, with the event's parts built by `build(args)` only when first read."""
        st = self.st
        if self.trace:
            self.settle()
        st.version += 1
        self.events.append(Event(kind, st.version, None, None, None, build, args))

    def emit_pairs(self, kind: EventKind, args: tuple[Any, ...]) -> None:
        """A public-only event, built on first read: `args` is (field names, *values)."""
        self.emit_deferred(kind, _pairs, args)

    def emit_skipped(self, seat: int) -> None:
        """turn_skipped for one seat (the commonest skip: a penalty's victim, a Skip)."""
        self.emit_deferred("turn_skipped", _skipped, (seat,))

    def finish(self) -> None:
        """The last event's `after` is the final state (deadlines already synced)."""
        if self.trace and self.events:
            self.events[-1].after = self.st


def _pairs(args: tuple[Any, ...]) -> tuple[Public, Private]:
    """`emit_pairs`: args[0] names the public fields, the rest are their values."""
    return dict(zip(args[0], args[1:], strict=True)), {}


def _skipped(args: tuple[Any, ...]) -> tuple[Public, Private]:
    return {"seat": args[0], "seats": [args[0]]}, {}


def shuffle(rng: Rng, x: list[int]) -> None:
    """`rng.shuffle(x)`, compiled: the same calls to `getrandbits`, so the same order (and the
    same generator state after) as `random.Random.shuffle`, about four times faster. A
    subclass of Random may draw its numbers otherwise: it gets its own `shuffle`."""
    if not is_plain_random(rng):
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    i = len(x) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]
        i -= 1


def fail(code: ErrorCode, message: str = "") -> EngineError:
    return EngineError(code, message)


def seat_after(st: State, seat: int, steps: int = 1) -> int:
    return (seat + st.direction * steps) % len(st.seats)


def set_turn(st: State, seat: int, phase: Phase = "play") -> None:
    """Hand the table to `seat` in `phase`; every call starts a fresh turn timer."""
    old = st.turn
    if old != seat and 0 <= old < len(st.uno) and st.uno[old] == UNO_EARLY:
        # RULES 13: UNO is declared with the play that leaves one card (or right after it).
        # An early declaration at two cards stands for the play that follows on the same
        # turn; a turn that ends without it (a pass after drawing, a jump-in taking the
        # turn) lets it lapse, or it would cover an undeclared play turns later.
        st.w_uno()[old] = UNO_NONE
    st.turn = seat
    st.phase = phase
    st.drawn = None
    st.turn_serial += 1


def keep_turn(st: State, phase: Phase) -> None:
    """The seat to act goes on with its turn in `phase` (drawn, or its color named): its turn
    timer runs on. RULES 29 has one deadline per turn: when it runs out the server draws if
    the player has not, then passes; a draw does not buy a fresh period."""
    st.phase = phase
    st.drawn = None


# --- UNO bookkeeping (RULES 13) -----------------------------------------------------------


def touch_uno(ctx: Ctx, seat: int) -> None:
    """Re-derive a seat's UNO state after its hand changed size; may open a catch window."""
    st = ctx.st
    size = len(st.hands[seat])
    state = st.uno[seat]
    if size == 1:
        if ctx.uno_intent == seat and state != UNO_DECLARED:
            ctx.settle()
            st.w_uno()[seat] = UNO_DECLARED
            ctx.emit_pairs("uno_declared", (SEAT, seat))
        elif state == UNO_EARLY:
            st.w_uno()[seat] = UNO_DECLARED
        elif state == UNO_NONE:
            st.w_uno()[seat] = UNO_EXPOSED
            window = st.settings.uno_window_ms
            st.w_deadlines()["uno"] = Deadline("uno", ctx.now + window, st.version, seat)
    elif state != UNO_NONE and not (state == UNO_EARLY and size == 2):
        st.w_uno()[seat] = UNO_NONE


def touch_all(ctx: Ctx) -> None:
    for seat in range(len(ctx.st.seats)):
        touch_uno(ctx, seat)


def close_window(st: State) -> None:
    """The player in turn acted of their own will: nobody exposed can be caught any more."""
    if not any_exposed(st.uno):
        return
    uno = st.w_uno()
    if "uno" in st.deadlines:
        del st.w_deadlines()["uno"]
    for i, state in enumerate(uno):
        if state == UNO_EXPOSED:
            uno[i] = UNO_SAFE


# --- drawing (RULES 12) --------------------------------------------------------------------


def refill(ctx: Ctx) -> bool:
    """Shuffle the discard pile but its top into the draw pile, under the cards still there;
    False if there was nothing to shuffle."""
    st = ctx.st
    if len(st.discard) <= 1:
        return False
    ctx.settle()
    rest = st.discard[:-1]
    st.discard = st.discard[-1:]
    shuffle(ctx.rng, rest)
    st.draw_pile = rest + st.draw_pile  # the top of a pile is its end
    st.owned |= OWN_DRAW | OWN_DISCARD  # both are new lists
    ctx.emit("deck_reshuffled", {"count": len(rest)})
    ctx.settle()  # complete: the cards drawn next belong to the next event
    return True


def report_drawn(ctx: Ctx, seat: int, cards: list[int], reason: str) -> None:
    """One card_drawn event: the count for everyone, the cards for the drawer."""
    st = ctx.st
    ctx.emit_deferred("card_drawn", _drawn_parts, (st.deck, st.side, seat, cards, reason))
    ctx.settle()  # complete: any reshuffle or card after it belongs to the next event


def _drawn_parts(args: tuple[Any, ...]) -> tuple[Public, Private]:
    deck, side, seat, cards, reason = args
    return (
        {"seat": seat, "count": len(cards), "reason": reason},
        {seat: {"cards": cards_json(deck, side, cards)}},
    )


def _one_drawn(args: tuple[Any, ...]) -> tuple[Public, Private]:
    deck, side, seat, cid, reason = args
    return (
        {"seat": seat, "count": 1, "reason": reason},
        {seat: {"cards": cards_json(deck, side, [cid])}},
    )


def take_cards(ctx: Ctx, seat: int, count: int, reason: str, until: str | None = None) -> int:
    """`seat` draws `count` cards (or, with `until`, until a card of that color, then `count`
    more); emits card_drawn (the cards privately). Returns how many were drawn.

    A reshuffle comes before the cards it makes available: with a known count the pile is
    refilled first; a search (`until`) that empties the pile reports the cards drawn so far,
    then the reshuffle, then the rest, so that each event's trace snapshot is exact.
    """
    st = ctx.st
    ctx.settle()
    if count == 1 and until is None and st.draw_pile:
        # The commonest draw (one card, the pile not empty): no list of cards to build.
        cid = st.w_draw().pop()
        st.w_hand(seat).append(cid)
        ctx.emit_deferred("card_drawn", _one_drawn, (st.deck, st.side, seat, cid, reason))
        ctx.settle()
        touch_uno(ctx, seat)
        return 1
    searching = until is not None
    if not searching and count > len(st.draw_pile):
        refill(ctx)
    faces = st.deck.sides[st.side]
    got: list[int] = []
    total = 0
    left = count
    while searching or left > 0:
        if not st.draw_pile:
            if got:
                report_drawn(ctx, seat, got, reason)
                total += len(got)
                got = []
            if not refill(ctx):
                break
        cid = st.w_draw().pop()
        st.w_hand(seat).append(cid)
        got.append(cid)
        if not searching:
            left -= 1
        elif faces[cid].color == until:
            searching = False
    if got:
        report_drawn(ctx, seat, got, reason)
        total += len(got)
    if total:
        touch_uno(ctx, seat)
    return total


def give_penalty(ctx: Ctx, seat: int, amount: int, reason: str, extra: int = 0) -> None:
    """A draw penalty: `amount` cards, or UNTIL_COLOR (until the color in play) plus `extra`."""
    if amount == UNTIL_COLOR:
        take_cards(ctx, seat, extra, reason, until=ctx.st.color)
    else:
        take_cards(ctx, seat, amount + extra, reason)
