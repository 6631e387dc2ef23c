"""Scenario builder for engine tests: exact deals through the test-hook settings.

Cards are named by short specs matched against card faces:
  "red 5", "blue skip", "green draw2", "wild", "wild_draw4", "wild_custom effect=swap_hands",
  "dark:pink draw5" (Flip: match the dark face), "red 5|pink 3" (Flip: light | dark faces).
Tests only look at the table through the public API: view(), events and legal_actions().
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from app.engine import (
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
from app.engine.actions import (
    Accept,
    Action,
    Catch,
    Challenge,
    ChangeSettings,
    Choose,
    DeclareUno,
    Draw,
    Join,
    Pass,
    Play,
    Start,
    Timeout,
)
from app.engine.errors import EngineError
from app.engine.events import Event

T0 = 1_764_453_000_000
TICK = 10  # ms between two actions: far inside every window
COLORS = ("red", "yellow", "green", "blue", "pink", "teal", "orange", "purple")
LIGHT = ("red", "yellow", "green", "blue")


# --- card specs -------------------------------------------------------------------------


def parse_spec(spec: str) -> dict[str, Any]:
    """'red 5' -> {'color': 'red', 'kind': 'number', 'value': 5}; extra tokens are k=v."""
    parts = spec.split()
    want: dict[str, Any] = {}
    if "=" in parts[0]:
        pass
    elif parts[0] in COLORS:
        want["color"] = parts.pop(0)
        if parts and "=" not in parts[0]:
            word = parts.pop(0)
            if word.isdigit():
                want["kind"], want["value"] = "number", int(word)
            else:
                want["kind"] = word
    else:
        want["kind"] = parts.pop(0)
    for extra in parts:
        key, _, raw = extra.partition("=")
        want[key] = int(raw) if raw.isdigit() else raw
    return want


def face_matches(face: Mapping[str, Any], want: Mapping[str, Any]) -> bool:
    return all(face.get(k) == v for k, v in want.items())


def face_of(card: Mapping[str, Any], side: str) -> Mapping[str, Any]:
    """The face of a listing card on `side` (classic cards have one face)."""
    if side in card and isinstance(card[side], Mapping):
        return card[side]  # type: ignore[no-any-return]
    if "face" in card and isinstance(card["face"], Mapping):
        return card["face"]  # type: ignore[no-any-return]
    return card


def spec_matches(card: Mapping[str, Any], spec: str) -> bool:
    """Does a deck-listing card (classic or Flip {'id','light','dark'}) match `spec`?"""
    if "|" in spec:
        light, dark = (s.strip() for s in spec.split("|"))
        return spec_matches(card, light) and spec_matches(card, "dark:" + dark)
    side = "light"
    if spec.startswith("dark:"):
        side, spec = "dark", spec[5:]
    return face_matches(face_of(card, side), parse_spec(spec))


def listing_cards(listing: Mapping[str, Any]) -> list[dict[str, Any]]:
    cards = listing.get("cards")
    assert isinstance(cards, list), f"deck listing without ids: {sorted(listing)}"
    return cards


def _boring_rank(card: Mapping[str, Any]) -> int:
    """Fillers: number cards first, then colored actions, wilds last."""
    kind = face_of(card, "light").get("kind")
    if kind == "number":
        return 0
    return 2 if str(kind).startswith("wild") else 1


def build_deck_order(
    listing: Mapping[str, Any],
    n: int,
    dealer: int,
    hands: Mapping[int, Sequence[str]],
    first: str | None,
    draw: Sequence[str],
    avoid: Sequence[str] = (),
    under: Sequence[str] = (),
) -> tuple[list[int], dict[int, list[int]], int, list[int], list[int]]:
    """A full deck order (top first) dealing `hands`, then `first`, then `draw` on top.

    `under` goes to the bottom, so that once the draw pile is turned over (a Flip) it is
    drawn in the given order. Returns (order, hand ids per seat, first card id, draw ids,
    under ids).
    Fillers are picked among cards matching none of `avoid`, boring ones first.
    """
    cards = listing_cards(listing)
    used: set[int] = set()

    def take(spec: str) -> int:
        if spec.startswith("#"):
            cid = int(spec[1:])
            assert cid not in used, f"card {cid} placed twice"
            used.add(cid)
            return cid
        for card in cards:
            if card["id"] not in used and spec_matches(card, spec):
                used.add(card["id"])
                return int(card["id"])
        raise AssertionError(f"no card left for spec {spec!r}")

    hand_ids = {s: [take(x) for x in hands.get(s, ())] for s in range(n)}
    first_id = take(first) if first else -1
    draw_ids = [take(x) for x in draw]
    under_ids = [take(x) for x in under]
    rest = [c for c in cards if c["id"] not in used]
    fillers = sorted(
        (c for c in rest if not any(spec_matches(c, a) for a in avoid)), key=_boring_rank
    )
    fillers += [c for c in rest if c not in fillers]
    pool = [int(c["id"]) for c in fillers]
    for s in range(n):
        assert len(hand_ids[s]) <= 7, "a hand is dealt 7 cards"
        while len(hand_ids[s]) < 7:
            hand_ids[s].append(pool.pop(0))
    if first_id < 0:
        first_id = next(i for i in pool if _boring_rank(_by_id(cards, i)) == 0)
        pool.remove(first_id)
    order: list[int] = []
    for k in range(7):
        for i in range(n):
            order.append(hand_ids[(dealer + 1 + i) % n][k])
    order.append(first_id)
    order += draw_ids
    order += pool
    order += under_ids[::-1]
    assert len(order) == len(cards) == len(set(order))
    return order, hand_ids, first_id, draw_ids, under_ids


def _by_id(cards: Iterable[Mapping[str, Any]], cid: int) -> Mapping[str, Any]:
    return next(c for c in cards if c["id"] == cid)


# --- the table --------------------------------------------------------------------------


class Table:
    """One engine table driven by tests; keeps state, clock, rng and every event."""

    def __init__(
        self,
        n: int = 2,
        *,
        dealer: int | None = -1,
        hands: Mapping[int, Sequence[str]] | None = None,
        first: str | None = None,
        pile: Sequence[str] = (),
        avoid: Sequence[str] = (),
        under: Sequence[str] = (),
        seed: int = 7,
        start: bool = True,
        **settings: Any,
    ) -> None:
        self.n = n
        self.dealer = -1 if dealer is None else dealer % n
        self.rng = random.Random(seed)
        self.now = T0
        self.events: list[Event] = []
        self.last: list[Event] = []
        self.hand_ids: dict[int, list[int]] = {}
        self.first_id = -1
        self.draw_ids: list[int] = []
        self.under_ids: list[int] = []
        hooks: dict[str, Any] = dict(settings)
        if dealer is not None:
            hooks["dealer"] = self.dealer  # -1 means the last seat deals: seat 0 plays first
        self.settings = parse_settings(hooks, test_hooks=True)
        self.state = new_table("T", self.settings)
        for i in range(n):
            self.sys(Join(name=f"P{i}", player_id=f"p{i}"))
        # Flip pairs its faces when the table is first used, so the listing comes after joins
        self.listing = deck_listing(self.state, test_hooks=True)
        if dealer is not None and n >= 1:
            order, self.hand_ids, self.first_id, self.draw_ids, self.under_ids = build_deck_order(
                self.listing, n, self.dealer, hands or {}, first, pile, avoid, under
            )
            self.act(0, ChangeSettings(settings={"deck_order": order}))
        if start:
            self.act(0, Start())

    # --- acting ---
    def act(self, seat: int | None, action: Action, *, at: int | None = None) -> list[Event]:
        self.now = at if at is not None else self.now + TICK
        self.state, self.last = apply(self.state, seat, action, self.rng, self.now)
        self.events += self.last
        return self.last

    def sys(self, action: Action, *, at: int | None = None) -> list[Event]:
        return self.act(None, action, at=at)

    def refuse(
        self, seat: int | None, action: Action, code: str | tuple[str, ...] | None = None
    ) -> EngineError:
        """The action is refused with `code` (or one of them); the table is left as it was."""
        before = state_to_json(self.state)
        with pytest.raises(EngineError) as info:
            apply(self.state, seat, action, random.Random(0), self.now + TICK)
        if code is not None:
            codes = (code,) if isinstance(code, str) else code
            assert info.value.code in codes, info.value
        assert state_to_json(self.state) == before
        return info.value

    def card(self, seat: int, spec: str | int) -> int:
        """Id of the first card in `seat`'s hand matching spec (ids pass through)."""
        if isinstance(spec, int):
            return spec
        # A hand shows the face in play (flattened in Flip), so a "dark:" prefix is just noise
        want = parse_spec(spec.removeprefix("dark:"))
        for card in self.hand(seat):
            if face_matches(card, want):
                return int(card["id"])
        raise AssertionError(f"seat {seat} holds no {spec!r}: {self.hand(seat)}")

    def play(
        self,
        seat: int,
        spec: str | int,
        color: str | None = None,
        target: int | None = None,
        uno: bool = False,
    ) -> list[Event]:
        return self.act(seat, Play(card=self.card(seat, spec), color=color, target=target, uno=uno))

    def draw(self, seat: int) -> list[Event]:
        return self.act(seat, Draw())

    def pass_(self, seat: int) -> list[Event]:
        return self.act(seat, Pass())

    def uno(self, seat: int) -> list[Event]:
        return self.act(seat, DeclareUno())

    def catch(self, seat: int, target: int) -> list[Event]:
        return self.act(seat, Catch(seat=target))

    def challenge(self, seat: int) -> list[Event]:
        return self.act(seat, Challenge())

    def accept(self, seat: int) -> list[Event]:
        return self.act(seat, Accept())

    def choose(self, seat: int, color: str) -> list[Event]:
        return self.act(seat, Choose(color=color))

    def deadline(self, kind: str) -> Any:
        found = [d for d in deadlines(self.state) if d.kind == kind]
        assert found, f"no {kind} deadline in {deadlines(self.state)}"
        return found[0]

    def has_deadline(self, kind: str) -> bool:
        return any(d.kind == kind for d in deadlines(self.state))

    def timeout(self, kind: str) -> list[Event]:
        """Let the `kind` deadline pass: apply its Timeout at its own time."""
        d = self.deadline(kind)
        return self.sys(Timeout(kind=kind, set_at=d.set_at), at=max(self.now, d.at))

    # --- observing ---
    def view(self, seat: int | None = None) -> dict[str, Any]:
        return view(self.state, seat, self.now)

    @property
    def st(self) -> dict[str, Any]:
        return self.view(None)["state"]  # type: ignore[no-any-return]

    @property
    def turn(self) -> int:
        return int(self.st["turn"])

    @property
    def phase(self) -> str:
        return str(self.st["phase"])

    @property
    def status(self) -> str:
        return str(self.view(None)["status"])

    @property
    def top(self) -> dict[str, Any]:
        return self.st["top"]  # type: ignore[no-any-return]

    def hand(self, seat: int) -> list[dict[str, Any]]:
        return self.view(seat)["you"]["hand"]  # type: ignore[no-any-return]

    def hand_ids_now(self, seat: int) -> set[int]:
        return {int(c["id"]) for c in self.hand(seat)}

    def count(self, seat: int) -> int:
        return int(self.view(None)["seats"][seat]["hand_count"])

    def counts(self) -> list[int]:
        return [int(s["hand_count"]) for s in self.view(None)["seats"]]

    def moves(self, seat: int) -> dict[str, Any]:
        return self.view(seat)["you"]["moves"]  # type: ignore[no-any-return]

    def playable(self, seat: int) -> set[int]:
        return {int(p["card"]) for p in self.moves(seat)["play"]}

    def legal(self, seat: int) -> list[Action]:
        return legal_actions(self.state, seat)

    def kinds(self, events: Sequence[Event] | None = None) -> list[str]:
        return [e.kind for e in (self.last if events is None else events)]

    def find(self, kind: str, events: Sequence[Event] | None = None) -> Event:
        found = [e for e in (self.events if events is None else events) if e.kind == kind]
        assert found, f"no {kind} event among {self.kinds(events)}"
        return found[-1]

    def seen(self, event: Event, seat: int | None) -> dict[str, Any]:
        return redact(event, seat)

    def scores(self) -> list[int]:
        return [int(s["score"]) for s in self.view(None)["seats"]]


