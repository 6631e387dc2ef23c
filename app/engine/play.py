"""The turn: playing a card and its effects, drawing, passing, choosing, challenges, UNO."""

from __future__ import annotations

from typing import Any

from app.engine.actions import Catch, Choose, Play
from app.engine.cards import BIG, SMALL, UNTIL_COLOR, Face
from app.engine.events import Private, Public
from app.engine.legal import (
    catchable,
    holds_color,
    may_declare,
    may_draw,
    may_pass,
    needs_color,
    needs_target,
    play_error,
)
from app.engine.scoring import end_round
from app.engine.state import UNO_DECLARED, UNO_EARLY, UNO_SAFE, PendingChallenge, State
from app.engine.table import (
    DIRECTION_SEAT,
    SEAT,
    SEAT_AUTO,
    SEAT_BY,
    Ctx,
    close_window,
    fail,
    give_penalty,
    keep_turn,
    refill,
    report_drawn,
    seat_after,
    set_turn,
    shuffle,
    take_cards,
    touch_all,
    touch_uno,
)
from app.engine.wire import card_json, cards_json


def _playing(st: State, seat: int | None) -> int:
    if st.status != "playing":
        raise fail("wrong_phase", "no round is being played")
    if seat is None or not 0 <= seat < len(st.seats):
        raise fail("bad_command", "only a seated player can do that")
    return seat


def _own_turn(st: State, seat: int | None, *phases: str) -> int:
    seat = _playing(st, seat)
    if seat != st.turn:
        raise fail("not_your_turn")
    if st.phase not in phases:
        raise fail("wrong_phase", f"not possible in phase {st.phase}")
    return seat


# --- play ------------------------------------------------------------------------------------


def do_play(ctx: Ctx, seat: int | None, act: Play) -> None:
    st = ctx.st
    seat = _playing(st, seat)
    hand = st.hands[seat]
    cid = act.card
    if cid not in hand:
        raise fail("illegal_card", "that card is not in your hand")
    err = play_error(st, seat, cid)
    if err is not None:
        raise fail(err)
    face = st.deck.sides[st.side][cid]
    color = act.color
    if needs_color(st, face):
        if color not in st.deck.colors(st.side):
            raise fail("need_color", "name a color for a wild card")
    else:
        color = face.color
    target = act.target
    if needs_target(st, face):
        if target is None and len(st.seats) == 2:
            target = 1 - seat
        # RULES 14, 18: a swap (7, Wild Forced Swap, swap_hands) played as the last card
        # does not happen, so it needs nobody chosen; a targeted draw still does.
        swap_last = len(hand) == 1 and face.kind != "wild_targeted_draw2"
        if target is None and swap_last:
            pass
        elif target is None or target == seat or not 0 <= target < len(st.seats):
            raise fail("bad_target", "choose another player")
    else:
        target = None

    jump = seat != st.turn
    guilty = face.challengeable and holds_color(st, seat, cid)
    close_window(st)
    hand = st.w_hand(seat)
    hand.remove(cid)
    st.w_discard().append(cid)
    st.color = color
    st.drawn = None
    if jump:
        set_turn(st, seat, "play")
    ctx.emit_deferred(
        "card_played", _played_parts, (st.deck, st.side, seat, cid, color, jump, target)
    )
    if act.uno:
        ctx.uno_intent = seat
    touch_uno(ctx, seat)

    if not hand and face.kind != "wild_shuffle":
        _last_card_draws(ctx, seat, face, target)
        end_round(ctx, seat)
    else:
        _effect(ctx, seat, face, target, guilty)
    ctx.uno_intent = None


def _played_parts(args: tuple[Any, ...]) -> tuple[Public, Private]:
    deck, side, seat, cid, color, jump, target = args
    public: Public = {"seat": seat, "card": card_json(deck, side, cid), "color": color}
    if jump:
        public["jump_in"] = True
    if target is not None:
        public["target"] = target
    return public, {}


