"""The end of a round and of a match (RULES 14, 16, 19, 26)."""

from __future__ import annotations

from app.engine.state import UNO_NONE, State
from app.engine.table import Ctx
from app.engine.wire import cards_json


def hand_points(st: State) -> list[int]:
    """Points left in each hand, counted on the side in play."""
    faces = st.deck.sides[st.side]
    return [sum(faces[c].points for c in hand) for hand in st.hands]


def round_points(st: State, winner: int, held: list[int]) -> list[int]:
    """What each seat scores for the round from the points left in the hands (`held`)."""
    scoring = st.settings.scoring
    if scoring == "winner_collects":
        points = [0] * len(held)
        points[winner] = sum(held)
        return points
    if scoring == "lowest_wins":
        return list(held)
    return [0] * len(held)


def match_winner(st: State, round_winner: int) -> int | None:
    """The match winner after this round's scores, or None to play on (a tie plays on)."""
    s = st.settings
    if s.scoring == "none":
        return round_winner
    scores = st.scores
    if s.scoring == "winner_collects":
        if scores[round_winner] >= s.target_score:
            return round_winner
        if s.match_rounds and st.round >= s.match_rounds:
            return _single(scores, max(scores))  # the best total after the last round
        return None
    if max(scores) < s.target_score and not (s.match_rounds and st.round >= s.match_rounds):
        return None
    return _single(scores, min(scores))


def _single(scores: list[int], best: int) -> int | None:
    """The one seat with the `best` total, or None when several share it (play on)."""
    top = [i for i, v in enumerate(scores) if v == best]
    return top[0] if len(top) == 1 else None


def end_round(ctx: Ctx, winner: int) -> None:
    st = ctx.st
    ctx.settle()
    held = hand_points(st)
    points = round_points(st, winner, held)
    st.scores = [a + b for a, b in zip(st.scores, points, strict=True)]
    st.winner = winner
    champion = match_winner(st, winner)
    st.match_winner = champion
    st.status = "round_over" if champion is None else "match_over"
    st.phase = "round_over"
    st.pending = 0
    st.pending_stack = None
    st.challenge = None
    st.drawn = None
    st.uno = [UNO_NONE] * len(st.seats)
    for kind in ("turn", "uno", "challenge"):
        if kind in st.deadlines:
            del st.w_deadlines()[kind]
    ctx.emit(
        "round_ended",
        {
            "round": st.round,
            "winner": winner,
            "hands": [cards_json(st.deck, st.side, h) for h in st.hands],
            "points": points,
            # Extension: what each hand above is worth, the cards counted as `points` counts
            # them (on the side in play), so that a client needs no copy of the card values.
            "hand_points": held,
            "scores": list(st.scores),
            "match_id": st.match_id,
            "reason": "hand_empty",
            "started_at": st.round_started_at,
            "ended_at": ctx.now,
        },
    )
    if champion is not None:
        ctx.emit(
            "match_ended",
            {"winner": champion, "scores": list(st.scores), "match_id": st.match_id},
        )
