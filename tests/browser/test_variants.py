"""Flip and All Wild against the real server: a human in Chromium plays a whole round against a
bot, always taking the first move the page offers. Checks what only these variants show (Flip
backs, the draw pile's back face, targeted wilds) and that no move the page offers is refused."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Error, Page, expect

from tests.browser.conftest import ConsoleErrors

pytestmark = pytest.mark.browser

RECORD_TOASTS = """() => {
  window.__toasts = [];
  new MutationObserver((ms) => {
    // A move's news (a swap, a catch) is told in a toast too; a refusal is what counts here.
    for (const m of ms) for (const n of m.addedNodes) {
      if (n.dataset?.kind !== 'event') window.__toasts.push(n.textContent);
    }
  }).observe(document.getElementById('toasts'), { childList: true });
}"""


def visible(page: Page, testid: str) -> bool:
    return page.get_by_test_id(testid).is_visible()


def click(page: Page, selector: str) -> bool:
    """Click if still there; the table may re-render under the pointer, which is no failure."""
    try:
        page.locator(selector).first.click(timeout=1500)
        return True
    except Error:
        return False


def take_a_move(page: Page) -> str | None:
    """Do the first thing the page offers; returns what was done (None: nothing to do)."""
    if visible(page, "picker"):
        return (
            "pick" if click(page, "[data-testid=picker] .colors button, .targets button") else None
        )
    if visible(page, "challenge-dialog"):
        return "accept" if click(page, "[data-testid=accept-btn]") else None
    if visible(page, "choose-dialog"):
        return "choose" if click(page, "[data-testid=choose-dialog] button") else None
    uno = page.get_by_test_id("uno-btn")
    if uno.is_enabled() and uno.get_attribute("data-mode") == "declare":
        return "uno" if click(page, "[data-testid=uno-btn]") else None
    legal = page.locator("[data-testid=hand] .card.legal")
    if legal.count():
        hand = page.locator("[data-testid=hand] .card").count()
        if hand == 2 and uno.is_enabled() and uno.get_attribute("aria-pressed") == "false":
            click(page, "[data-testid=uno-btn]")
        return "play" if click(page, "[data-testid=hand] .card.legal") else None
    if page.get_by_test_id("pass-btn").is_enabled():
        return "pass" if click(page, "[data-testid=pass-btn]") else None
    if page.get_by_test_id("draw-btn").is_enabled():
        return "draw" if click(page, "[data-testid=draw-btn]") else None
    return None


@pytest.mark.parametrize("variant", ["flip", "all_wild"])
def test_a_round_against_a_bot(
    browser: Browser,
    live_server: str,
    artifacts: Path,
    console_errors: ConsoleErrors,
    variant: str,
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    try:
        page = ctx.new_page()
        console_errors.watch(page, variant)
        page.goto(f"{live_server}/")
        page.get_by_test_id("create-name").fill("Ayşe")
        page.get_by_test_id("create-settings").locator("summary").click()
        page.get_by_test_id("create-variant").select_option(variant)
        page.get_by_test_id("create-btn").click()
        expect(page.get_by_test_id("lobby")).to_be_visible()
        page.get_by_test_id("add-bot").click()
        expect(page.get_by_test_id("lobby-seat-1")).to_have_attribute("data-bot", "true")
        page.evaluate(
            "() => window.uno.send({type: 'settings', settings: "
            "{bot_delay_ms: 20, turn_seconds: 0, next_round_seconds: 0, dealer: 1}})"
        )
        expect(page.get_by_test_id("lobby-turn_seconds")).to_have_value("0")
        page.evaluate(RECORD_TOASTS)
        # The bot deals, so the human (left of the dealer) has the first turn and always
        # gets to play before the bot can empty its hand.
        page.get_by_test_id("start-btn").click()
        expect(page.get_by_test_id("table")).to_be_visible()

        if variant == "flip":
            # The bot may act at once, so read the page in one go (a render is synchronous).
            seen = page.evaluate(
                """() => ({
                    count: document.querySelector('[data-testid=seat-1]').dataset.count,
                    backs: document.querySelectorAll('[data-testid=seat-1-backs] .card').length,
                    pileFace: document.querySelectorAll(
                        '[data-testid=draw-pile] .card.back-face').length,
                    side: document.querySelector('[data-testid=side]').textContent,
                    dark: document.body.classList.contains('dark-side'),
                })"""
            )
            assert seen["backs"] == int(seen["count"]) > 0
            assert seen["pileFace"] == 1
            assert seen["side"] == ("Dark side" if seen["dark"] else "Light side")
        page.screenshot(path=str(artifacts / f"variant-{variant}-start.png"))

        done: list[str] = []
        deadline = time.monotonic() + 80  # generous: a Flip round can be long
        while not visible(page, "round-summary"):
            assert time.monotonic() < deadline, f"the round did not end; moves: {done}"
            move = take_a_move(page)
            if move:
                done.append(move)
            else:
                page.wait_for_timeout(40)
        page.screenshot(path=str(artifacts / f"variant-{variant}-summary.png"))
        assert "play" in done
        expect(page.get_by_test_id("round-winner")).to_be_visible()
        assert page.evaluate("window.__toasts") == []
    finally:
        ctx.close()
