"""A laptop's or desktop's browser window 801-910 px high keeps the turn above the fold."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import now_ms
from tests.browser.fake_site import FakeSite
from tests.browser.test_audit import _fits_without_scrolling, many_seats

pytestmark = pytest.mark.browser

LOCALES = {"en": "en-US", "fa": "fa-IR"}


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("opponents", [4, 10])
@pytest.mark.parametrize(
    "size",
    # The viewports of 1600x900 (and 1280x900), 1440x900, 1280x1024 and 1680x1050 screens; and
    # a 1920x1080 window, which kept its layout.
    [(1600, 820), (1440, 900), (1280, 900), (1680, 910), (1920, 1080)],
)
def test_a_tall_laptop_window_shows_the_piles_the_moves_and_the_hand_without_scrolling(
    make_page: Callable[..., Page], size: tuple[int, int], opponents: int, lang: str
) -> None:
    # From 801 px of height the 470 px ellipse, the recent plays and your area put the hand's
    # first row 10-90 px below the fold (1280x900: the cards not raised as playable; 1600x820:
    # all of them), so every turn meant scrolling from the pile to the cards.
    width, height = size
    page = make_page(viewport={"width": width, "height": height})
    site = FakeSite(page, many_seats(fv.classic_view(now_ms()), opponents))
    site.open_room(lang=lang)
    _fits_without_scrolling(page, width, height)
    # The ellipse stays with a few opponents (the next player on your left, d04).
    if opponents == 4:
        expect(page.locator(".felt")).not_to_have_class(re.compile(r"\bcrowded\b"))
    for seat in range(1, opponents + 1):
        expect(page.get_by_test_id(f"seat-{seat}-count")).to_be_visible()


OVERLAPS = """() => {
  const panel = document.querySelector('[data-testid=challenge-dialog]').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=hand] .card, .pile')]
    .map((c) => c.getBoundingClientRect())
    .filter((r) => r.left < panel.right && panel.left < r.right
      && r.top < panel.bottom && panel.top < r.bottom).length;
}"""


@pytest.mark.parametrize("opponents", [4, 10])
@pytest.mark.parametrize("size,lang", [((1600, 820), "fa"), ((1280, 900), "en")])
def test_a_tall_laptop_window_asks_the_challenge_beside_the_hand(
    make_page: Callable[..., Page], opponents: int, size: tuple[int, int], lang: str
) -> None:
    # The Wild Draw Four question floated at the bottom of the screen, over the right half of
    # the hand (the wilds one decides by); now over the side panels' column.
    width, height = size
    page = make_page(viewport={"width": width, "height": height}, locale=LOCALES[lang])
    site = FakeSite(page, many_seats(fv.challenge_view(now_ms()), opponents))
    site.open_room(lang=lang)
    _fits_without_scrolling(page, width, height)
    expect(page.get_by_test_id("challenge-btn")).to_be_in_viewport()
    assert page.evaluate(OVERLAPS) == 0
