"""The bot policy: a pure function of what the seat may know, built on the engine's public API
only (`legal_actions` for what is allowed, `view` for what the seat sees).

It plays like a sensible human: catch a forgetful player, declare UNO with the play that
leaves one card, challenge a Wild Draw Four now and then, get rid of action and high-value
cards first while keeping wilds for when they are needed, name the color it holds most, and
aim a targeted card at the player closest to winning.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from app.engine import actions as act
from app.engine.legal import legal_actions
from app.engine.rng import Rng
from app.engine.state import State
from app.engine.view import View, view

CHALLENGE_PROBABILITY = 0.3
_ACTION_KINDS = frozenset({"skip", "reverse", "draw2", "draw1", "draw5", "flip", "skip_everyone"})
# All Wild: every card is wild; rank the effects instead (strongest first).
_ALL_WILD_RANK = {
    "wild_draw4": 50,
    "wild_draw2": 40,
    "wild_targeted_draw2": 40,
    "wild_skip2": 35,
    "wild_skip": 30,
    "wild_reverse": 25,
    "wild": 10,
}
_PLAYER_ACTIONS = (
    act.Play,
    act.Draw,
    act.Pass,
    act.DeclareUno,
    act.Catch,
    act.Challenge,
    act.Accept,
    act.Choose,
)


def bot_action(state: State, seat: int, rng: Rng) -> act.Action | None:
    """What the bot on `seat` does now, or None when it has nothing to do."""
    legal = [a for a in legal_actions(state, seat) if isinstance(a, _PLAYER_ACTIONS)]
    if not legal:
        return None
    seen = view(state, seat, 0)
    hand = _hand(seen)
    catches = [a for a in legal if isinstance(a, act.Catch)]
    if catches:
        return rng.choice(catches)
    if len(hand) == 1 and any(isinstance(a, act.DeclareUno) for a in legal):
        return act.DeclareUno()
    chooses = [a for a in legal if isinstance(a, act.Choose)]
    if chooses:
        return _by_color(chooses, hand, rng)
    if any(isinstance(a, act.Challenge) for a in legal):
        if rng.random() < CHALLENGE_PROBABILITY:
            return act.Challenge()
        return act.Accept()
    plays = [a for a in legal if isinstance(a, act.Play)]
    if plays:
        return _best_play(plays, hand, seen, seat, rng)
    for kind in (act.Draw, act.Pass, act.Accept):
        for action in legal:
            if isinstance(action, kind):
                return action
    return None


def _hand(seen: View) -> dict[int, dict[str, Any]]:
    """Own cards by id, as faces (Flip sends {"id", "face"})."""
    you = seen.get("you")
    out: dict[int, dict[str, Any]] = {}
    for card in you["hand"] if you is not None else []:
        out[card["id"]] = card.get("face", card)
    return out


def _color_counts(hand: dict[int, dict[str, Any]], besides: int | None) -> Counter[str]:
    return Counter(
        face["color"] for cid, face in hand.items() if cid != besides and face.get("color")
    )


def _by_color(chooses: list[act.Choose], hand: dict[int, dict[str, Any]], rng: Rng) -> act.Choose:
    counts = _color_counts(hand, None)
    best = max(counts[c.color] for c in chooses)
    return rng.choice([c for c in chooses if counts[c.color] == best])


def _card_value(face: dict[str, Any], hand_size: int, all_wild: bool) -> float:
    kind = face.get("kind", "")
    if all_wild:
        return 0 if kind == "wild_forced_swap" else _ALL_WILD_RANK.get(kind, 10)
    if face.get("color") is None:  # a wild: keep it for when nothing else fits
        return 5 if hand_size > 2 else 60
    if kind in _ACTION_KINDS:
        return 40
    value = face.get("value")
    return 10 + (value if isinstance(value, int) else 0)


def _best_play(
    plays: list[act.Play],
    hand: dict[int, dict[str, Any]],
    seen: View,
    seat: int,
    rng: Rng,
) -> act.Play:
    counts = _color_counts(hand, None)
    all_wild = (seen.get("settings") or {}).get("variant") == "all_wild"
    by_card: dict[int, list[act.Play]] = {}
    for play in plays:
        by_card.setdefault(play.card, []).append(play)

    def score(cid: int) -> float:
        face = hand.get(cid, {})
        value = _card_value(face, len(hand), all_wild)
        if (
            face.get("kind") == "wild_forced_swap"
            and _smallest_opponent(seen, seat)[1] < len(hand) - 1
        ):
            value = 45
        # Among equals, play from the color held most: it keeps the next turns easy.
        return value + counts.get(face.get("color") or "", 0) * 0.5 + rng.random() * 0.1

    card = max(by_card, key=score)
    options = by_card[card]
    declaring = [p for p in options if p.uno]
    if declaring:
        options = declaring
    colors = {p.color for p in options}
    if None not in colors:
        remaining = _color_counts(hand, card)
        best = max(remaining.get(c or "", 0) for c in colors)
        options = [p for p in options if remaining.get(p.color or "", 0) == best]
    targets = {p.target for p in options}
    if None not in targets:
        target, _ = _smallest_opponent(seen, seat, allowed=targets)
        options = [p for p in options if p.target == target] or options
    return rng.choice(options)


def _smallest_opponent(
    seen: View, seat: int, allowed: set[int | None] | None = None
) -> tuple[int, int]:
    """The opponent with the fewest cards (seat, count): the one to slow down."""
    best = (seat, 10**6)
    for entry in seen.get("seats", []):
        s = entry["seat"]
        if s == seat or (allowed is not None and s not in allowed):
            continue
        count = entry["hand_count"]
        if count < best[1]:
            best = (s, count)
    return best


# A bot's catch lands in the later part of the UNO window (here 60-90% of it), so the humans
# at the table, who see the same ring, get the first chance to catch.
CATCH_WINDOW_PART = (0.6, 0.9)


def catch_at(state: State, now: int, rng: Rng) -> int | None:
    """When a bot catching a missed UNO should act, or None when no UNO window is open."""
    d = state.deadlines.get("uno")
    if d is None:
        return None
    window = state.settings.uno_window_ms
    lo, hi = CATCH_WINDOW_PART
    opened = d.at - window
    return max(now, opened + rng.randrange(int(window * lo), int(window * hi) + 1))