def _last_card_draws(ctx: Ctx, seat: int, face: Face, target: int | None) -> None:
    """RULES 14: a last card's draws still happen (no challenge, no stack answer)."""
    st = ctx.st
    if face.kind == "wild_targeted_draw2" and target is not None:
        take_cards(ctx, target, 2, "penalty")
    elif face.kind == "wild_custom" and face.effect == "all_others_draw":
        _all_others_draw(ctx, seat, face.n or 0)
    elif face.draw:
        victim = seat_after(st, seat)
        give_penalty(ctx, victim, face.draw, "penalty", st.pending)
    st.pending = 0
    st.pending_stack = None


def _advance(ctx: Ctx, seat: int, steps: int) -> None:
    """Turn goes `steps` seats on from `seat`; the seats jumped over are skipped (each named
    once; neither the player nor the seat that plays next: with two players a Wild Skip Two
    skips nobody, RULES 18)."""
    st = ctx.st
    nxt = seat_after(st, seat, steps)
    if steps > 1:
        skipped: list[int] = []
        for k in range(1, steps):
            s = seat_after(st, seat, k)
            if s != seat and s != nxt and s not in skipped:
                skipped.append(s)
        if skipped:
            if len(skipped) == 1:
                ctx.emit_skipped(skipped[0])
            else:
                ctx.emit("turn_skipped", {"seat": skipped[0], "seats": skipped})
    set_turn(st, nxt)


def _reverse(ctx: Ctx, seat: int) -> None:
    st = ctx.st
    if len(st.seats) == 2:
        _advance(ctx, seat, 2)  # RULES 15: Reverse acts as Skip
        return
    ctx.settle()
    st.direction = -st.direction
    ctx.emit_pairs("direction_changed", (DIRECTION_SEAT, st.direction, seat))
    _advance(ctx, seat, 1)


def _effect(ctx: Ctx, seat: int, face: Face, target: int | None, guilty: bool) -> None:
    st = ctx.st
    kind = face.kind
    if kind == "number":
        if st.settings.seven_zero and face.value == 7 and target is not None:
            _swap(ctx, seat, target)
        elif st.settings.seven_zero and face.value == 0:
            _rotate(ctx, seat)
        _advance(ctx, seat, 1)
    elif kind in ("skip", "wild_skip"):
        _advance(ctx, seat, 2)
    elif kind == "wild_skip2":
        _advance(ctx, seat, 3)
    elif kind == "skip_everyone":
        _advance(ctx, seat, len(st.seats))
    elif kind in ("reverse", "wild_reverse"):
        _reverse(ctx, seat)
    elif face.draw and kind != "wild_custom":
        _penalty(ctx, seat, face, guilty)
    elif kind == "wild_targeted_draw2" and target is not None:
        take_cards(ctx, target, 2, "penalty")
        _advance(ctx, seat, 1)
    elif kind == "wild_forced_swap" and target is not None:
        _swap(ctx, seat, target)
        _advance(ctx, seat, 1)
    elif kind == "wild_shuffle":
        _shuffle_hands(ctx, seat)
        if not st.hands[seat]:
            # Played last while every other hand held one card: the deal (from the player's
            # left) runs out before reaching the player. RULES 14: an empty hand ends the round.
            end_round(ctx, seat)
            return
        _advance(ctx, seat, 1)
    elif kind == "wild_custom":
        _custom(ctx, seat, face, target)
    elif kind == "flip":
        _flip(ctx, seat)
    else:  # wild
        _advance(ctx, seat, 1)


def _asks_victim(st: State, face: Face) -> bool:
    """RULES 9: with a stacking setting for this kind, the victim is always asked.

    `stack_draw4_on_draw2` covers the small draw cards a big one may answer: not Flip's Draw
    Five, since the dark side has no Wild Draw Four kin (Wild Draw Color never stacks)."""
    s = st.settings
    if face.stack == SMALL:
        return s.stack_draw2 or (s.stack_draw4_on_draw2 and face.kind != "draw5")
    if face.stack == BIG:
        return s.stack_draw4
    return False


