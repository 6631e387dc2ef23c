"""Matches and rounds begin here: draw for the deal, the deal, the first card (RULES 1-2, 24)."""

from __future__ import annotations

from typing import Final

from app.engine.decks import deck_for, new_pairing
from app.engine.state import UNO_NONE
from app.engine.table import Ctx, seat_after, set_turn, shuffle, take_cards
from app.engine.wire import card_json, cards_json

HAND_SIZE: Final = 7


def start_match(ctx: Ctx) -> None:
    st = ctx.st
    ctx.settle()
    n = len(st.seats)
    st.match_id = f"{ctx.rng.getrandbits(128):032x}"
    st.scores = [0] * n
    st.afk_count = [0] * n
    st.round = 1
    st.winner = None
    st.match_winner = None
    if st.settings.variant == "flip":
        if st.pairing is None or st.status == "match_over":
            st.pairing = new_pairing(ctx.rng)  # one pairing per match
        st.deck = deck_for(st.settings, st.pairing)
    st.dealer = _choose_dealer(ctx)
    deal_round(ctx)


def next_round(ctx: Ctx) -> None:
    st = ctx.st
    ctx.settle()
    st.round += 1
    st.dealer = seat_after_clockwise(st.dealer or 0, len(st.seats))
    deal_round(ctx)


def seat_after_clockwise(seat: int, n: int) -> int:
    return (seat + 1) % n


def _choose_dealer(ctx: Ctx) -> int:
    """RULES 1: everyone draws; the highest number deals; ties draw again among themselves."""
    st = ctx.st
    n = len(st.seats)
    if st.settings.dealer is not None:
        hooked = st.settings.dealer % n
        ctx.emit("dealer_chosen", {"dealer": hooked, "draws": []})
        return hooked
    faces = st.deck.light
    draws: list[list[dict[str, object]]] = []
    contenders = list(range(n))
    dealer: int | None = None
    if any(f.kind == "number" for f in faces):
        for _ in range(20):  # ties are rare; 20 rounds of ties practically never happen
            ids = list(range(len(faces)))
            shuffle(ctx.rng, ids)
            drawn = {s: ids[i] for i, s in enumerate(contenders)}
            # faces only: these cards go back into the deck, their ids would leak later
            draws.append([{"seat": s, "card": faces[c].to_json()} for s, c in drawn.items()])
            value = {s: faces[c].value or 0 for s, c in drawn.items()}
            best = max(value.values())
            contenders = [s for s in contenders if value[s] == best]
            if len(contenders) == 1:
                dealer = contenders[0]
                break
    if dealer is None:  # All Wild has no numbers: every draw would tie
        dealer = contenders[ctx.rng.randrange(len(contenders))]
    ctx.emit("dealer_chosen", {"dealer": dealer, "draws": draws})
    return dealer


def _rejected_first(ctx: Ctx, cid: int) -> bool:
    st = ctx.st
    face = st.deck.light[cid]
    rule = st.settings.first_card
    if st.deck.variant == "all_wild":
        return False
    if face.kind == "flip":
        return True
    if rule == "redraw_until_number":
        return face.kind != "number"
    if rule == "apply_actions_reshuffle_wilds":
        return face.wild
    return face.challengeable  # Wild Draw Four (Flip: Wild Draw Two)


def deal_round(ctx: Ctx) -> None:
    st = ctx.st
    ctx.settle()
    n = len(st.seats)
    dealer = st.dealer or 0
    hooked = st.settings.deck_order is not None and st.round == 1
    if hooked and st.settings.deck_order is not None:
        pile = list(reversed(st.settings.deck_order))  # the top of a pile is its end
    else:
        pile = list(range(st.deck.size))
        shuffle(ctx.rng, pile)
    st.hands = [[] for _ in range(n)]
    for _ in range(HAND_SIZE):
        for k in range(1, n + 1):
            st.hands[(dealer + k) % n].append(pile.pop())
    while True:
        first = pile.pop()
        if not _rejected_first(ctx, first):
            break
        if hooked:
            pile.insert(0, first)  # PROTOCOL 5: to the bottom, so the given order stands
        else:
            pile.append(first)
            shuffle(ctx.rng, pile)
    st.draw_pile = pile
    st.discard = [first]
    st.side = 0
    st.direction = 1
    st.pending = 0
    st.pending_stack = None
    st.challenge = None
    st.drawn = None
    st.uno = [UNO_NONE] * n
    st.status = "playing"
    st.round_started_at = ctx.now
    face = st.deck.light[first]
    st.color = face.color
    ctx.emit(
        "round_started",
        {
            "round": st.round,
            "dealer": dealer,
            "match_id": st.match_id,
            "top": card_json(st.deck, 0, first),
            "hand_counts": [len(h) for h in st.hands],
        },
        {s: {"hand": cards_json(st.deck, 0, st.hands[s])} for s in range(n)},
    )
    _first_card(ctx, dealer, first)


def _first_card(ctx: Ctx, dealer: int, cid: int) -> None:
    """RULES 2 (official actions; All Wild ignores them, RULES 17)."""
    st = ctx.st
    face = st.deck.light[cid]
    first = (dealer + 1) % len(st.seats)
    kind = face.kind
    if st.deck.variant == "all_wild" or kind == "number":
        set_turn(st, first)
    elif face.draw > 0 and not face.wild:  # Draw Two (Flip: Draw One)
        take_cards(ctx, first, face.draw, "penalty")
        ctx.emit("turn_skipped", {"seat": first, "seats": [first]})
        set_turn(st, seat_after(st, first))
    elif kind == "reverse":
        ctx.settle()
        st.direction = -1
        ctx.emit("direction_changed", {"direction": -1, "seat": dealer})
        set_turn(st, dealer)
    elif kind == "skip":
        ctx.emit("turn_skipped", {"seat": first, "seats": [first]})
        set_turn(st, seat_after(st, first))
    else:  # a wild: the first player names the color
        set_turn(st, first, "choose")
