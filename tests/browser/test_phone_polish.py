"""What an audit of the table on phones found: the Wild Draw Four question over your hand, card
colour words too small to read, long card labels cut with "…", and the piles or the hand below
the fold on a 360x740 phone and on a phone held sideways with Flip's dark side."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import now_ms
from tests.browser.fake_site import FakeSite
from tests.browser.test_audit import _fits_without_scrolling, many_seats

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LOCALES = {"en": "en-US", "fi": "fi-FI", "tr": "tr-TR", "fa": "fa-IR"}
COLORS = ["red", "yellow", "green", "blue", "pink", "teal", "orange", "purple"]
KINDS = [
    "skip", "reverse", "draw2", "wild", "wild_draw4", "wild_shuffle", "wild_custom",
    "wild_skip", "wild_skip2", "wild_reverse", "wild_draw2", "wild_targeted_draw2",
    "wild_forced_swap", "draw1", "flip", "draw5", "skip_everyone", "wild_draw_color",
]  # fmt: skip


def every_card() -> list[dict]:
    """Every kind in every colour (a wild on the discard pile shows its named colour), and each
    wild without one (as in a hand)."""
    cards = [fv.card(100 + i, color, "number", 8) for i, color in enumerate(COLORS)]
    for kind in KINDS:
        if kind.startswith("wild"):
            cards.append(fv.card(100 + len(cards), None, kind))
        cards += [fv.card(100 + len(cards) + i, color, kind) for i, color in enumerate(COLORS)]
    return cards


LABELS = """() => [...document.querySelectorAll('[data-testid=hand] .card')].map((card) => {
  const text = card.querySelector('.ctext');
  const parts = [text, ...text.querySelectorAll('.cname, .ccolor')].filter((el) => el.textContent);
  const oval = card.querySelector('.oval');  // its layout box: it is drawn turned
  const color = text.querySelector('.ccolor');
  return {
    card: card.getAttribute('aria-label'),
    clipped: parts
      .filter((el) => el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth)
      .map((el) => el.className),
    inside: text.offsetTop >= oval.offsetTop + oval.offsetHeight
      && text.offsetTop + text.offsetHeight <= card.clientHeight + 1,
    colorPx: color.textContent ? parseFloat(getComputedStyle(color).fontSize) : null,
  };
})"""


@pytest.mark.parametrize("lang", ["en", "fi", "tr", "fa"])
def test_every_cards_label_fits_on_a_phone_and_its_colour_word_is_readable(
    make_page: Callable[..., Page], lang: str
) -> None:
    # "WILD TARGETED DRAW TWO" and the long Finnish and Turkish names were cut to three lines
    # and "…" on a phone's 54 px card, and the colour word (for colour-blind players) was 8 px.
    page = make_page(locale=LOCALES[lang], **PHONE)
    view = fv.classic_view(now_ms())
    view["you"]["hand"] = every_card()
    view["you"]["moves"]["play"] = []
    site = FakeSite(page, view)
    site.open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(len(every_card()))
    labels = page.evaluate(LABELS)
    bad = [x for x in labels if x["clipped"] or not x["inside"]]
    assert bad == [], f"{len(bad)} of {len(labels)}: {bad}"
    assert min(x["colorPx"] for x in labels if x["colorPx"] is not None) >= 10


COVERED = """() => {
  const prompt = document.querySelector('[data-testid=challenge-dialog]').getBoundingClientRect();
  const over = (r) => r.left < prompt.right && r.right > prompt.left
    && r.top < prompt.bottom && r.bottom > prompt.top;
  const cards = [...document.querySelectorAll('[data-testid=hand] .card')];
  return {
    covered: cards.filter((c) => over(c.getBoundingClientRect())).map((c) => c.dataset.testid),
    unseen: cards.filter((c) => c.getBoundingClientRect().bottom > innerHeight)
      .map((c) => c.dataset.testid),
    first: cards[0].getBoundingClientRect().bottom <= innerHeight,
    prompt: [prompt.left, prompt.top, prompt.right, prompt.bottom],
  };
}"""


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize(("size", "opponents"), [((390, 844), 3), ((390, 844), 9), ((844, 390), 3)])
def test_the_wild_draw_four_question_leaves_your_hand_in_sight_on_a_phone(
    make_page: Callable[..., Page], lang: str, size: tuple[int, int], opponents: int
) -> None:
    # Upright, the Challenge/Accept panel sat at the bottom of the screen over the hand: the
    # cards one weighs the question by were hidden while its 10 seconds ran.
    width, height = size
    page = make_page(
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
        locale=LOCALES[lang],
    )
    site = FakeSite(page, many_seats(fv.classic_view(now_ms()), opponents))
    site.open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    site.push_event(
        {"kind": "challenge_opened", "seat": 0, "offender": 3},
        many_seats(fv.challenge_view(now_ms()), opponents),
    )
    # The question still takes the focus, and its buttons are on the screen.
    expect(page.get_by_test_id("challenge-btn")).to_be_focused()
    expect(page.get_by_test_id("accept-btn")).to_be_in_viewport(ratio=1)
    seen = page.evaluate(COVERED)
    assert seen["covered"] == [] and seen["first"], seen
    assert page.evaluate("scrollY") == 0


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("opponents", [1, 2, 3, 4, 5, 6, 7, 9])
@pytest.mark.parametrize("make_view", [fv.classic_view, fv.challenge_view])
def test_a_small_phone_shows_the_piles_the_moves_and_the_hand_without_scrolling(
    make_page: Callable[..., Page],
    opponents: int,
    make_view: Callable[[int], dict],
    lang: str,
) -> None:
    # On a 360x740 phone (smaller than the 390x844 the compact seats were fitted to) the hand
    # was below the fold with 4-6 opponents: the seats took 3 rows, the moves 2 lines (and with
    # 1-3 opponents and 7-9 too).
    page = make_page(
        viewport={"width": 360, "height": 740},
        is_mobile=True,
        has_touch=True,
        locale=LOCALES[lang],
    )
    site = FakeSite(page, many_seats(make_view(now_ms()), opponents))
    site.open_room(lang=lang)
    _fits_without_scrolling(page, 360, 740)
    for seat in range(1, opponents + 1):
        expect(page.get_by_test_id(f"seat-{seat}-count")).to_be_visible()


def flip_dark_side(opponents: int, cards: int) -> dict:
    """Flip's dark side: 7 cards in your hand; each opponent holds `cards`, their light faces
    shown on the backs."""
    view = many_seats(fv.flip_view(now_ms()), opponents)
    faces = [
        {"color": "blue", "kind": "draw1", "value": None},
        {"color": None, "kind": "wild_draw2", "value": None},
        {"color": "green", "kind": "flip", "value": None},
        {"color": "yellow", "kind": "number", "value": 9},
        {"color": "red", "kind": "reverse", "value": None},
    ]
    for seat in view["seats"][1:]:
        seat.update(hand_count=cards, backs=[faces[i % len(faces)] for i in range(cards)])
    hand = view["you"]["hand"]
    for cid, (color, kind, value) in enumerate(
        [("purple", "number", 2), ("teal", "flip", None), ("orange", "number", 8)], start=5
    ):
        face = {"color": color, "kind": kind, "value": value}
        hand.append({"id": cid, "face": face, **face})
    return view


@pytest.mark.parametrize("opponents", [4, 6, 9])
@pytest.mark.parametrize("size", [(844, 390), (390, 844), (360, 740)])
def test_flips_dark_side_on_a_phone_shows_the_piles_and_the_hand_without_scrolling(
    make_page: Callable[..., Page], size: tuple[int, int], opponents: int
) -> None:
    # Sideways (844x390) with 9 opponents, the light faces on each seat's 7 backs made the
    # tiles so tall that the piles were below the fold (upright, the hand's first row).
    width, height = size
    page = make_page(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    site = FakeSite(page, flip_dark_side(opponents, 7))
    site.open_room()
    _fits_without_scrolling(page, width, height)
    for seat in range(1, opponents + 1):
        expect(page.get_by_test_id(f"seat-{seat}-count")).to_be_visible()
