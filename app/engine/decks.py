"""The decks, with stable card ids (RULES "Decks"; documented in docs/rules.md).

Ids enumerate the classic and All Wild decks in one fixed order; a Flip deck's are dealt out
anew for each match:

- classic: for red, yellow, green, blue in turn: 0, 1, 1, 2, 2, ... 9, 9, Skip ×2,
  Reverse ×2, Draw Two ×2 (ids 0-99); then Wild ×4 (100-103), Wild Draw Four ×4 (104-107);
  gdj85 adds Wild Shuffle Hands (108) and one Wild Customizable per `custom_wilds` entry
  (109, 110, 111 in entry order).
- all_wild: the ALL_WILD_COUNTS table in order (Wild 0-25, Wild Reverse 26-39, ...).
- flip: no fixed order. The light faces are listed as red, yellow, green, blue in turn: 1, 1,
  ... 9, 9, Draw One ×2, Reverse ×2, Skip ×2, Flip ×2 (26 per color); Wild ×4; Wild Draw
  Two ×4, and the dark faces the same way (pink, teal, orange, purple; Draw Five, Reverse, Skip
  Everyone, Flip; Wild; Wild Draw Color). A match's `pairing` gives each card id a light face
  and a dark face, both shuffled once per match: `pairing[id]` indexes the light list and
  `pairing[112 + id]` the dark one. Ids must not tell a face: a card is sent with its id and
  the face in play, so with the light faces in a known id order every dark face sent would
  show the light face behind it (PROTOCOL 1). (A pairing of 112 alone, as stored before, keeps
  the light faces in list order.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from app.engine.cards import DARK_COLORS, LIGHT_COLORS, Face, make_face
from app.engine.rng import Rng
from app.engine.settings import CustomWild, Settings

ALL_WILD_COUNTS: tuple[tuple[str, int], ...] = (
    ("wild", 26),
    ("wild_reverse", 14),
    ("wild_skip", 14),
    ("wild_skip2", 14),
    ("wild_draw2", 14),
    ("wild_draw4", 14),
    ("wild_targeted_draw2", 8),
    ("wild_forced_swap", 8),
)


@dataclass(frozen=True, slots=True)
class Deck:
    variant: str
    light: tuple[Face, ...]  # the only side outside Flip
    dark: tuple[Face, ...] | None  # Flip only, already paired: dark[id] backs light[id]
    # Derived once, for the hot path: faces by side (0 light, 1 dark), the wire form of
    # each card by side (with its id; copied before it leaves), and each face's wire form.
    sides: tuple[tuple[Face, ...], tuple[Face, ...]] = field(init=False)
    wire: tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]] = field(init=False)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        dark = self.dark if self.dark is not None else self.light
        object.__setattr__(self, "sides", (self.light, dark))
        object.__setattr__(self, "size", len(self.light))
        wire = []
        for faces in (self.light, dark):
            cards = []
            for cid, face in enumerate(faces):
                j = face.to_json()
                cards.append({"id": cid, **j} if self.dark is None else {"id": cid, "face": j, **j})
            wire.append(tuple(cards))
        object.__setattr__(self, "wire", (wire[0], wire[1]))

    def side(self, side: int) -> tuple[Face, ...]:
        return self.sides[side]

    def colors(self, side: int) -> tuple[str, ...]:
        return DARK_COLORS if side else LIGHT_COLORS


def _classic(deck: str, customs: tuple[CustomWild, ...]) -> tuple[Face, ...]:
    faces = []
    for color in LIGHT_COLORS:
        faces.append(make_face("classic", color, "number", 0))
        for value in range(1, 10):
            faces += [make_face("classic", color, "number", value)] * 2
        for kind in ("skip", "reverse", "draw2"):
            faces += [make_face("classic", color, kind)] * 2
    faces += [make_face("classic", None, "wild")] * 4
    faces += [make_face("classic", None, "wild_draw4")] * 4
    if deck == "gdj85":
        faces.append(make_face("classic", None, "wild_shuffle"))
        for c in customs:
            faces.append(
                make_face("classic", None, "wild_custom", effect=c.effect, n=c.n, label=c.label)
            )
    return tuple(faces)


def _all_wild() -> tuple[Face, ...]:
    faces: list[Face] = []
    for kind, count in ALL_WILD_COUNTS:
        faces += [make_face("all_wild", None, kind)] * count
    return tuple(faces)


def _flip_side(
    colors: tuple[str, ...], actions: tuple[str, ...], wilds: tuple[str, ...]
) -> tuple[Face, ...]:
    faces = []
    for color in colors:
        for value in range(1, 10):
            faces += [make_face("flip", color, "number", value)] * 2
        for kind in actions:
            faces += [make_face("flip", color, kind)] * 2
    for kind in wilds:
        faces += [make_face("flip", None, kind)] * 4
    return tuple(faces)


FLIP_LIGHT = _flip_side(LIGHT_COLORS, ("draw1", "reverse", "skip", "flip"), ("wild", "wild_draw2"))
FLIP_DARK = _flip_side(
    DARK_COLORS, ("draw5", "reverse", "skip_everyone", "flip"), ("wild", "wild_draw_color")
)
ALL_WILD = _all_wild()


def deck_size(settings: Settings) -> int:
    if settings.variant == "classic":
        return 108 + (1 + len(settings.custom_wilds) if settings.deck == "gdj85" else 0)
    return 112


def deck_ids(settings: Settings) -> range:
    return range(deck_size(settings))


def new_pairing(rng: Rng) -> tuple[int, ...]:
    light = list(range(len(FLIP_LIGHT)))
    rng.shuffle(light)
    dark = list(range(len(FLIP_DARK)))
    rng.shuffle(dark)
    return tuple(light + dark)


@lru_cache(maxsize=256)
def _deck(
    variant: str, deck: str, customs: tuple[CustomWild, ...], pairing: tuple[int, ...] | None
) -> Deck:
    if variant == "all_wild":
        return Deck(variant, ALL_WILD, None)
    if variant == "flip":
        n = len(FLIP_LIGHT)
        light: Sequence[int] = range(n)
        dark: Sequence[int] = range(n)
        if pairing is not None and len(pairing) == 2 * n:
            light, dark = pairing[:n], pairing[n:]
        elif pairing:
            dark = pairing  # stored before the light faces were shuffled too
        return Deck(variant, tuple(FLIP_LIGHT[i] for i in light), tuple(FLIP_DARK[i] for i in dark))
    return Deck(variant, _classic(deck, customs), None)


def deck_for(settings: Settings, pairing: tuple[int, ...] | None) -> Deck:
    customs = settings.custom_wilds if settings.variant == "classic" else ()
    deck = settings.deck if settings.variant == "classic" else ""
    return _deck(settings.variant, deck, customs, pairing if settings.variant == "flip" else None)
