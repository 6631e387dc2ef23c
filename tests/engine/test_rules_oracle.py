"""An independent oracle of RULES.md, held against random play in every variant and setting.

The other rule tests pin one scenario each; these replay random games (tests/engine/driver.py)
and, after every step, derive from the public views alone what RULES.md says must be true:

- which cards each seat may play now (`you.moves.play`): matching (R3, R17, R20), the card
  just drawn (R4), stacking per variant (R9), no bluffing (R7, R21, R23), jump-in (R28);
- what a played card does to the turn, the direction, the side and the victim's hand (R5,
  R15, R18, R21-R23, R25, R27; Customizable R11; Wild Shuffle Hands R10);
- the answer to a challengeable card: accepted, guilty or innocent (R7, R8, R21, R23);
- what the turn timer does for the player (R29);
- the first card (R2, R17, R24), the dealer of the next round (R1) and the round's points
  (R16, R19, R26).

The oracle is written from RULES.md, not from the engine's code, so that a rule broken in a
combination no scenario test reaches still fails here.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.engine import State, view
from app.engine.actions import Accept, Action, Challenge, Draw, Play, Timeout
from app.engine.events import Event

from .driver import Driver, random_settings

Card = dict[str, Any]
LIGHT = ("red", "yellow", "green", "blue")
DARK = ("pink", "teal", "orange", "purple")

# R9: per variant, the card kind of the pending penalty (the top card) -> the kinds that may
# answer it and the setting that allows each.
STACKS: dict[str, dict[str, dict[str, str]]] = {
    "classic": {
        "draw2": {"draw2": "stack_draw2", "wild_draw4": "stack_draw4_on_draw2"},
        "wild_draw4": {"wild_draw4": "stack_draw4"},
    },
    "all_wild": {
        "wild_draw2": {"wild_draw2": "stack_draw2", "wild_draw4": "stack_draw4_on_draw2"},
        "wild_draw4": {"wild_draw4": "stack_draw4"},
    },
    "flip": {
        "draw1": {"draw1": "stack_draw2", "wild_draw2": "stack_draw4_on_draw2"},
        "draw5": {"draw5": "stack_draw2"},
        "wild_draw2": {"wild_draw2": "stack_draw4"},
    },
}
# R7, R21, R23: the cards legal only without a card of the color in play.
CHALLENGEABLE = {"classic": {"wild_draw4"}, "flip": {"wild_draw2", "wild_draw_color"}}
# R5, R18, R21, R23: cards whose next player draws this many and loses the turn.
DRAWS = {
    "classic": {"draw2": 2, "wild_draw4": 4},
    "all_wild": {"wild_draw2": 2, "wild_draw4": 4},
    "flip": {"draw1": 1, "wild_draw2": 2, "draw5": 5},
}
# R16, R19, R26: points of a card left in a hand.
POINTS = {
    "classic": {"skip": 20, "reverse": 20, "draw2": 20},  # every wild 50
    "all_wild": {"wild": 20},  # every other card 50
    "flip": {
        "draw1": 10,
        "draw5": 20,
        "reverse": 20,
        "skip": 20,
        "flip": 20,
        "skip_everyone": 30,
        "wild": 40,
        "wild_draw2": 50,
        "wild_draw_color": 60,
    },
}


def _points(variant: str, card: Card) -> int:
    if card["kind"] == "number":
        return int(card["value"])
    return POINTS[variant].get(card["kind"], 50)


def _identical(a: Card, b: Card) -> bool:
    return a["color"] is not None and (a["color"], a["kind"], a["value"]) == (
        b["color"],
        b["kind"],
        b["value"],
    )


def expected_plays(v: dict[str, Any], seat: int, drawn: int | None) -> set[int]:
    """The cards `seat` may play now, from its own view (R3, R4, R7, R9, R17, R28)."""
    s = v["settings"]
    t = v["state"]
    variant = s["variant"]
    hand: list[Card] = v["you"]["hand"]
    top: Card = t["top"]
    color = t["color"]

    def bluff_ok(card: Card) -> bool:
        if card["kind"] not in CHALLENGEABLE.get(variant, set()) or s["bluffing"]:
            return True
        return not any(c["color"] == color for c in hand if c["id"] != card["id"])

    def stacks(card: Card) -> bool:
        allowed = STACKS[variant].get(top["kind"], {})
        return card["kind"] in allowed and bool(s[allowed[card["kind"]]])

    if v["status"] != "playing":
        return set()
    if seat == t["turn"]:
        phase = t["phase"]
        if phase == "play":
            return {
                c["id"]
                for c in hand
                if (
                    variant == "all_wild"
                    or c["color"] is None
                    or c["color"] == color
                    or (
                        top["color"] is not None
                        and (c["kind"], c["value"]) == (top["kind"], top["value"])
                    )
                )
                and bluff_ok(c)
            }
        if phase == "after_draw":
            return {drawn} if drawn is not None else set()
        if phase in ("penalty", "challenge"):
            return {c["id"] for c in hand if stacks(c) and bluff_ok(c)}
        return set()
    if not s["jump_in"] or t["phase"] not in ("play", "after_draw", "penalty"):
        return set()
    return {c["id"] for c in hand if _identical(c, top) and (t["phase"] != "penalty" or stacks(c))}


class Oracle(Driver):
    """The driver, with every step checked against the oracle."""

    def __init__(self, settings: dict[str, Any], n: int, seed: int) -> None:
        self.checked: dict[str, int] = {}
        self.guilty = False  # the latest challengeable card was played holding the color
        self.drawn_by: dict[int, int] = {}  # each seat's last drawn card (R4: the one it may play)
        super().__init__(settings, n, seed, check=False)

    def act(self, seat: int | None, action: Action, now: int | None = None) -> list[Event]:
        before = self.state
        events = super().act(seat, action, now)
        for e in events:
            if e.kind == "card_drawn":
                for s, part in e.private.items():
                    self.drawn_by[s] = int(part["cards"][-1]["id"])
        if isinstance(action, Play) and seat is not None and before.status == "playing":
            self._note_bluff(before, seat, action)
            self._check_play(before, seat, action)
        answer = isinstance(action, (Challenge, Accept, Draw)) or (
            isinstance(action, Timeout) and action.kind == "challenge"
        )
        if answer and events and before.status == "playing" and before.phase == "challenge":
            self._check_answer(before, events)
        if isinstance(action, Timeout) and action.kind == "turn" and events:
            self._check_turn_timeout(before)
        self._check_moves()
        for e in events:
            if e.kind == "round_ended":
                self._check_points(before, e)
            elif e.kind == "round_started":
                self._check_first_card(events)
                if e.public["round"] > 1:  # R1: the deal passes to the left each round
                    assert e.public["dealer"] == (before.dealer + 1) % len(before.seats)
                    self._count("dealer")
        return events

    def _note_bluff(self, before: State, seat: int, action: Play) -> None:
        """R7: was the card legal (no card of the color in play besides it)?"""
        v = view(before, seat, self.now)
        color = v["state"]["color"]
        self.guilty = any(c["color"] == color for c in v["you"]["hand"] if c["id"] != action.card)

    def _check_answer(self, before: State, events: list[Event]) -> None:
        """R8, R21, R23: the answer to a challengeable card, whoever gave it."""
        o = view(before, None, self.now)
        n = view(self.state, None, self.now)
        ot, nt = o["state"], n["state"]
        players = len(o["seats"])
        victim = ot["turn"]
        offender = (victim - ot["direction"]) % players
        counts = [int(x["hand_count"]) for x in o["seats"]]
        grew = [int(x["hand_count"]) - c for x, c in zip(n["seats"], counts, strict=True)]
        until = ot["top"]["kind"] == "wild_draw_color"
        plenty = int(ot["draw_count"]) > 12
        resolved = [e for e in events if e.kind == "challenge_resolved"]
        if not resolved:
            if n["status"] != "playing" or nt["top"]["id"] != ot["top"]["id"]:
                return  # a stacked card, or a catch that ended nothing: judged elsewhere
            if until:  # R23: until a card of the named color, wilds not counting
                if plenty:
                    drawn = self._hand(victim)[-grew[victim] :]
                    assert drawn[-1]["color"] == ot["color"]
                    assert all(c["color"] != ot["color"] for c in drawn[:-1])
            elif plenty:
                assert grew[victim] == int(ot["pending_draw"])
            assert nt["turn"] == (victim + ot["direction"]) % players
            self._count("accepted")
            return
        guilty = resolved[0].public["guilty"]
        assert guilty == self.guilty
        assert resolved[0].public["offender"] == offender
        if guilty:  # the offender draws; the challenger plays on the named color
            assert grew[victim] == 0 and (nt["turn"], nt["phase"]) == (victim, "play")
            if plenty and not until:
                assert grew[offender] == int(ot["pending_draw"])
        else:  # the challenger draws the penalty and 2 more, and loses the turn
            assert grew[offender] == 0
            assert nt["turn"] == (victim + ot["direction"]) % players
            if plenty and not until:
                assert grew[victim] == int(ot["pending_draw"]) + 2
            if plenty and until:
                drawn = self._hand(victim)[-grew[victim] :]
                hits = [i for i, c in enumerate(drawn) if c["color"] == ot["color"]]
                assert hits and hits[0] == len(drawn) - 3
        self._count("challenge")

    def _check_turn_timeout(self, before: State) -> None:
        """R29: the server acts for the player in turn."""
        if before.status != "playing" or before.phase == "challenge":
            return
        o = view(before, None, self.now)
        n = view(self.state, None, self.now)
        ot, nt = o["state"], n["state"]
        seat = ot["turn"]
        grew = int(n["seats"][seat]["hand_count"]) - int(o["seats"][seat]["hand_count"])
        phase = ot["phase"]
        if phase == "choose":  # a random color of the side in play, then the turn played out
            # (docs/rules.md R29: one expiry is the whole turn: the color, the draw, the pass)
            assert nt["color"] in (LIGHT if ot["side"] == "light" else DARK)
            if o["settings"]["draw"] == "one" and int(ot["draw_count"]) > 0:
                assert grew == 1
            assert nt["turn"] == (seat + ot["direction"]) % len(o["seats"])
        elif phase == "penalty":  # the pending penalty is taken
            if int(ot["draw_count"]) > 12:
                assert grew == int(ot["pending_draw"])
            assert nt["turn"] == (seat + ot["direction"]) % len(o["seats"])
        elif phase in ("play", "after_draw"):  # draw if not done, keep, pass
            if phase == "after_draw":
                assert grew == 0
            elif o["settings"]["draw"] == "one" and int(ot["draw_count"]) > 0:
                assert grew == 1
            assert nt["turn"] == (seat + ot["direction"]) % len(o["seats"])
        self._count(f"timeout {phase}")

    def _count(self, what: str) -> None:
        self.checked[what] = self.checked.get(what, 0) + 1

    def _check_moves(self) -> None:
        st = self.state
        if st.status != "playing":
            return
        for seat in range(len(st.seats)):
            v = view(st, seat, self.now)
            got = {int(p["card"]) for p in v["you"]["moves"]["play"]}
            want = expected_plays(v, seat, self.drawn_by.get(seat))
            assert got == want, (seat, v["state"]["phase"], v["state"]["top"], got ^ want)
            self._count("moves")

    def _check_play(self, before: State, seat: int, action: Play) -> None:
        o = view(before, seat, self.now)
        n = view(self.state, None, self.now)
        ot, nt = o["state"], n["state"]
        card = next(c for c in o["you"]["hand"] if c["id"] == action.card)
        kind = card["kind"]
        variant = o["settings"]["variant"]
        players = len(o["seats"])
        d = ot["direction"]
        last = len(o["you"]["hand"]) == 1

        def after(steps: int) -> int:
            return (seat + d * steps) % players

        if n["status"] != "playing":
            assert last or card.get("effect") == "discard_color", "only an emptied hand ends it"
            return
        assert not last or kind == "wild_shuffle", "R14: a last card ends the round (R10 aside)"
        self._count(f"play {kind}")
        seven_zero = o["settings"]["seven_zero"] and kind == "number"
        counts = [int(x["hand_count"]) for x in o["seats"]]
        new_counts = [int(x["hand_count"]) for x in n["seats"]]
        plenty = int(ot["draw_count"]) > 12  # no reshuffle can cut a draw short
        if kind == "number":
            assert (nt["turn"], nt["phase"]) == (after(1), "play")
            counts[seat] -= 1
            if seven_zero and card["value"] == 0:  # R27: every hand passes on
                assert new_counts == [counts[(i - d) % players] for i in range(players)]
            elif seven_zero and card["value"] == 7:  # R27: swapped with the chosen player
                target = action.target if action.target is not None else 1 - seat
                assert (new_counts[seat], new_counts[target]) == (counts[target], counts[seat])
            else:
                assert new_counts == counts
        elif kind in ("skip", "wild_skip"):
            assert nt["turn"] == after(2)  # R5, R15, R18
        elif kind == "wild_skip2":
            assert nt["turn"] == after(3)  # R18 (2 players: the opponent plays next)
        elif kind == "skip_everyone":
            assert nt["turn"] == seat  # R23, R25
        elif kind in ("reverse", "wild_reverse"):
            if players == 2:  # R15, R18, R25: acts as Skip
                assert (nt["turn"], nt["direction"]) == (seat, d)
            else:
                assert (nt["turn"], nt["direction"]) == ((seat - d) % players, -d)
        elif kind == "flip":  # R22
            assert nt["side"] != ot["side"]
            assert nt["turn"] == after(1)
            top_wild = nt["top"]["color"] is None
            assert nt["phase"] == ("choose" if top_wild else "play")
            assert nt["pending_draw"] == 0 and new_counts == [
                *counts[:seat],
                counts[seat] - 1,
                *counts[seat + 1 :],
            ]
        elif kind == "wild":
            assert (nt["turn"], nt["phase"]) == (after(1), "play")
        elif kind in DRAWS.get(variant, {}) or kind == "wild_draw_color":
            victim = after(1)
            assert nt["turn"] == victim or nt["turn"] == after(2)
            if nt["phase"] in ("challenge", "penalty"):
                assert nt["turn"] == victim
                if nt["phase"] == "challenge":
                    assert kind in CHALLENGEABLE.get(variant, set()) and o["settings"]["bluffing"]
            else:  # R5: applied at once
                assert nt["turn"] == after(2)
                assert not (kind in CHALLENGEABLE.get(variant, set()) and o["settings"]["bluffing"])
                if kind != "wild_draw_color" and plenty:
                    want = DRAWS[variant][kind] + int(ot["pending_draw"])
                    assert new_counts[victim] - counts[victim] == want
        elif kind == "wild_targeted_draw2":  # R18: the target keeps any turn
            target = action.target if action.target is not None else 1 - seat
            assert nt["turn"] == after(1)
            if plenty:
                assert new_counts[target] - counts[target] == 2
        elif kind == "wild_shuffle":  # R10: dealt one at a time from the player's left
            total = sum(counts) - 1
            base, extra = divmod(total, players)
            for k in range(1, players + 1):
                assert new_counts[(seat + k) % players] == base + (1 if k <= extra else 0)
            assert nt["turn"] == after(1)
        elif kind == "wild_custom":
            self._check_custom(card, o, n, seat, action)

    def _check_custom(
        self, card: Card, o: dict[str, Any], n: dict[str, Any], seat: int, action: Play
    ) -> None:
        """R11: the configured effect."""
        ot, nt = o["state"], n["state"]
        players = len(o["seats"])
        d = ot["direction"]
        counts = [int(x["hand_count"]) for x in o["seats"]]
        new_counts = [int(x["hand_count"]) for x in n["seats"]]
        plenty = int(ot["draw_count"]) > 12 * players
        effect, k = card["effect"], card["n"]
        if effect == "next_draws":
            victim = (seat + d) % players
            assert nt["turn"] == (seat + 2 * d) % players
            if plenty:
                assert new_counts[victim] - counts[victim] == k
        elif effect == "all_others_draw":
            assert nt["turn"] == (seat + d) % players
            if plenty:
                for s in range(players):
                    if s != seat:
                        assert new_counts[s] - counts[s] == k
        elif effect == "skip_next":
            assert nt["turn"] == (seat + d * (1 + k)) % players
        elif effect == "reverse":
            if players == 2:
                assert nt["turn"] == seat
            else:
                assert (nt["turn"], nt["direction"]) == ((seat - d) % players, -d)
        elif effect == "discard_color":
            assert all(c["color"] != action.color for c in self._hand(seat))
            assert nt["top"]["id"] == action.card
        elif effect in ("swap_hands", "rotate_hands"):
            assert nt["turn"] == (seat + d) % players
        self._count(f"custom {effect}")

    def _hand(self, seat: int) -> list[Card]:
        return view(self.state, seat, self.now)["you"]["hand"]  # type: ignore[no-any-return]

    def _check_points(self, before: State, e: Event) -> None:
        p = e.public
        variant = before.settings.variant
        held = [sum(_points(variant, c) for c in hand) for hand in p["hands"]]
        winner = p["winner"]
        assert held[winner] == 0
        scoring = before.settings.scoring
        if scoring == "winner_collects":
            want = [sum(held) if i == winner else 0 for i in range(len(held))]
        elif scoring == "lowest_wins":
            want = held
        else:
            want = [0] * len(held)
        assert p["points"] == want
        self._count("round points")

    def _check_first_card(self, events: list[Event]) -> None:
        v = view(self.state, None, self.now)
        t = v["state"]
        if (
            v["status"] != "playing"
            or t["discard_count"] != 1
            or self.state.version != events[-1].version
        ):
            return
        players = len(v["seats"])
        dealer = t["dealer"]
        first = (dealer + 1) % players
        top = t["top"]
        kind = top["kind"]
        variant = v["settings"]["variant"]
        mode = v["settings"]["first_card"]
        if variant != "all_wild":
            assert kind != "flip" and kind not in CHALLENGEABLE.get(variant, set())  # R2, R24
            if mode == "redraw_until_number":
                assert kind == "number"
            if mode == "apply_actions_reshuffle_wilds":
                assert top["color"] is not None
        if variant == "all_wild" or kind == "number":
            want = (first, 1, "play")  # R17: the action is ignored
        elif kind in ("draw2", "draw1", "skip"):
            want = ((first + 1) % players, 1, "play")
        elif kind == "reverse":
            want = (dealer, -1, "play")
        else:
            want = (first, 1, "choose")
        assert (t["turn"], t["direction"], t["phase"]) == want, (kind, players)
        self._count("first card")


@pytest.mark.parametrize("variant", ["classic", "all_wild", "flip"])
@pytest.mark.parametrize("seed", range(8))
def test_random_play_keeps_to_the_rules(variant: str, seed: int) -> None:
    r = random.Random(1000 * seed + len(variant))
    d = Oracle(random_settings(r, variant), r.randint(2, 7), seed + 31)
    for _ in range(300):
        d.step()
    assert d.checked.get("moves", 0) > 100