def _penalty(ctx: Ctx, seat: int, face: Face, guilty: bool) -> None:
    st = ctx.st
    ctx.settle()
    victim = seat_after(st, seat)
    if face.draw != UNTIL_COLOR:
        st.pending += face.draw
    st.pending_stack = face.stack
    if face.challengeable and st.settings.bluffing:
        st.challenge = PendingChallenge(seat, victim, guilty, face.draw)
        set_turn(st, victim, "challenge")
        ctx.emit_pairs("challenge_opened", (SEAT_BY, victim, seat))
        return
    st.challenge = None
    if _asks_victim(st, face):
        set_turn(st, victim, "penalty")  # card_played already told everyone
        return
    amount = face.draw if face.draw == UNTIL_COLOR else st.pending
    _take_pending(ctx, victim, amount)


def _take_pending(ctx: Ctx, victim: int, amount: int, extra: int = 0) -> None:
    """The victim draws the penalty and loses the turn."""
    st = ctx.st
    ctx.settle()
    st.pending = 0
    st.pending_stack = None
    st.challenge = None
    give_penalty(ctx, victim, amount, "penalty", extra)
    ctx.emit_skipped(victim)
    set_turn(st, seat_after(st, victim))


def take_penalty(ctx: Ctx, victim: int) -> None:
    """Accept a challengeable card or take a stacked penalty."""
    st = ctx.st
    ch = st.challenge
    amount = UNTIL_COLOR if ch is not None and ch.draw == UNTIL_COLOR else st.pending
    _take_pending(ctx, victim, amount)


def _swap(ctx: Ctx, seat: int, target: int) -> None:
    st = ctx.st
    ctx.settle()
    hands = st.w_hands()
    hands[seat], hands[target] = hands[target], hands[seat]
    st.hands_moved()
    ctx.emit("hands_swapped", {"seat": seat, "target": target})
    touch_uno(ctx, seat)
    touch_uno(ctx, target)


def _rotate(ctx: Ctx, seat: int) -> None:
    """Every hand passes to the next player in the direction of play."""
    st = ctx.st
    ctx.settle()
    n = len(st.seats)
    old = st.hands
    st.hands = [old[(i - st.direction) % n] for i in range(n)]
    st.hands_moved()
    ctx.emit("hands_rotated", {"seat": seat, "direction": st.direction})
    touch_all(ctx)


def _shuffle_hands(ctx: Ctx, seat: int) -> None:
    """RULES 10: collect, shuffle, deal one at a time from the player's left, clockwise."""
    st = ctx.st
    ctx.settle()
    n = len(st.seats)
    cards = [c for h in st.hands for c in h]
    shuffle(ctx.rng, cards)
    hands: list[list[int]] = [[] for _ in range(n)]
    for i, c in enumerate(cards):
        hands[(seat + 1 + i) % n].append(c)
    st.hands = hands
    st.hands_moved()  # (all new lists: owning them would only save copies)
    ctx.emit(
        "hands_shuffled",
        {"seat": seat, "counts": [len(h) for h in hands]},
        {s: {"hand": cards_json(st.deck, st.side, hands[s])} for s in range(n)},
    )
    touch_all(ctx)


def _all_others_draw(ctx: Ctx, seat: int, n: int) -> None:
    st = ctx.st
    for k in range(1, len(st.seats)):
        take_cards(ctx, seat_after(st, seat, k), n, "penalty")


def _custom(ctx: Ctx, seat: int, face: Face, target: int | None) -> None:
    st = ctx.st
    effect = face.effect
    n = face.n or 0
    if effect == "next_draws":
        _take_pending(ctx, seat_after(st, seat), n)
    elif effect == "all_others_draw":
        _all_others_draw(ctx, seat, n)
        _advance(ctx, seat, 1)
    elif effect == "skip_next":
        _advance(ctx, seat, 1 + n)
    elif effect == "swap_hands" and target is not None:
        _swap(ctx, seat, target)
        _advance(ctx, seat, 1)
    elif effect == "rotate_hands":
        _rotate(ctx, seat)
        _advance(ctx, seat, 1)
    elif effect == "discard_color":
        _discard_color(ctx, seat)
    elif effect == "reverse":
        _reverse(ctx, seat)
    else:
        _advance(ctx, seat, 1)


