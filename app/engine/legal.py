"""What a seat may do now: the checks `apply` enforces and the lists views and bots read."""

from __future__ import annotations

from typing import Any, Final

from app.engine.actions import (
    Accept,
    Action,
    Catch,
    Challenge,
    Choose,
    DeclareUno,
    Draw,
    Pass,
    Play,
    Start,
)
from app.engine.cards import BIG, SMALL, Face
from app.engine.errors import ErrorCode
from app.engine.state import UNO_DECLARED, UNO_EARLY, UNO_EXPOSED, State, any_exposed


def matches(st: State, face: Face, top: Face) -> bool:
    """RULES 3 (and 17: in All Wild every card is playable)."""
    if face.wild:
        return True
    # str against str (not None): compiled, a string comparison instead of a generic one
    fc, color = face.color, st.color
    if fc is not None and color is not None and fc == color:
        return True
    return not top.wild and face.sym == top.sym


def holds_color(st: State, seat: int, besides: int) -> bool:
    """Does `seat` hold a card of the color in play other than `besides`? (RULES 7)."""
    faces = st.deck.sides[st.side]
    color = st.color
    return any(faces[c].color == color for c in st.hands[seat] if c != besides)


def stack_ok(st: State, face: Face) -> bool:
    """May `face` answer the pending draw penalty? (RULES 9)."""
    s = st.settings
    if face.stack == SMALL:
        return st.pending_stack == SMALL and s.stack_draw2
    if face.stack == BIG:
        if st.pending_stack == BIG:
            return s.stack_draw4
        return st.pending_stack == SMALL and s.stack_draw4_on_draw2
    return False


def _legal_bluff(st: State, seat: int, cid: int, face: Face) -> bool:
    """Without bluffing, a challengeable card needs a hand without the color in play."""
    return not face.challengeable or st.settings.bluffing or not holds_color(st, seat, cid)


def jump_in_ok(st: State, seat: int, cid: int) -> bool:
    """RULES 28: an identical card, out of turn; onto a penalty only if it may stack."""
    if not st.settings.jump_in or st.phase not in ("play", "after_draw", "penalty"):
        return False
    faces = st.deck.sides[st.side]
    face = faces[cid]
    top = faces[st.discard[-1]]
    if face.wild or top.wild or face.color != top.color or face.sym != top.sym:
        return False
    return st.phase != "penalty" or stack_ok(st, face)


def play_error(st: State, seat: int, cid: int) -> ErrorCode | None:
    """The wire error code refusing `seat` playing card `cid` now, or None if it is legal."""
    if st.status != "playing":
        return "wrong_phase"
    if seat == st.turn:
        face = st.deck.sides[st.side][cid]
        phase = st.phase
        if phase == "play":
            top = st.deck.sides[st.side][st.discard[-1]]
            if st.deck.variant != "all_wild" and not matches(st, face, top):
                return "illegal_card"
        elif phase == "after_draw":
            if cid != st.drawn:
                return "illegal_card"
        elif phase in ("penalty", "challenge"):
            if not stack_ok(st, face):
                return "illegal_card"
        else:
            return "wrong_phase"
        return None if _legal_bluff(st, seat, cid, face) else "illegal_card"
    if jump_in_ok(st, seat, cid):
        return None
    return "not_your_turn"


def playable_cards(st: State, seat: int) -> list[int]:
    if st.status != "playing" or not 0 <= seat < len(st.seats):
        return []
    hand = st.hands[seat]
    if seat != st.turn:
        if not st.settings.jump_in:
            return []
        return [c for c in hand if jump_in_ok(st, seat, c)]
    phase = st.phase
    faces = st.deck.sides[st.side]
    if phase == "play":
        if st.deck.variant == "all_wild":
            return list(hand)
        top = faces[st.discard[-1]]
        # Plain str locals ("" matches no card) let the compiled loop compare str to str.
        color = st.color if st.color is not None else ""
        tsym = "" if top.wild else top.sym
        strict = not st.settings.bluffing
        out = []
        for c in hand:
            f = faces[c]
            if f.wild:
                if f.challengeable and strict and holds_color(st, seat, c):
                    continue
                out.append(c)
            else:
                fc = f.color
                if (fc is not None and fc == color) or f.sym == tsym:
                    out.append(c)
        return out
    if phase == "after_draw":
        return [st.drawn] if st.drawn is not None else []
    if phase in ("penalty", "challenge"):
        return [c for c in hand if play_error(st, seat, c) is None]
    return []


def needs_target(st: State, face: Face) -> bool:
    return face.needs_target or (
        st.settings.seven_zero and face.kind == "number" and face.value == 7
    )


def targets(st: State, seat: int) -> list[int]:
    return [s for s in range(len(st.seats)) if s != seat]


def needs_color(st: State, face: Face) -> bool:
    return face.wild and st.deck.variant != "all_wild"


def may_draw(st: State, seat: int) -> bool:
    if st.status != "playing" or seat != st.turn:
        return False
    if st.phase == "penalty" or st.phase == "challenge":  # takes the penalty (as `accept`)
        return True
    if st.phase != "play":
        return False
    return not st.settings.no_voluntary_draw or not playable_cards(st, seat)


def may_pass(st: State, seat: int) -> bool:
    return (
        st.status == "playing"
        and seat == st.turn
        and st.phase == "after_draw"
        and not st.settings.forced_play
    )


def may_declare(st: State, seat: int) -> bool:
    """One card and not yet declared, or two cards on the own turn (declaring with the play)."""
    if st.status != "playing" or not 0 <= seat < len(st.seats):
        return False
    size = len(st.hands[seat])
    state = st.uno[seat]
    if size == 1:
        return state != UNO_DECLARED
    return (
        size == 2
        and state != UNO_EARLY
        and seat == st.turn
        and st.phase in ("play", "after_draw")
        and bool(playable_cards(st, seat))
    )


