"""The second QA pass against the real server: a settings change says what changed on another
player's screen (the server's whole settings object), and a round under `scoring: none` shows
each hand's points in the summary, the room's rules at the table and a match page without
"null"."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ConsoleErrors
from tests.browser.scenario import (
    against_a_bot_on_a_fixed_deal,
    host_opens_a_room,
    short_round_deck,
)

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_a_settings_change_tells_the_other_players_what_changed(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Ayşe")
    bob = pages("bob", locale="fi-FI", **PHONE)
    bob.goto(invite)
    bob.get_by_test_id("join-name").fill("Bob")
    bob.get_by_test_id("join-btn").click()
    expect(bob.get_by_test_id("lobby")).to_be_visible()
    field = host.get_by_test_id("lobby-uno_penalty")
    field.fill("4")
    field.dispatch_event("change")
    # Bob read "Asetukset muuttuivat" (settings changed), not which.
    expect(bob.get_by_test_id("toast")).to_have_text(
        "Asetukset muuttuivat — Kortteja unohtuneesta UNOsta: 2 → 4"
    )
    expect(bob.get_by_test_id("lobby-uno_penalty")).to_have_value("4")
    expect(host.get_by_test_id("toast")).to_have_count(0)


def test_a_round_without_points_shows_hands_rules_and_a_match_page_without_null(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    page = pages("host", **PHONE)
    host_opens_a_room(page, live_server, "Ayşe")
    page.get_by_test_id("add-bot").click()
    expect(page.get_by_test_id("lobby-seat-1")).to_have_attribute("data-bot", "true")
    against_a_bot_on_a_fixed_deal(
        page, live_server, short_round_deck, scoring="none", uno_penalty=0
    )
    page.get_by_test_id("start-btn").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    # The room's rules from the table, as the server sent them.
    page.get_by_test_id("rules-btn").click()
    expect(page.get_by_test_id("rule-scoring")).to_contain_text("No points (each round is a match)")
    expect(page.get_by_test_id("rule-uno_penalty")).to_contain_text("0 (not standard)")
    expect(page.get_by_test_id("rule-target_score")).to_have_count(0)  # no target without points
    hand = page.get_by_test_id("hand").locator(".card")
    for left in range(7, 0, -1):  # red 1..7; the bot draws and passes in between
        expect(page.get_by_test_id("turn-status")).to_have_attribute(
            "data-mine", "true", timeout=15000
        )
        expect(hand).to_have_count(left)
        page.locator("[data-testid=hand] .card.legal").first.click()
    expect(page.get_by_test_id("round-summary")).to_be_visible()
    expect(page.get_by_test_id("summary-how")).to_have_text(
        "No points are kept: the round's winner wins the match."
    )
    # The bot's hand of 8s and 9s: what it is worth, from the server's revealed hand.
    bot_hand = page.evaluate("window.uno.state.summary.hands[1]")
    worth = sum(c["value"] for c in bot_hand)
    assert worth > 0
    expect(page.get_by_test_id("summary-hand-points-1")).to_have_text(f"{worth} pts left")
    expect(page.get_by_test_id("summary-points-1")).to_have_text("0")
    href = page.get_by_test_id("match-link").get_attribute("href") or ""
    assert re.fullmatch(r"/m/\w+", href), href
    page.goto(f"{live_server}{href}")
    record = page.get_by_test_id("match-page")
    expect(page.get_by_test_id("match-status")).to_have_text("Finished after 1 round.")
    expect(page.get_by_test_id("match-page-winner")).to_contain_text("Ayşe wins the match!")
    expect(page.get_by_test_id("total-0")).to_have_text("1")  # rounds won
    expect(page.get_by_test_id("score-chart")).to_have_count(0)
    assert "null" not in record.evaluate("el => el.outerHTML")
