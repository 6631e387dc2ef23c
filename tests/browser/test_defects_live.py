"""Issue 12's defects that need the real server: names with ZWNJ/ZWJ/emoji end to end (3),
a departed player removed by the host and Leave room (7)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import ConsoleErrors

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)


@pytest.fixture
def pages(browser: Browser, console_errors: ConsoleErrors) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_page(label: str, **options: Any) -> Page:
        options.setdefault("viewport", {"width": 1280, "height": 860})
        options.setdefault("locale", "en-US")
        ctx = browser.new_context(**options)
        contexts.append(ctx)
        page = ctx.new_page()
        console_errors.watch(page, label)
        return page

    yield open_page
    for ctx in contexts:
        ctx.close()


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
