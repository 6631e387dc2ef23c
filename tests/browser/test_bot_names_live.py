"""A bot's name in the page's language with the real server: a Finnish or Persian page adds a
bot, plays a round against it, and finds "Botti 1" / "ربات ۱" (never the server's "Bot 1") in
the log line of its join and of its plays, on the label under the discard pile, and on the
match page (rounds table, chart legend) read from the recorder's own record."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import ConsoleErrors
from tests.browser.scenario import against_a_bot_on_a_fixed_deal, draw_pass_round_deck
from tests.browser.test_variants import take_a_move, visible

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)

LATIN_BOT = re.compile(r"\bBot [0-9]")


RECORD_LABELS = """() => {
  window.__labels = new Set();
  const note = () => {
    const label = document.querySelector('[data-testid=last-play]')?.textContent;
    if (label) window.__labels.add(label);
  };
  note();
  new MutationObserver(note).observe(document.body, {
    childList: true, subtree: true, characterData: true,
  });
}"""


def bare(text: str) -> str:
    return text.replace("\u2068", "").replace("\u2069", "")


@pytest.mark.parametrize(
    ("locale", "bot", "joined", "played"),
    [
        ("fi-FI", "Botti 1", "liittyi", "pelasi"),
        ("fa-IR", "ربات ۱", "پیوست", "بازی کرد"),
    ],
    ids=["fi", "fa"],
)
def test_a_bot_is_named_in_the_pages_language_from_join_to_match_page(
    browser: Browser,
    live_server: str,
    console_errors: ConsoleErrors,
    locale: str,
    bot: str,
    joined: str,
    played: str,
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
    try:
        page = ctx.new_page()
        console_errors.watch(page, locale)
        page.goto(f"{live_server}/")
        page.get_by_test_id("create-name").fill("Hana")
        page.get_by_test_id("create-btn").click()
        expect(page.get_by_test_id("lobby")).to_be_visible()
        page.get_by_test_id("add-bot").click()
        expect(page.get_by_test_id("lobby-seat-1")).to_have_attribute("data-bot", "true")
        expect(page.get_by_test_id("lobby-seat-1").locator(".seat-name")).to_have_text(bot)
        # A fixed deal in which the bot plays once, near the end (a random one took up to 25 s).
        against_a_bot_on_a_fixed_deal(page, live_server, draw_pass_round_deck)
        page.get_by_test_id("start-btn").click()
        expect(page.get_by_test_id("table")).to_be_visible()
        log = page.get_by_test_id("event-log")
        # "Botti 1 liittyi" (in Persian the name is isolated: "\u2068ربات ۱\u2069 پیوست").
        expect(log).to_contain_text(re.compile(f"\u2068?{bot}\u2069? {joined}"))

        # Play the round out; the page itself notes every label the pile shows, since the
        # person's answer can replace the bot's label before a poll from here would see it.
        page.evaluate(RECORD_LABELS)
        deadline = time.monotonic() + 80
        while not visible(page, "round-summary"):
            assert time.monotonic() < deadline, "the round did not end"
            if not take_a_move(page):
                page.wait_for_timeout(30)
        labels = set(page.evaluate("() => [...window.__labels]"))
        bot_plays = [x for x in labels if bot in bare(x)]
        assert bot_plays, labels
        assert all(played in x for x in bot_plays), bot_plays
        assert not any(LATIN_BOT.search(bare(x)) for x in labels), labels
        text = bare(log.inner_text())
        assert f"{bot} {played}" in text, text
        assert not LATIN_BOT.search(text), text

        # The match page, from GET /api/matches/{id} (the in-memory recorder's record).
        match_id = page.evaluate("() => window.uno.state.view.match_id")
        page.goto(f"{live_server}/m/{match_id}")
        expect(page.get_by_test_id("rounds-table")).to_be_visible()
        head = page.get_by_test_id("rounds-table").locator("thead th")
        expect(head).to_have_text([re.compile(".+"), "Hana", bot])
        legend = page.get_by_test_id("score-chart").locator(".legend .key")
        expect(legend).to_have_text(["Hana", bot])
    finally:
        ctx.close()