def total_cards(t: Table) -> int:
    st = t.st
    return sum(t.counts()) + int(st["draw_count"]) + int(st["discard_count"])


def card_ids_in(obj: Any) -> set[int]:
    """Every card id a JSON-like value carries (card dicts and `card`/`cards` fields)."""
    found: set[int] = set()
    if isinstance(obj, Mapping):
        if isinstance(obj.get("id"), int) and ("kind" in obj or "face" in obj):
            found.add(obj["id"])
        for key, value in obj.items():
            if key == "card" and isinstance(value, int):
                found.add(value)
            found |= card_ids_in(value)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            found |= card_ids_in(item)
    return found


# In two-player classic, Skip and Reverse give the turn back to their player (rule 15), so
# this chain, played on a red first card, takes a hand from 7 cards to 2 without the
# opponent acting. The top is then the green Skip.
CHAIN = ["red skip", "red reverse", "blue reverse", "blue skip", "green skip"]
CHAIN_FIRST = "red 3"


def run_chain(t: Table, seat: int = 0, chain: Sequence[str] = CHAIN) -> None:
    for spec in chain:
        assert t.turn == seat
        t.play(seat, spec)
    assert t.turn == seat


def quick_win_table(other: Sequence[str] = (), **kw: Any) -> Table:
    """Two players; seat 0 can win in 7 plays while seat 1 (holding `other`) draws once."""
    return Table(
        2,
        hands={0: [*CHAIN, "green 4", "yellow 4"], 1: list(other)},
        first=CHAIN_FIRST,
        pile=["blue 9"],
        avoid=["color=green", "color=yellow", "kind=number value=4", "kind=wild"],
        **kw,
    )


