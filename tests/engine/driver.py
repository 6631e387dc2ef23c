"""Random legal play through the public engine API, with the invariants every step must keep.

Used by the property tests, the bulk run, the determinism test and the golden replays. The
driver behaves like the room: before a player acts it applies every timeout already due;
now and then it lets time jump to the earliest deadline.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from app import engine
from app.engine import (
    Play,
    Start,
    State,
    Timeout,
    apply,
    deadlines,
    deck_listing,
    legal_actions,
    new_table,
    parse_settings,
    redact,
    state_to_json,
    view,
)
from app.engine.actions import Action, Catch, Choose, Join
from app.engine.events import Event

from .helpers import T0, card_ids_in

# --- random settings ----------------------------------------------------------------------

EFFECTS_WITH_N = ("next_draws", "all_others_draw", "skip_next")
EFFECTS = (*EFFECTS_WITH_N, "swap_hands", "rotate_hands", "discard_color", "reverse")
BOOLS = (
    "forced_play",
    "no_voluntary_draw",
    "stack_draw2",
    "stack_draw4",
    "stack_draw4_on_draw2",
    "seven_zero",
    "jump_in",
    "bluffing",
)


def random_settings(r: random.Random, variant: str | None = None) -> dict[str, Any]:
    """A valid random settings object: every house rule and mode may show up."""
    s: dict[str, Any] = {"variant": variant or r.choice(("classic", "all_wild", "flip"))}
    for key in BOOLS:
        s[key] = r.random() < 0.4
    s["draw"] = r.choice(("one", "until_playable"))
    s["max_draw"] = r.choice((0, 1, 3, 10, 50))
    s["first_card"] = r.choice(("official", "redraw_until_number", "apply_actions_reshuffle_wilds"))
    s["scoring"] = r.choice(("winner_collects", "lowest_wins", "none"))
    s["target_score"] = r.choice((50, 100, 200, 500))
    s["uno_penalty"] = r.randint(0, 4)
    s["false_catch_penalty"] = r.randint(0, 2)
    s["turn_seconds"] = r.choice((0, 5, 30))
    s["challenge_seconds"] = r.choice((3, 10))
    s["uno_window_ms"] = r.choice((500, 3000))
    s["afk_timeouts"] = r.randint(1, 3)
    s["next_round_seconds"] = r.choice((0, 5))
    s["flip_discard"] = r.choice(("whole_pile", "top_card"))
    if s["variant"] == "classic":
        s["deck"] = r.choice(("gdj85", "gdj85", "original"))
        if s["deck"] == "gdj85":
            wilds = []
            for _ in range(r.randint(0, 3)):
                effect = r.choice(EFFECTS)
                entry: dict[str, Any] = {"effect": effect, "label": effect[:10]}
                if effect in EFFECTS_WITH_N:
                    entry["n"] = r.randint(1, 4)
                wilds.append(entry)
            s["custom_wilds"] = wilds
    return s


# --- actions as JSON (golden files) ---------------------------------------------------------


def action_to_json(seat: int | None, action: Action, now: int) -> dict[str, Any]:
    """{"seat": actor, "now": ms, "type": class name, "args": fields} (Catch has its own seat)."""
    args = {k: v for k, v in dataclasses.asdict(action).items() if v is not None}
    out: dict[str, Any] = {"seat": seat, "now": now, "type": type(action).__name__}
    if args:
        out["args"] = args
    return out


def action_from_json(data: Mapping[str, Any]) -> tuple[int | None, Action, int]:
    cls = getattr(engine.actions, data["type"])
    return data["seat"], cls(**data.get("args", {})), int(data["now"])


# --- the driver -----------------------------------------------------------------------------


class Driver:
    """One table under random legal play; `check` runs every invariant after every step."""

    def __init__(
        self,
        settings: Mapping[str, Any],
        n: int,
        seed: int,
        *,
        check: bool = True,
        record: bool = False,
        on_step: Callable[[Driver, list[Event]], None] | None = None,
        check_snapshots: bool = False,
    ) -> None:
        self.settings = dict(settings)
        self.n = n
        self.rng = random.Random(seed)  # the engine's randomness
        self.pick = random.Random(seed * 7919 + 1)  # the players' choices
        self.now = T0
        self.check = check
        self.check_snapshots = check_snapshots
        self.record = record
        self.on_step = on_step
        self.actions: list[dict[str, Any]] = []
        self.state: State = new_table("R", parse_settings(self.settings))
        self.size = int(deck_listing(self.state, test_hooks=False)["size"])
        self.rounds = 0
        self.matches = 0
        self.round_points: dict[str, list[int]] = {}  # match id -> summed points
        for i in range(n):
            self.act(None, Join(name=f"P{i}", player_id=f"p{i}"))
        self.act(0, Start())

    # --- acting ---
    def act(self, seat: int | None, action: Action, now: int | None = None) -> list[Event]:
        if now is not None:
            self.now = max(self.now, now)
        before = self.state.version
        old = self.state
        old_json = json.dumps(state_to_json(old), sort_keys=True) if self.check else ""
        self.state, events = apply(self.state, seat, action, self.rng, self.now, trace=self.check)
        if self.check:  # apply() never mutates its input (copy-on-write must not leak)
            assert json.dumps(state_to_json(old), sort_keys=True) == old_json, "input mutated"
        if self.record:
            self.actions.append(action_to_json(seat, action, self.now))
        for i, e in enumerate(events):
            assert e.version == before + i + 1, "version grows by one per event"
        self.track(events)
        if self.check:
            self.check_step(old, events)
        if self.on_step:
            self.on_step(self, events)
        return events

    def flush_due(self) -> None:
        """What the room does before each command: apply every timeout already due."""
        while True:
            due = [d for d in deadlines(self.state) if d.at <= self.now]
            if not due:
                return
            d = min(due, key=lambda d: (d.at, d.kind))
            self.act(None, Timeout(kind=d.kind, set_at=d.set_at))

    def earliest_timeout(self) -> bool:
        found = sorted(deadlines(self.state), key=lambda d: (d.at, d.kind))
        if not found:
            return False
        d = found[0]
        self.act(None, Timeout(kind=d.kind, set_at=d.set_at), now=d.at)
        return True

    def step(self) -> None:
        """One random move: a player's legal action, or time running out."""
        self.now += self.pick.choice((5, 50, 400))
        self.flush_due()
        if self.pick.random() < 0.04 and self.earliest_timeout():
            return
        st = view(self.state, None, self.now)
        if st["status"] != "playing":
            if self.pick.random() < 0.5 and self.earliest_timeout():
                return
            host = st["host"]
            starts = [a for a in legal_actions(self.state, host) if isinstance(a, Start)]
            assert starts, f"the host cannot start in {st['status']}"
            self.act(host, starts[0])
            return
        turn = st["state"]["turn"]
        others = [(s, a) for s in range(self.n) if s != turn for a in legal_actions(self.state, s)]
        if others and self.pick.random() < 0.15:
            seat, action = self.pick.choice(others)
        else:
            own = legal_actions(self.state, turn)
            assert own, "the seat in turn always has a legal action"
            plays = [a for a in own if isinstance(a, Play)]
            # mostly play when possible, so that rounds end in a reasonable number of steps
            pool = plays if plays and self.pick.random() < 0.85 else own
            seat, action = turn, self.pick.choice(pool)
        self.act_tolerant(seat, action)

    def act_tolerant(self, seat: int, action: Action) -> None:
        """Apply a listed legal action; only a false catch may be refused (and cost cards)."""
        try:
            self.act(seat, action)
        except engine.EngineError as err:
            raise AssertionError(f"legal action {action} of seat {seat} refused: {err}") from err

    def play_rounds(self, rounds: int, max_steps: int = 5000) -> None:
        target = self.rounds + rounds
        for _ in range(max_steps):
            if self.rounds >= target:
                return
            self.step()
        raise AssertionError(f"{rounds} rounds not done in {max_steps} steps")

    def status(self) -> str:
        return str(view(self.state, None, self.now)["status"])

    # --- bookkeeping ---
    def track(self, events: list[Event]) -> None:
        ended = any(e.kind == "match_ended" for e in events)
        for e in events:
            if e.kind == "round_ended":
                self.rounds += 1
                p = e.public
                sums = self.round_points.setdefault(p["match_id"], [0] * self.n)
                for i, pts in enumerate(p["points"]):
                    sums[i] += pts
                assert sums == list(p["scores"]), "match scores are the sum of round points"
                self.check_hand_points(p)
                self.check_match_end(list(p["scores"]), ended)
            elif e.kind == "match_ended":
                self.matches += 1
                self.check_winner(e.public["winner"], list(e.public["scores"]))

    def check_hand_points(self, p: dict[str, Any]) -> None:
        """Extension `hand_points`: each hand's worth, which the round's points are made of."""
        held = list(p["hand_points"])
        assert len(held) == len(p["hands"]) == self.n
        assert all(v == 0 for v, hand in zip(held, p["hands"], strict=True) if not hand)
        assert all(v >= 0 for v in held), held
        mode = self.settings.get("scoring", "winner_collects")
        if mode == "winner_collects":
            assert p["points"][p["winner"]] == sum(held)
        elif mode == "lowest_wins":
            assert list(p["points"]) == held
        else:
            assert not any(p["points"])

    def check_match_end(self, scores: list[int], ended: bool) -> None:
        """Rule 16: the match ends exactly when someone reaches the target (and no tie)."""
        mode = self.settings.get("scoring", "winner_collects")
        target = self.settings.get("target_score", 500)
        if mode == "none":
            assert ended, "under scoring none every round is a match"
        elif mode == "winner_collects":
            assert ended == (max(scores) >= target)
        else:
            lowest = min(scores)
            tie = scores.count(lowest) > 1
            assert ended == (max(scores) >= target and not tie)

    def check_winner(self, winner: int, scores: list[int]) -> None:
        mode = self.settings.get("scoring", "winner_collects")
        if mode == "winner_collects":
            assert scores[winner] == max(scores) and scores.count(max(scores)) == 1
        elif mode == "lowest_wins":
            assert scores[winner] == min(scores) and scores.count(min(scores)) == 1

    # --- invariants ---
    def check_step(self, before: State, events: list[Event]) -> None:
        prev = before
        for e in events:
            assert e.after is not None, "trace=True fills event.after"
            self.check_event(e)
            if self.check_snapshots and prev.status == e.after.status == "playing":
                self.check_snapshot(prev, e)
            prev = e.after
        self.check_state(self.state)

    def hands(self, st: State) -> list[set[int]]:
        return self.hands_and_views(st)[0]

    def hands_and_views(self, st: State) -> tuple[list[set[int]], list[dict[str, Any]]]:
        hands, views = [], []
        for s in range(self.n):
            seen = view(st, s, self.now)
            ids = [int(c["id"]) for c in seen["you"]["hand"]]
            assert len(ids) == len(set(ids)), "card ids in a hand are unique"
            hands.append(set(ids))
            views.append(seen)
        return hands, views

    def check_snapshot(self, prev: State, e: Event) -> None:
        """Each event's snapshot is the table right after it: not before, not later."""
        assert e.after is not None
        was, now = view(prev, None, self.now), view(e.after, None, self.now)
        counts = [s["hand_count"] for s in was["seats"]], [s["hand_count"] for s in now["seats"]]
        if e.kind == "card_drawn":
            seat, count = e.public["seat"], e.public["count"]
            got = counts[1][seat] - counts[0][seat]
            assert got == count, f"card_drawn of {count} shows {got} in its snapshot"
        elif e.kind == "card_played":
            seat = e.public["seat"]
            got = counts[0][seat] - counts[1][seat]
            assert got == 1, f"card_played shows {got} cards fewer in its snapshot"
            assert now["state"]["top"]["id"] == e.public["card"]["id"]
        elif e.kind == "deck_reshuffled":
            moved = e.public["count"]  # all discards but the top go under what is left
            assert now["state"]["discard_count"] == 1
            assert was["state"]["discard_count"] - 1 == moved
            assert now["state"]["draw_count"] == was["state"]["draw_count"] + moved
        elif e.kind == "hands_shuffled":
            assert counts[1] == list(e.public["counts"])
        elif e.kind == "hands_swapped":
            a, b = e.public["seat"], e.public["target"]
            swapped = list(counts[0])
            swapped[a], swapped[b] = swapped[b], swapped[a]
            assert counts[1] == swapped, "hands_swapped snapshot"
        elif e.kind == "hands_rotated":
            step = e.public["direction"]
            n = len(counts[0])
            assert counts[1] == [counts[0][(i - step) % n] for i in range(n)], "rotated"
        elif e.kind == "side_flipped":
            assert now["state"]["side"] == e.public["side"]
            assert now["state"]["top"] == e.public["top"]
            assert counts[0] == counts[1]
        elif e.kind in ("turn_passed", "turn_skipped", "direction_changed", "color_chosen"):
            assert counts[0] == counts[1], f"{e.kind} changes hand sizes in its snapshot"

    def check_event(self, e: Event) -> None:
        assert e.after is not None
        if e.after.status == "lobby":
            return
        hands, views = self.hands_and_views(e.after)
        everyone = set().union(*hands)
        assert not card_ids_in(view(e.after, None, self.now)) & everyone, "spectator frame"
        spectator = card_ids_in(redact(e, None))
        if e.kind != "round_ended":
            assert not spectator & everyone, f"{e.kind} shows a hand to spectators"
        for v in range(self.n):
            if e.kind == "round_ended" or (e.kind == "challenge_resolved" and v in e.private):
                continue
            seen = card_ids_in(redact(e, v)) | card_ids_in(views[v])  # the whole event frame
            leak = seen & (everyone - hands[v])
            assert not leak, f"{e.kind} shows seat {v} cards of another hand: {sorted(leak)}"

    def check_moves(self, st: State, seat: int, mv: Mapping[str, Any]) -> None:
        """PROTOCOL: `you.moves` lists exactly the legal actions of the recipient now."""
        acts = legal_actions(st, seat)
        plays = [a for a in acts if isinstance(a, Play)]
        assert {p["card"] for p in mv["play"]} == {a.card for a in plays}, "moves.play"
        for p in mv["play"]:
            mine = [a for a in plays if a.card == p["card"]]
            assert {a.color for a in mine} == set(p["colors"] or [None]), "moves.play colors"
            assert {a.target for a in mine} == set(p["targets"] or [None]), "moves.play targets"
        kinds = {type(a).__name__ for a in acts}
        for key, kind in (
            ("draw", "Draw"),
            ("pass", "Pass"),
            ("uno", "DeclareUno"),
            ("challenge", "Challenge"),
            ("accept", "Accept"),
        ):
            assert bool(mv[key]) == (kind in kinds), f"moves.{key} for seat {seat}"
        catches = sorted(a.seat for a in acts if isinstance(a, Catch))
        assert sorted(mv["catch"]) == catches, "moves.catch"
        chooses = {a.color for a in acts if isinstance(a, Choose)}
        assert set(mv["choose"] or []) == chooses, "moves.choose"

    def check_faces(self, st: State, pub: Mapping[str, Any], hands: list[set[int]]) -> None:
        """Flip (rule 20): own cards show the side in play; others' show their other side."""
        cards = {c["id"]: c for c in deck_listing(st, test_hooks=True)["cards"]}
        side = pub["state"]["side"]
        other = "dark" if side == "light" else "light"

        def key(face: Mapping[str, Any]) -> str:
            return f"{face['color']}/{face['kind']}/{face['value']}"

        if pub["state"]["top"] is not None:
            top = pub["state"]["top"]
            assert key(top["face"]) == key(cards[top["id"]][side]), "top shows the side in play"
        for v in range(self.n):
            mine = view(st, v, self.now)
            for card in mine["you"]["hand"]:
                assert key(card["face"]) == key(cards[card["id"]][side])
            for w in range(self.n):
                backs = mine["seats"][w]["backs"]
                if w == v:
                    assert backs is None
                    continue
                want = sorted(key(cards[c][other]) for c in hands[w])
                assert sorted(key(b) for b in backs) == want, "backs are the other faces"

    def check_state(self, st: State) -> None:
        pub = view(st, None, self.now)
        assert pub["version"] == st.version
        if pub["status"] == "lobby":
            return
        state = pub["state"]
        total = sum(s["hand_count"] for s in pub["seats"])
        total += state["draw_count"] + state["discard_count"]
        assert total == self.size, "cards are conserved"
        hands = self.hands(st)
        assert [len(h) for h in hands] == [s["hand_count"] for s in pub["seats"]]
        everyone = set().union(*hands)
        for v in range(self.n):
            mine = view(st, v, self.now)
            self.check_moves(st, v, mine["you"]["moves"])
            leak = card_ids_in(mine) & (everyone - hands[v])
            assert not leak, f"seat {v}'s view shows cards of another hand: {sorted(leak)}"
        assert not card_ids_in(pub) & everyone, "the spectator view shows a hand"
        if self.settings.get("variant") == "flip":
            self.check_faces(st, pub, hands)
        if pub["status"] == "playing":
            turn = state["turn"]
            assert isinstance(turn, int) and 0 <= turn < self.n, "one seat to act"
            assert legal_actions(st, turn), "the seat in turn has a legal action"
        scores = [s["score"] for s in pub["seats"]]
        if pub["match_id"] in self.round_points:
            assert scores == self.round_points[pub["match_id"]]
