"""Issue 12's defects that need the real server: names with ZWNJ/ZWJ/emoji end to end (3),
a departed player removed by the host and Leave room (7)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ConsoleErrors
from tests.browser.scenario import short_round_deck

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)


def test_d03_the_server_takes_real_names_and_refuses_by_code(live_server: str) -> None:
    for name in ("مریم\u200cخانم", "👨\u200d👩\u200d👧 Bob", "a" * 32):
        r = httpx.post(f"{live_server}/api/rooms", json={"name": name})
        assert r.status_code == 201, (name, r.text)
    for name in ("a" * 33, "Ali\u202e", "\x07"):
        r = httpx.post(f"{live_server}/api/rooms", json={"name": name})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name", (name, r.text)


def test_d07_departed_player_removed_and_leave_room(
    pages: Any, live_server: str, artifacts: Path, console_errors: ConsoleErrors
) -> None:
    a = pages("A", locale="fa-IR")
    a.goto(f"{live_server}/")
    a.get_by_test_id("create-name").fill("مریم\u200cخانم")
    a.get_by_test_id("create-btn").click()
    expect(a.get_by_test_id("lobby")).to_be_visible()
    room = re.search(r"/r/([^/?#]+)$", a.url).group(1)  # type: ignore[union-attr]
    expect(a.get_by_test_id("lobby-seat-0")).to_contain_text("مریم\u200cخانم")

    b = pages("B")
    b.goto(f"{live_server}/r/{room}")
    b.get_by_test_id("join-name").fill("👨\u200d👩\u200d👧 Bob")
    b.get_by_test_id("join-btn").click()
    expect(b.get_by_test_id("lobby")).to_be_visible()

    c = pages("C")
    c.goto(f"{live_server}/r/{room}")
    c.get_by_test_id("join-name").fill("Sara")
    c.get_by_test_id("join-btn").click()
    expect(c.get_by_test_id("lobby")).to_be_visible()
    expect(a.get_by_test_id("lobby-seat-2")).to_have_attribute("data-connected", "true")
    c.close()  # Sara closes the tab and never comes back
    expect(a.get_by_test_id("lobby-seat-2")).to_have_attribute("data-connected", "false")
    a.screenshot(path=str(artifacts / "lobby-departed-fa.png"), full_page=True)

    a.get_by_test_id("remove-seat-2").click()
    expect(a.get_by_test_id("lobby-seats").locator("li")).to_have_count(2)
    expect(b.get_by_test_id("lobby-seats").locator("li")).to_have_count(2)

    b.get_by_test_id("leave-btn").click()
    b.get_by_test_id("leave-confirm").click()
    expect(b.get_by_test_id("home")).to_be_visible()
    expect(a.get_by_test_id("lobby-seats").locator("li")).to_have_count(1)


def _deck_for_a_missed_uno(cards: list[dict[str, Any]]) -> list[int]:
    """Seat 0 (human) holds red 1-7 and starts on a red 0; the bot (seat 1, the dealer) holds
    and draws only 8s and 9s of other colors, so it never plays and the human gets down to
    one card without calling UNO."""
    return short_round_deck(cards)


def test_d15_a_bot_catches_a_missed_uno_only_in_the_later_part_of_the_window(
    pages: Any, live_server: str
) -> None:
    a = pages("A")
    a.goto(f"{live_server}/")
    a.get_by_test_id("create-name").fill("Ayşe")
    a.get_by_test_id("create-btn").click()
    expect(a.get_by_test_id("lobby")).to_be_visible()
    room = re.search(r"/r/([^/?#]+)$", a.url).group(1)  # type: ignore[union-attr]
    a.get_by_test_id("add-bot").click()
    expect(a.get_by_test_id("lobby-seat-1")).to_have_attribute("data-bot", "true")
    deck = httpx.get(f"{live_server}/api/rooms/{room}/deck").json()["cards"]
    a.evaluate(
        "s => window.uno.send({type: 'settings', settings: s})",
        {
            "dealer": 1,
            "deck_order": _deck_for_a_missed_uno(deck),
            "turn_seconds": 0,
            "uno_window_ms": 3000,
            "next_round_seconds": 0,
        },
    )
    expect(a.get_by_test_id("lobby-uno_window_ms")).to_have_value("3000")
    a.get_by_test_id("start-btn").click()
    expect(a.get_by_test_id("table")).to_be_visible()
    hand = a.get_by_test_id("hand").locator(".card")
    for left in range(7, 2, -1):  # play red 1..5 (the bot draws and passes in between)
        expect(a.get_by_test_id("turn-status")).to_have_attribute(
            "data-mine", "true", timeout=15000
        )
        expect(hand).to_have_count(left)
        a.locator("[data-testid=hand] .card.legal").first.click()
        expect(hand).to_have_count(left - 1)
    expect(a.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true", timeout=15000)
    a.locator("[data-testid=hand] .card.legal").first.click()  # 2 -> 1 card, no UNO called
    played = time.monotonic()
    expect(hand).to_have_count(1)
    expect(a.get_by_test_id("event-log")).to_contain_text("caught Ayşe", timeout=6000)
    waited = time.monotonic() - played
    # The window is 3 s; a bot waits for its later part (60-90 %), humans get the first 1.8 s.
    assert 1.7 <= waited <= 3.6, waited
