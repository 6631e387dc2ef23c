"""Card faces: the facts the rules need about one side of one card, computed once per deck.

A hand, a pile or a discard is a list of int card ids; everything about a card is looked up
in the deck's tuple of `Face` by id, so that copying a table copies only lists of ints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

LIGHT_COLORS: Final[tuple[str, ...]] = ("red", "yellow", "green", "blue")
DARK_COLORS: Final[tuple[str, ...]] = ("pink", "teal", "orange", "purple")

# Wild Customizable menu (RULES 11): effect name -> whether it takes a number `n`.
CUSTOM_EFFECTS: dict[str, bool] = {
    "next_draws": True,
    "all_others_draw": True,
    "skip_next": True,
    "swap_hands": False,
    "rotate_hands": False,
    "discard_color": False,
    "reverse": False,
}

# Stacking classes (RULES 9): "small" = Draw Two and its kin, "big" = Wild Draw Four and kin.
SMALL: Final = "small"
BIG: Final = "big"
UNTIL_COLOR: Final = -1  # Wild Draw Color: draw until a card of the named color comes


@dataclass(frozen=True, slots=True)
class Face:
    color: str | None  # None for every wild
    kind: str
    value: int | None
    points: int
    wild: bool
    sym: str  # what "same number or symbol" compares
    draw: int  # cards the victim draws (0 none, UNTIL_COLOR for Wild Draw Color)
    stack: str | None  # stacking class, None when the card never stacks
    challengeable: bool
    needs_target: bool  # All Wild targeted cards and the swap_hands Customizable
    reshapes: bool  # its effect changes the player's own hand (swap, shuffle, discard...)
    effect: str | None = None
    n: int | None = None
    label: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"color": self.color, "kind": self.kind, "value": self.value}
        if self.kind == "wild_custom":
            out["effect"] = self.effect
            out["n"] = self.n
            out["label"] = self.label
        return out


_CLASSIC_POINTS = {"skip": 20, "reverse": 20, "draw2": 20}
_FLIP_POINTS = {
    "draw1": 10,
    "draw5": 20,
    "reverse": 20,
    "skip": 20,
    "flip": 20,
    "skip_everyone": 30,
    "wild": 40,
    "wild_draw2": 50,
    "wild_draw_color": 60,
}


def _points(variant: str, kind: str, value: int | None) -> int:
    if kind == "number":
        return value or 0
    if variant == "all_wild":
        return 20 if kind == "wild" else 50
    if variant == "flip":
        return _FLIP_POINTS[kind]
    return _CLASSIC_POINTS.get(kind, 50)


def _draw_facts(variant: str, kind: str) -> tuple[int, str | None, bool]:
    """(cards drawn, stacking class, challengeable) for a kind in a variant."""
    if kind == "draw2":
        return 2, SMALL, False
    if kind == "draw1":
        return 1, SMALL, False
    if kind == "draw5":
        return 5, SMALL, False
    if kind == "wild_draw4":
        return 4, BIG, variant != "all_wild"
    if kind == "wild_draw2":
        # All Wild's Wild Draw Two is the Draw Two of that deck; Flip's is its Wild Draw Four.
        return (2, SMALL, False) if variant == "all_wild" else (2, BIG, True)
    if kind == "wild_draw_color":
        return UNTIL_COLOR, None, True
    return 0, None, False


def make_face(
    variant: str,
    color: str | None,
    kind: str,
    value: int | None = None,
    *,
    effect: str | None = None,
    n: int | None = None,
    label: str | None = None,
) -> Face:
    draw, stack, challengeable = _draw_facts(variant, kind)
    if kind == "wild_custom" and effect == "next_draws":
        draw = n or 0
    needs_target = kind in ("wild_targeted_draw2", "wild_forced_swap") or (
        kind == "wild_custom" and effect == "swap_hands"
    )
    reshapes = kind in ("wild_shuffle", "wild_forced_swap") or (
        kind == "wild_custom" and effect in ("swap_hands", "rotate_hands", "discard_color")
    )
    return Face(
        color=color,
        kind=kind,
        value=value,
        points=_points(variant, kind, value),
        wild=color is None,
        sym=f"n{value}" if kind == "number" else kind,
        draw=draw,
        stack=stack,
        challengeable=challengeable,
        needs_target=needs_target,
        reshapes=reshapes,
        effect=effect,
        n=n,
        label=label,
    )
