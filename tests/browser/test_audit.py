"""What a newcomer ran into in the web audit of December 2026, against hand-made views."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import ConsoleErrors, now_ms
from tests.browser.fake_site import ORIGIN, FakeSite
from tests.browser.test_tournament import CODE, FakeTournament, open_tournament, registering

pytestmark = pytest.mark.browser

LANDSCAPE = {"viewport": {"width": 844, "height": 390}, "is_mobile": True, "has_touch": True}

PILE_AND_HAND = """() => {
  const top = (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
  const cards = [...document.querySelectorAll('[data-testid=hand] .card')]
    .map((c) => c.getBoundingClientRect());
  return {
    felt: document.querySelector('.felt').getBoundingClientRect().height,
    from: top('discard').top,
    to: Math.max(...cards.map((r) => r.bottom)),
    screen: innerHeight,
  };
}"""


@pytest.mark.parametrize("lang", ["fi", "fa"])
def test_a_phone_held_sideways_shows_the_pile_and_the_hand_together(
    make_page: Callable[..., Page], lang: str
) -> None:
    # 844 x 390 is wider than the phone layout's 820 px: the table's ellipse kept its 470 px,
    # taller than the screen, and every turn meant scrolling from the pile to the hand.
    page = make_page(**LANDSCAPE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    box = page.evaluate(PILE_AND_HAND)
    assert box["felt"] < box["screen"], box
    assert box["to"] - box["from"] <= box["screen"], box
    assert page.evaluate("document.documentElement.scrollWidth") <= 844


def test_tournament_errors_are_said_in_the_pages_language(
    make_page: Callable[..., Page], console_errors: ConsoleErrors
) -> None:
    # The tournament page showed the server's English message for a code missing from the
    # catalogs ("tournaments cannot be reached now, retry" on a Persian page), and the
    # server's English reason why a tournament stopped.
    console_errors.expect_message("503")
    page = make_page(locale="fa-IR")
    data = registering(2)
    data["error"] = "a table's room was lost"
    FakeTournament(page, data)
    page.route(
        f"{ORIGIN}/api/tournaments/{CODE}/entrants",
        lambda route: route.fulfill(
            status=503,
            json={"error": {"code": "unavailable", "message": "tournaments cannot be reached"}},
        ),
    )
    open_tournament(page, lang="fa")
    expect(page.get_by_test_id("tour-stopped")).to_have_text(
        "مسابقات متوقف شد: یکی از میزها قابل بازی نبود."
    )
    page.get_by_test_id("tour-name").fill("Darius")
    page.get_by_test_id("tour-enter").click()
    expect(page.get_by_test_id("tour-enter-error")).to_have_text(
        "سرور الان مشغول است. کمی بعد دوباره امتحان کنید."
    )