def _discard_color(ctx: Ctx, seat: int) -> None:
    """The player discards every card of the named color, under the wild that stays on top."""
    st = ctx.st
    faces = st.deck.sides[st.side]
    hand = st.hands[seat]
    out = [c for c in hand if faces[c].color == st.color]
    if out:
        ctx.settle()
        st.w_hands()[seat] = [c for c in hand if faces[c].color != st.color]
        discard = st.w_discard()
        top = discard.pop()
        discard.extend(out)
        discard.append(top)
        ctx.emit("cards_discarded", {"seat": seat, "cards": cards_json(st.deck, st.side, out)})
        touch_uno(ctx, seat)
        if not st.hands[seat]:
            end_round(ctx, seat)
            return
    _advance(ctx, seat, 1)


def _flip(ctx: Ctx, seat: int) -> None:
    """RULES 22: everything turns over; the new top's action is not applied."""
    st = ctx.st
    ctx.settle()
    st.side ^= 1
    st.w_draw().reverse()
    if st.settings.flip_discard == "whole_pile":
        st.w_discard().reverse()
    top_id = st.discard[-1]
    top = st.deck.sides[st.side][top_id]
    st.color = top.color
    ctx.emit(
        "side_flipped",
        {
            "seat": seat,
            "side": "dark" if st.side else "light",
            "top": card_json(st.deck, st.side, top_id),
        },
    )
    nxt = seat_after(st, seat)
    set_turn(st, nxt, "choose" if top.wild else "play")


# --- the other turn actions --------------------------------------------------------------------


def do_draw(ctx: Ctx, seat: int | None, voluntary: bool = True) -> None:
    st = ctx.st
    seat = _playing(st, seat)
    if seat != st.turn:
        raise fail("not_your_turn")
    if st.phase == "challenge":  # PROTOCOL: `draw` takes a pending penalty: here, `accept`
        do_accept(ctx, seat, voluntary)
        return
    if st.phase != "play" and st.phase != "penalty":
        raise fail("wrong_phase", f"not possible in phase {st.phase}")
    if voluntary and not may_draw(st, seat):
        raise fail("illegal_card", "no_voluntary_draw: you hold a playable card")
    if voluntary:
        close_window(st)
    if st.phase == "penalty":
        take_penalty(ctx, seat)
        return
    draw_turn(ctx, seat)


def draw_turn(ctx: Ctx, seat: int) -> None:
    """RULES 4: draw one (or until playable); a playable drawn card may be played at once."""
    st = ctx.st
    before = len(st.hands[seat])
    if st.settings.draw == "one":
        take_cards(ctx, seat, 1, "draw")
        hand = st.hands[seat]  # (written through copy-on-write: read it again)
        drawn = hand[-1] if len(hand) > before else None
        playable = drawn is not None and play_error(st, seat, drawn) is None
    else:
        cap = st.settings.max_draw
        drawn = None
        playable = False
        got: list[int] = []
        total = 0
        ctx.settle()
        while not cap or total + len(got) < cap:
            if not st.draw_pile:
                if got:  # report the cards so far, then the reshuffle (exact snapshots)
                    report_drawn(ctx, seat, got, "draw")
                    total += len(got)
                    got = []
                if not refill(ctx):
                    break
            cid = st.w_draw().pop()
            st.w_hand(seat).append(cid)
            got.append(cid)
            if play_error(st, seat, cid) is None:
                drawn = cid
                playable = True
                break
        if got:
            # one card_drawn event carries every card of the search (per reshuffle)
            report_drawn(ctx, seat, got, "draw")
            total += len(got)
        if total:
            touch_uno(ctx, seat)
    if playable and drawn is not None:
        keep_turn(st, "after_draw")
        st.drawn = drawn
        return
    ctx.emit_pairs("turn_passed", (SEAT_AUTO, seat, True))
    set_turn(st, seat_after(st, seat))


