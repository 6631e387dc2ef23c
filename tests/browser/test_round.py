"""A whole round in real Chromium: three players join through the invite link, a spectator
watches; the round passes through a wild color choice, a Wild Draw Four challenge, a pass
after a draw, a missed UNO and its catch, a reload, an UNO declared with the play, and the
round end with the scoreboard. One player is a Persian phone (390x844, right to left)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import ConsoleErrors
from tests.browser.scenario import build_script

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)


class Shots:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.n = 0

    def __call__(self, name: str, **pages: Page) -> None:
        self.n += 1
        for who, page in pages.items():
            page.screenshot(path=str(self.folder / f"round-{self.n:02d}-{name}-{who}.png"))


def my_turn(page: Page) -> None:
    expect(page.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")


def play(page: Page, card: int) -> None:
    my_turn(page)
    loc = page.get_by_test_id(f"card-{card}")
    expect(loc).to_have_attribute("data-legal", "true")
    loc.click()


def draw(page: Page) -> None:
    my_turn(page)
    button = page.get_by_test_id("draw-btn")
    expect(button).to_be_enabled()
    button.click()


def hand_size(page: Page) -> int:
    return page.get_by_test_id("hand").locator(".card").count()


def seat_count(page: Page, seat: int, n: int) -> None:
    expect(page.get_by_test_id(f"seat-{seat}")).to_have_attribute("data-count", str(n))


def test_full_round(
    browser: Browser, live_server: str, artifacts: Path, console_errors: ConsoleErrors
) -> None:
    started = time.monotonic()
    shots = Shots(artifacts)
    contexts: list[Any] = []

    def open_page(label: str, **options: Any) -> Page:
        ctx = browser.new_context(**options)
        contexts.append(ctx)
        page = ctx.new_page()
        console_errors.watch(page, label)
        return page

    try:
        a = open_page(
            "A",
            viewport={"width": 1280, "height": 860},
            locale="en-US",
            permissions=["clipboard-read", "clipboard-write"],
        )
        b = open_page("B", viewport={"width": 1100, "height": 820}, locale="fi-FI")
        c = open_page(
            "C",
            viewport={"width": 390, "height": 844},
            locale="fa-IR",
            is_mobile=True,
            has_touch=True,
        )

        # --- A creates the room from the home page ---------------------------------------
        a.goto(f"{live_server}/")
        a.get_by_test_id("create-name").fill("Ayşe")
        a.get_by_test_id("create-settings").locator("summary").click()
        a.get_by_test_id("create-target_score").fill("300")
        a.get_by_test_id("create-target_score").press("Tab")
        shots("home", a=a)
        a.get_by_test_id("create-btn").click()
        expect(a.get_by_test_id("lobby")).to_be_visible()
        expect(a.get_by_test_id("conn")).to_have_attribute("data-state", "online")
        expect(a.get_by_test_id("lobby-target_score")).to_have_value("300")
        room = re.search(r"/r/([^/?#]+)$", a.url).group(1)  # type: ignore[union-attr]
        invite = a.get_by_test_id("invite-url").input_value()
        assert invite == f"{live_server}/r/{room}"
        a.get_by_test_id("copy-invite").click()
        assert a.evaluate("navigator.clipboard.readText()") == invite

        # --- B and C join through the invite link ------------------------------------------
        for page, name in ((b, "Mikko"), (c, "Sara")):
            page.goto(invite)
            expect(page.get_by_test_id("join-form")).to_be_visible()
            page.get_by_test_id("join-name").fill(name)
            page.get_by_test_id("join-btn").click()
            expect(page.get_by_test_id("lobby")).to_be_visible()
        expect(a.get_by_test_id("lobby-seat-2")).to_contain_text("Sara")
        expect(c.locator("html")).to_have_attribute("dir", "rtl")
        expect(b.locator("html")).to_have_attribute("lang", "fi")
        shots("lobby", a=a, b=b, c=c)

        # Chat: typed on one page, shown on the others (and kept out of the way of the game).
        b.get_by_test_id("chat-input").fill("Moi kaikki!")
        b.get_by_test_id("chat-input").press("Enter")
        expect(a.get_by_test_id("chat-list")).to_contain_text("Mikko: Moi kaikki!")
        expect(c.get_by_test_id("chat-list")).to_contain_text("Mikko: Moi kaikki!")
        expect(b.get_by_test_id("chat-input")).to_have_value("")

        # The host changes a setting with the form; the others see it (read-only).
        a.get_by_test_id("lobby-uno_window_ms").fill("30000")
        a.get_by_test_id("lobby-uno_window_ms").press("Tab")
        expect(b.get_by_test_id("lobby-uno_window_ms")).to_have_value("30000")
        expect(b.get_by_test_id("lobby-uno_window_ms")).to_be_disabled()

        # Test hooks: the dealer and the whole deck order (PROTOCOL section 5).
        deck = httpx.get(f"{live_server}/api/rooms/{room}/deck").json()
        script = build_script(deck["cards"])
        a.evaluate(
            "s => window.uno.send({type: 'settings', settings: s})",
            {
                "dealer": 2,
                "deck_order": script.deck_order,
                "turn_seconds": 120,
                "challenge_seconds": 120,
                "next_round_seconds": 0,
            },
        )
        expect(b.get_by_test_id("lobby-turn_seconds")).to_have_value("120")
        a.get_by_test_id("start-btn").click()
        for page in (a, b, c):
            expect(page.get_by_test_id("table")).to_be_visible()
        assert sorted(
            int(x)
            for x in a.get_by_test_id("hand")
            .locator(".card")
            .evaluate_all("els => els.map(e => e.dataset.cardId)")
        ) == sorted(script.hands[0])
        expect(a.get_by_test_id("my-timer")).to_be_visible()  # the countdown ring

        # A spectator arrives after the start: the page offers to watch.
        d = open_page("D", viewport={"width": 1024, "height": 768}, locale="tr-TR")
        d.goto(invite)
        expect(d.get_by_test_id("join-error")).not_to_be_empty()
        d.get_by_test_id("join-name").fill("İzleyen")
        d.get_by_test_id("watch-btn").click()
        expect(d.get_by_test_id("table")).to_be_visible()
        expect(d.get_by_test_id("spectator-badge")).to_be_visible()
        expect(d.get_by_test_id("hand")).to_have_count(0)
        shots("start", a=a, b=b, c=c, d=d)

        # 1. A plays the Wild and names blue in the color picker.
        play(a, script.wild)
        expect(a.get_by_test_id("picker")).to_be_visible()
        shots("color-picker", a=a)
        a.get_by_test_id("pick-color-blue").click()
        for page in (a, b, c, d):
            expect(page.get_by_test_id("current-color")).to_have_attribute("data-color", "blue")

        # 2. B draws an unplayable card (the turn ends by itself). 3. C plays on the phone.
        expect(b.get_by_test_id("draw-btn")).to_have_text("Nosta")
        draw(b)
        play(c, script.c_blue)
        seat_count(a, 2, 6)
        shots("phone-played", c=c)

        # 4. A plays the Wild Draw Four (A holds no blue: legal); B challenges and loses.
        play(a, script.wd4)
        a.get_by_test_id("pick-color-red").click()
        expect(b.get_by_test_id("challenge-dialog")).to_be_visible()
        expect(b.get_by_test_id("challenge-timer")).to_be_visible()
        expect(a.get_by_test_id("challenge-dialog")).to_have_count(0)
        shots("challenge", b=b)
        b.get_by_test_id("challenge-btn").click()
        seat_count(a, 1, 7 + 1 + 6)
        expect(b.get_by_test_id("challenge-dialog")).to_have_count(0)

        # 5. C draws a playable red 9 and keeps it: pass after a draw.
        draw(c)
        expect(c.get_by_test_id(f"card-{script.c_keeps}")).to_have_attribute("data-legal", "true")
        expect(c.get_by_test_id("pass-btn")).to_be_enabled()
        shots("after-draw", c=c)
        c.get_by_test_id("pass-btn").click()

        # 6-11. A plays red 1 and red 2; B and C draw. B reloads in the middle.
        play(a, script.a_reds[0])
        draw(b)
        draw(c)
        play(a, script.a_reds[1])
        before = hand_size(b)
        b.reload()
        expect(b.get_by_test_id("table")).to_be_visible()
        expect(b.get_by_test_id("conn")).to_have_attribute("data-state", "online")
        assert hand_size(b) == before
        # The same tab keeps its event log across the reload (and reads it in Finnish).
        expect(b.get_by_test_id("event-log")).to_contain_text("Ayşe pelasi: Punainen 2")
        shots("reloaded", b=b)
        draw(b)
        draw(c)

        # 12-15. A plays down to one card without declaring UNO; B catches. C's socket drops
        # just before A's play: C reconnects by itself and catches up from `since`.
        c.evaluate("() => window.uno.state.socket.ws.close()")
        play(a, script.a_reds[2])
        expect(c.get_by_test_id("conn")).to_have_attribute("data-state", "online")
        seat_count(c, 0, 2)
        # The missed event itself arrived (resumed with `since`), not only the new view.
        # (Persian isolates every inserted name and card: U+2068 ... U+2069, not word characters.)
        expect(c.get_by_test_id("event-log")).to_contain_text(
            re.compile(r"Ayşe\W* بازی کرد: \W*۳\W* \W*قرمز")
        )
        expect(c.get_by_test_id("discard-top")).to_have_attribute(
            "data-card-id", str(script.a_reds[2])
        )
        draw(b)
        draw(c)
        expect(a.get_by_test_id("uno-btn")).to_have_attribute("data-mode", "arm")
        play(a, script.a_reds[3])
        expect(b.get_by_test_id("catch-0")).to_be_visible()
        expect(c.get_by_test_id("catch-0")).to_be_visible()
        expect(a.get_by_test_id("uno-btn")).to_have_attribute("data-mode", "declare")
        shots("catch", a=a, b=b)
        b.get_by_test_id("catch-0").click()
        seat_count(b, 0, 3)
        expect(b.get_by_test_id("catch-0")).to_have_count(0)
        expect(b.get_by_test_id("event-log")).to_contain_text("UNO")

        # 16-20. B and C draw; A plays red 5.
        draw(b)
        draw(c)
        play(a, script.a_reds[4])
        draw(b)
        draw(c)

        # 21. A arms UNO and plays red 6: declared with the play, nobody can catch.
        my_turn(a)
        a.get_by_test_id("uno-btn").click()
        expect(a.get_by_test_id("uno-btn")).to_have_attribute("aria-pressed", "true")
        play(a, script.a_penalty_reds[0])
        expect(b.get_by_test_id("seat-0-uno")).to_be_visible()
        expect(b.get_by_test_id("catch-0")).to_have_count(0)
        shots("uno", a=a, b=b)

        # 22-24. B and C draw; A plays the last card and wins the round.
        draw(b)
        draw(c)
        play(a, script.a_penalty_reds[1])
        for page in (a, b, c, d):
            expect(page.get_by_test_id("round-summary")).to_be_visible()
            expect(page.get_by_test_id("round-winner")).to_contain_text("Ayşe")
        shots("summary", a=a, b=b, c=c, d=d)

        # The summary agrees with the stored match record; the scoreboard shows the total.
        # The link opens the readable page /m/{id}; the JSON stays at /api/matches/{id}.
        match_href = a.get_by_test_id("match-link").get_attribute("href")
        assert match_href and match_href.startswith("/m/")
        record = httpx.get(f"{live_server}/api/matches/{match_href[3:]}").json()
        expect(a.get_by_test_id("rounds-table").locator("tbody tr")).to_have_count(1)
        points = record["rounds"][0]["points"]
        assert points[0] > 0 and points[1] == 0 and points[2] == 0
        expect(a.get_by_test_id("summary-points-0")).to_have_text(str(points[0]))
        expect(a.get_by_test_id("summary-total-0")).to_have_text(str(record["scores"][0]))
        expect(a.get_by_test_id("summary-seat-1").locator(".card")).to_have_count(7 + 1 + 6 + 6)
        # A reload on the finished round shows the same summary again (from the kept events).
        a.reload()
        expect(a.get_by_test_id("summary-points-0")).to_have_text(str(points[0]))
        expect(a.get_by_test_id("summary-seat-2").locator(".card")).not_to_have_count(0)
        a.get_by_test_id("summary-close").click()
        expect(a.get_by_test_id("score-0")).to_contain_text(str(record["scores"][0]))
        expect(a.get_by_test_id("next-round-btn")).to_have_count(0)
        expect(b.get_by_test_id("next-round-btn")).to_have_count(0)
        # Persian page: right to left, the brand at the right edge of the phone screen.
        box = c.get_by_test_id("home-link").bounding_box()
        assert box is not None and box["x"] > 390 / 2
        assert c.get_by_test_id("live").inner_text().strip() != ""
    finally:
        for ctx in contexts:
            ctx.close()
    assert time.monotonic() - started < 110  # the whole browser suite stays near 2 minutes
