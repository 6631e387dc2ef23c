"""What a QA pass of the web client left open, on hand-made views (no server): Persian digits in
card names and counts, the score chart mirrored in Persian, a spectator without a name shown
once as "Spectator", and the offline pill on one line on a phone. The same people with the
real server, and the phone table without sideways scrolling: test_qa_polish_live.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import now_ms
from tests.browser.fake_site import ORIGIN, FakeSite

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LATIN_DIGIT = re.compile(r"[0-9]")


def test_persian_writes_card_numbers_and_seat_numbers_in_persian_digits(
    make_page: Callable[..., Page],
) -> None:
    page = make_page(locale="fa-IR")
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang="fa")
    # "5 قرمز": the card's number was left in Latin digits in its name and on its face.
    label = page.get_by_test_id("card-1").get_attribute("aria-label") or ""
    assert "۵" in label and not LATIN_DIGIT.search(label), label
    assert "۷" in (page.get_by_test_id("card-3").get_attribute("title") or "")
    expect(page.get_by_test_id("card-1").locator(".corner").first).to_have_text("۵")
    log = page.get_by_test_id("event-log").inner_text()
    assert "۳" in log and not LATIN_DIGIT.search(log), log
    expect(page.get_by_test_id("seat-1-count")).to_contain_text("۱")

    # The lobby's seat numbers too; a number in a form field stays in Latin digits.
    lobby = make_page(locale="fa-IR")
    FakeSite(lobby, fv.lobby_view(now_ms())).open_room(lang="fa")
    expect(lobby.get_by_test_id("lobby-seat-0").locator(".seat-no")).to_have_text("۱")
    expect(lobby.get_by_test_id("lobby-seat-2").locator(".seat-no")).to_have_text("۳")
    expect(lobby.get_by_test_id("lobby-turn_seconds")).to_have_value("30")


@pytest.mark.parametrize(("lang", "label"), [("en", "Red 5"), ("fi", "Punainen 5")])
def test_other_languages_keep_latin_digits(
    make_page: Callable[..., Page], lang: str, label: str
) -> None:
    page = make_page()
    FakeSite(page, fv.classic_view(now_ms())).open_room(lang=lang)
    expect(page.get_by_test_id("card-1")).to_have_attribute("aria-label", re.compile(label))
    expect(page.get_by_test_id("card-1").locator(".corner").first).to_have_text("5")


def match_record() -> dict[str, Any]:
    return fv.match_record(
        [
            {"seat": 0, "player_id": "p0", "name": "Ayşe"},
            {"seat": 1, "player_id": "p1", "name": "Mikko"},
        ],
        [(1, [0, 40]), (0, [35, 0]), (0, [70, 0])],
        winner=0,
    )


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_score_chart_reads_in_the_pages_direction(
    make_page: Callable[..., Page], lang: str
) -> None:
    page = make_page(locale="fa-IR" if lang == "fa" else "en-US", **PHONE)
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {"/api/matches/m1": (200, match_record())}
    page.goto(f"{ORIGIN}/m/m1")
    chart = page.get_by_test_id("score-chart")
    expect(chart).to_be_visible()
    rtl = lang == "fa"
    # Rounds progress in reading order: leftward in Persian, from a score axis on the right.
    points = chart.get_by_test_id("chart-seat-0").locator("polyline").get_attribute("points")
    xs = [float(p.split(",")[0]) for p in (points or "").split()]
    assert len(xs) == 4
    assert xs == sorted(xs, reverse=rtl), xs
    rounds = [chart.get_by_test_id(f"chart-round-{i}").bounding_box() for i in (1, 2, 3)]
    lefts = [box["x"] for box in rounds if box]
    assert len(lefts) == 3 and lefts == sorted(lefts, reverse=rtl), lefts
    axis = chart.get_by_test_id("chart-y-axis").bounding_box()
    svg = chart.locator("svg").bounding_box()
    assert axis and svg
    assert (axis["x"] > svg["x"] + svg["width"] / 2) == rtl
    expect(chart.get_by_test_id("chart-round-3")).to_have_text("۳" if rtl else "3")


def test_a_spectator_without_a_name_shows_once_as_spectator(
    make_page: Callable[..., Page],
) -> None:
    page = make_page(locale="fi-FI")
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang="fi")
    lines = [
        {"kind": "chat", "seat": None, "name": "Spectator", "text": "moi", "spectator": True},
        {"kind": "chat", "seat": None, "name": "Spectator 2", "text": "hei", "spectator": True},
        {"kind": "chat", "seat": None, "name": "Eve", "text": "onnea", "spectator": True},
    ]
    site.push_events(lines, fv.classic_view(now_ms()))
    chat = page.get_by_test_id("chat-list").locator("li")
    # It read "Spectator (katsoja)": the server's default name, then the role tag again.
    expect(chat).to_have_text(["Katsoja: moi", "Katsoja 2: hei", "Eve (katsoja): onnea"])
    # The screen reader's line says it once too.
    live = page.get_by_test_id("live")
    expect(live).to_contain_text("Katsoja: moi")
    expect(live).to_contain_text("Eve (katsoja): onnea")
    expect(live).not_to_contain_text("Spectator")
    expect(live).not_to_contain_text("Katsoja (katsoja)")


def test_watching_without_a_name_sends_none(make_page: Callable[..., Page]) -> None:
    page = make_page(locale="tr-TR")
    site = FakeSite(page, fv.classic_view(now_ms()), role="spectator")
    site.routes = {
        "/api/rooms/FAKEROOM/spectators": (201, {"token": "t-s", "spectator_id": "s_1"}),
    }
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    page.get_by_test_id("watch-btn").click()
    expect(page).to_have_url(f"{ORIGIN}/r/FAKEROOM")
    # Not the page's word for it ("İzleyici"), which every other reader saw in Turkish: the
    # server names the spectator and each page says it in its own language.
    for _ in range(50):
        if site.requests:
            break
        page.wait_for_timeout(50)
    assert site.requests == [{}]


def one_line(page: Page) -> bool:
    """Whether the connection pill's words and its button sit side by side on one line."""
    return page.evaluate(
        """() => {
            const el = document.querySelector('[data-testid=conn]');
            const boxes = [];
            const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            while (walk.nextNode()) {
                if (walk.currentNode.parentElement.closest('button')) continue;
                const r = document.createRange();
                r.selectNodeContents(walk.currentNode);
                boxes.push(...[...r.getClientRects()].filter((b) => b.width > 0));
            }
            for (const b of el.querySelectorAll('button')) boxes.push(b.getBoundingClientRect());
            const top = Math.max(...boxes.map((b) => b.top));
            const bottom = Math.min(...boxes.map((b) => b.bottom));
            const box = el.getBoundingClientRect();
            return boxes.length >= 2 && top < bottom && box.left >= 0 && box.right <= innerWidth;
        }"""
    )


@pytest.mark.parametrize("lang", ["en", "tr", "fi", "fa"])
def test_the_offline_pill_stays_on_one_line_on_a_phone(
    make_page: Callable[..., Page], artifacts: Any, lang: str
) -> None:
    page = make_page(**PHONE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    # From now on the server refuses every socket: the page stays offline, retrying.
    page.route_web_socket("ws://uno.test/ws/rooms/*", lambda ws: ws.close(code=1011))
    site.sockets[-1].close(code=1012)
    pill = page.get_by_test_id("conn")
    expect(pill).to_have_attribute("data-state", "offline")
    expect(page.get_by_test_id("reconnect-btn")).to_be_visible()
    assert one_line(page), pill.inner_text()
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    page.screenshot(
        path=str(artifacts / f"offline-pill-{lang}.png"),
        clip={"x": 0, "y": 0, "width": 390, "height": 140},
    )
