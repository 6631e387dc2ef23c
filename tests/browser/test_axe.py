"""An accessibility audit with axe-core (tests/browser/vendor/axe.min.js, MPL-2.0) of the home
page, the lobby, the table (a turn, the Wild Draw Four question), the round's scores and the
tournament page, in English and Persian, on a phone and a laptop: no serious or critical
violation."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import now_ms
from tests.browser.fake_site import ORIGIN, FakeSite
from tests.browser.test_defects import round_over_view
from tests.browser.test_tournament import ENTRANT_E3, FakeTournament, open_tournament, running

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe.min.js"

# (rule, CSS selector of the elements it is waived for) -> why. Only with a reason.
ALLOWED: dict[tuple[str, str], str] = {
    ("label-content-name-mismatch", "button.card, button.pile.draw"): (
        "A card's face is a picture of the card: its symbol twice (the corner, for a fanned "
        "hand, and the oval), its name and colour word, all aria-hidden; axe joins them into "
        "one word ('55Red', 'SkipRed', 'UNO70'). The button's name says the card as players "
        "say it ('Red 5 — playable', 'Draw pile, 70 cards'); voice control matches it."
    ),
}

RUN_AXE = """async (allowed) => {
  const result = await axe.run(document, {
    resultTypes: ['violations'],
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  });
  const waived = (id, node) => allowed.some(([rule, selector]) => rule === id
    && document.querySelector(node.target[0])?.matches(selector));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.filter((n) => !waived(v.id, n)).slice(0, 6)
        .map((n) => [n.target.join(' '), n.failureSummary]) }))
    .filter((v) => v.nodes.length);
}"""

SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}
LOCALES = {"en": "en-US", "fa": "fa-IR"}


def open_home(page: Page, lang: str) -> None:
    FakeSite(page, fv.lobby_view(now_ms()))
    page.goto(f"{ORIGIN}/")
    page.evaluate(f"localStorage.setItem('uno.lang', '{lang}')")
    page.reload()
    expect(page.get_by_test_id("create-name")).to_be_visible()


def open_lobby(page: Page, lang: str) -> None:
    FakeSite(page, fv.lobby_view(now_ms())).open_room(lang=lang)
    expect(page.get_by_test_id("lobby")).to_be_visible()


def open_turn(page: Page, lang: str) -> None:
    FakeSite(page, fv.classic_view(now_ms())).open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)


def open_challenge(page: Page, lang: str) -> None:
    FakeSite(page, fv.challenge_view(now_ms())).open_room(lang=lang)
    expect(page.get_by_test_id("challenge-btn")).to_be_visible()


def open_scores(page: Page, lang: str) -> None:
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    site.push_event(fv.round_ended_event(), round_over_view(host_deals=True, you_host=True))
    expect(page.get_by_test_id("round-summary")).to_be_visible()


def open_colors(page: Page, lang: str) -> None:
    # A Wild played: the color question, the light side's four and the dark side's four.
    open_turn(page, lang)
    page.get_by_test_id("card-4").click()
    expect(page.get_by_test_id("pick-color-green")).to_be_visible()


def open_dark_colors(page: Page, lang: str) -> None:
    view = fv.flip_view(now_ms())
    colors = ["pink", "teal", "orange", "purple"]
    view["you"]["moves"]["play"].append({"card": 4, "colors": colors, "targets": None})
    FakeSite(page, view).open_room(lang=lang)
    page.get_by_test_id("card-4").click()
    expect(page.get_by_test_id("pick-color-teal")).to_be_visible()


def open_tournament_page(page: Page, lang: str) -> None:
    FakeTournament(page, running())
    open_tournament(page, ENTRANT_E3, lang=lang)
    expect(page.get_by_test_id("tournament")).to_have_attribute("data-status", "running")


SCREENS: dict[str, Callable[[Page, str], None]] = {
    "home": open_home,
    "lobby": open_lobby,
    "turn": open_turn,
    "challenge": open_challenge,
    "colors": open_colors,
    "dark-colors": open_dark_colors,
    "scores": open_scores,
    "tournament": open_tournament_page,
}


def serious_violations(page: Page) -> list[dict[str, Any]]:
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE, [list(key) for key in ALLOWED])


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("size", ["phone", "laptop"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_axe_finds_no_serious_violation(
    make_page: Callable[..., Page], screen: str, size: str, lang: str
) -> None:
    page = make_page(**SIZES[size], locale=LOCALES[lang])
    page.emulate_media(reduced_motion="reduce")
    SCREENS[screen](page, lang)
    found = serious_violations(page)
    assert found == [], json.dumps(found, indent=1, ensure_ascii=False)
    # A heading of level one names each screen in a screen reader's list of headings (axe's
    # page-has-heading-one, moderate: the table had none).
    expect(page.locator("h1")).not_to_have_count(0)