def catchable(st: State, seat: int | None) -> list[int]:
    if st.status != "playing" or seat is None or not 0 <= seat < len(st.seats):
        return []
    return [s for s, state in enumerate(st.uno) if state == UNO_EXPOSED and s != seat]


def may_start(st: State, seat: int | None) -> bool:
    if seat is None or seat != st.host:
        return False
    if st.status == "lobby":  # every seat is dealt in, a departed one's too
        if st.settings.organised:  # a tournament's table: the tournament deals it
            return False
        return len(st.seats) >= 2
    return st.status in ("round_over", "match_over")


def moves(st: State, seat: int) -> dict[str, Any]:
    """PROTOCOL `you.moves`: every legal action of `seat` now (empty values when none)."""
    faces = st.deck.sides[st.side]
    colors = list(st.deck.colors(st.side))
    own = st.status == "playing" and seat == st.turn
    play = []
    for c in playable_cards(st, seat):
        f = faces[c]
        play.append(
            {
                "card": c,
                "colors": colors if needs_color(st, f) else None,
                "targets": targets(st, seat) if needs_target(st, f) else None,
            }
        )
    return {
        "play": play,
        "draw": may_draw(st, seat),
        "pass": may_pass(st, seat),
        "uno": may_declare(st, seat),
        "challenge": own and st.phase == "challenge",
        "accept": own and st.phase == "challenge",
        "catch": catchable(st, seat),
        "choose": colors if own and st.phase == "choose" else None,
        "start": may_start(st, seat),
    }


_PLAYS: Final[dict[tuple[int, str | None, int | None, bool], Play]] = {}
_DRAW: Final = Draw()
_PASS: Final = Pass()
_UNO: Final = DeclareUno()
_CHALLENGE: Final = Challenge()
_ACCEPT: Final = Accept()
_START: Final = Start()


def _play(cid: int, color: str | None, target: int | None, uno: bool) -> Play:
    """Actions are immutable values: each distinct Play is built once and shared."""
    key = (cid, color, target, uno)
    play = _PLAYS.get(key)
    if play is None:
        play = _PLAYS[key] = Play(cid, color, target, uno)
    return play


# Play(card) at index card, for every card id seen so far (a list: compiled, an index is
# several times cheaper than a dict lookup, and it is read for most cards of most hands)
_PLAIN: Final[list[Play]] = []
# one Play per color of the side in play, by card id, for each side
_WILD: Final[tuple[dict[int, tuple[Play, ...]], dict[int, tuple[Play, ...]]]] = ({}, {})


def legal_actions(st: State, seat: int) -> list[Action]:
    """Every legal action of `seat`, expanded (one Play per color and target).

    The same answers as `moves` (and the checks of `apply`), computed in one pass: this is
    the hot path of bots and benchmarks.
    """
    out: list[Action] = []
    if st.status != "playing" or not 0 <= seat < len(st.seats):
        if may_start(st, seat):
            out.append(_START)
        return out
    faces = st.deck.sides[st.side]
    colors = st.deck.colors(st.side)
    colored = st.deck.variant != "all_wild"
    sevens = st.settings.seven_zero
    size = len(st.hands[seat])
    ustate = st.uno[seat]
    two = size == 2 and ustate != UNO_EARLY
    playable = playable_cards(st, seat)
    for c in playable:
        f = faces[c]
        if two or f.needs_target or f.reshapes or (sevens and f.kind == "number"):
            declare = two or f.reshapes or (sevens and f.value in (0, 7))
            _expand(st, seat, c, f, declare, out)
        elif f.wild and colored:
            cache = _WILD[st.side]
            plays = cache.get(c)
            if plays is None:
                plays = cache[c] = tuple(Play(c, color) for color in colors)
            out.extend(plays)
        else:
            if c >= len(_PLAIN):
                _PLAIN.extend(Play(i) for i in range(len(_PLAIN), c + 1))
            out.append(_PLAIN[c])
    own = seat == st.turn
    phase = st.phase
    if own:
        if phase == "play":
            if not playable or not st.settings.no_voluntary_draw:
                out.append(_DRAW)
        elif phase == "penalty":
            out.append(_DRAW)
        elif phase == "after_draw":
            if not st.settings.forced_play:
                out.append(_PASS)
        elif phase == "challenge":
            out.append(_CHALLENGE)
            out.append(_ACCEPT)
            out.append(_DRAW)  # the same as accept (PROTOCOL: draw takes a pending penalty)
        elif phase == "choose":
            out.extend(Choose(c) for c in colors)
    if size == 1:
        if ustate != UNO_DECLARED:
            out.append(_UNO)
    elif two and own and playable and phase in ("play", "after_draw"):
        out.append(_UNO)
    if any_exposed(st.uno):
        out.extend(Catch(s) for s in catchable(st, seat))
    return out


def _expand(st: State, seat: int, c: int, f: Face, declare: bool, out: list[Action]) -> None:
    """The rarer plays: with targets, or with and without declaring UNO (at two cards, or
    with a card whose effect changes the own hand: it may leave one card)."""
    colors = st.deck.colors(st.side)
    cs: tuple[str | None, ...] = colors if needs_color(st, f) else (None,)
    ts: list[int | None] = list(targets(st, seat)) if needs_target(st, f) else [None]
    flags = (True, False) if declare else (False,)
    for color in cs:
        for t in ts:
            for u in flags:
                out.append(_play(c, color, t, u))