def win_quickly(t: Table) -> None:
    """Seat 0 empties its hand on a quick_win_table: the round ends on its last card."""
    run_chain(t)
    t.play(0, "green 4", uno=True)
    assert t.turn == 1
    t.draw(1)  # the blue 9: not playable on the green 4, so the turn ends by itself
    assert t.turn == 0
    t.play(0, "yellow 4")


# --- Flip -------------------------------------------------------------------------------

FLIP_SEED = 7


def flip_listing(n: int, seed: int = FLIP_SEED) -> dict[str, Any]:
    """The paired Flip deck a table of `n` with `seed` will use (the pairing comes from rng)."""
    return Table(n, variant="flip", dealer=None, start=False, seed=seed).listing


def light_color_backed_by(listing: Mapping[str, Any], dark: str) -> str:
    """A light color with a number backed by `dark` (e.g. 'pink kind=number') and a Flip."""
    cards = listing_cards(listing)
    for color in LIGHT:
        if any(spec_matches(c, f"{color} kind=number|{dark}") for c in cards) and any(
            spec_matches(c, f"{color} flip") for c in cards
        ):
            return color
    raise AssertionError(f"no light number backed by {dark!r} with this seed")


def dark_table(
    n: int = 3,
    hand1: Sequence[str] = (),
    under: Sequence[str] = (),
    back: str = "pink kind=number",
    **settings: Any,
) -> Table:
    """Seat 0 plays a Flip on the first card, whose dark face (`back`) becomes the top.

    Seat 1 then holds `hand1` (dark specs) and is in turn on the dark side; `under` is what
    the turned-over draw pile gives first. Fillers carry no pink dark face.
    """
    listing = flip_listing(n)
    color = light_color_backed_by(listing, back)
    t = Table(
        n,
        variant="flip",
        hands={0: [f"{color} flip"], 1: list(hand1)},
        first=f"{color} kind=number|{back}",
        under=under,
        avoid=["dark:color=pink", "dark:kind=wild", "dark:kind=wild_draw_color"],
        seed=FLIP_SEED,
        **settings,
    )
    assert t.listing == listing
    t.play(0, f"{color} flip")
    assert t.st["side"] == "dark"
    return t


def face(listing: Mapping[str, Any], cid: int, side: str) -> dict[str, Any]:
    card = next(c for c in listing_cards(listing) if c["id"] == cid)
    return dict(card[side])


def strip_id(card: Mapping[str, Any]) -> dict[str, Any]:
    """A hand or pile card's face fields (Flip cards carry them flattened next to `face`)."""
    return {k: card[k] for k in ("color", "kind", "value")}