def do_pass(ctx: Ctx, seat: int | None, voluntary: bool = True) -> None:
    st = ctx.st
    seat = _playing(st, seat)
    if seat != st.turn:
        raise fail("not_your_turn")
    if st.phase != "after_draw":
        raise fail("wrong_phase", f"not possible in phase {st.phase}")
    if voluntary and not may_pass(st, seat):
        raise fail("illegal_card", "forced_play: the drawn card must be played")
    if voluntary:
        ctx.emit_pairs("turn_passed", (SEAT, seat))
    else:  # the turn timer's pass, marked like every other move the server makes for a player
        ctx.emit_pairs("turn_passed", (SEAT_AUTO, seat, True))
    set_turn(st, seat_after(st, seat))


def do_choose(ctx: Ctx, seat: int | None, act: Choose) -> None:
    st = ctx.st
    seat = _own_turn(st, seat, "choose")
    if act.color not in st.deck.colors(st.side):
        raise fail("need_color", "name one of the colors in play")
    ctx.settle()
    close_window(st)
    st.color = act.color
    ctx.emit("color_chosen", {"seat": seat, "color": act.color})
    keep_turn(st, "play")


def do_challenge(ctx: Ctx, seat: int | None) -> None:
    """RULES 8 (and 21, 23 in Flip)."""
    st = ctx.st
    seat = _own_turn(st, seat, "challenge")
    ch = st.challenge
    if ch is None:
        raise fail("wrong_phase")
    close_window(st)
    offender_hand = cards_json(st.deck, st.side, st.hands[ch.offender])
    ctx.emit(
        "challenge_resolved",
        {"seat": seat, "offender": ch.offender, "guilty": ch.guilty},
        {seat: {"hand": offender_hand}},
    )
    amount = UNTIL_COLOR if ch.draw == UNTIL_COLOR else st.pending
    st.challenge = None
    st.pending = 0
    st.pending_stack = None
    if ch.guilty:
        give_penalty(ctx, ch.offender, amount, "challenge")
        set_turn(st, seat, "play")
    else:
        give_penalty(ctx, seat, amount, "challenge", 2)
        ctx.emit_skipped(seat)
        set_turn(st, seat_after(st, seat))


def do_accept(ctx: Ctx, seat: int | None, voluntary: bool = True) -> None:
    st = ctx.st
    seat = _own_turn(st, seat, "challenge")
    if voluntary:
        close_window(st)
    take_penalty(ctx, seat)


def do_uno(ctx: Ctx, seat: int | None) -> None:
    st = ctx.st
    seat = _playing(st, seat)
    if not may_declare(st, seat):
        raise fail("wrong_phase", "UNO is declared with one card left (or with the play)")
    st.w_uno()[seat] = UNO_DECLARED if len(st.hands[seat]) == 1 else UNO_EARLY
    ctx.emit_pairs("uno_declared", (SEAT, seat))


def do_catch(ctx: Ctx, seat: int | None, act: Catch) -> None:
    st = ctx.st
    seat = _playing(st, seat)
    target = act.seat
    if not 0 <= target < len(st.seats):
        # Nobody sits there: a malformed command, not a wrong call, so no false-catch penalty.
        raise fail("bad_target", "there is no such seat")
    if target == seat:
        # RULES 13: "any other player may catch": catching oneself is no catch at all.
        raise fail("bad_target", "you cannot catch yourself")
    if target in catchable(st, seat):
        penalty = st.settings.uno_penalty
        st.w_uno()[target] = UNO_SAFE  # caught once: with a zero penalty it stays at one card
        ctx.emit("uno_caught", {"seat": target, "by": seat, "penalty": penalty})
        take_cards(ctx, target, penalty, "uno")
        return
    raise fail("not_catchable", "that player cannot be caught now")


def false_catch(ctx: Ctx, seat: int, target: int) -> None:
    """RULES 13: a wrong catch costs the catcher `false_catch_penalty` (the error still goes)."""
    penalty = ctx.st.settings.false_catch_penalty
    ctx.emit("false_catch", {"seat": seat, "target": target, "penalty": penalty})
    take_cards(ctx, seat, penalty, "false_catch")
