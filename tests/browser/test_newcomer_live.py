"""What a newcomer tripped on with the real server: a dead link to a room, a tournament or a
match showed a form with nothing to do (or only the message) and no way on."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ConsoleErrors

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_a_dead_link_offers_the_way_home(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    console_errors.expect_message("404")
    page = pages("dead", locale="fa-IR", **PHONE)
    page.goto(f"{live_server}/r/NoSuchRoom42")
    expect(page.get_by_test_id("join-gone")).to_be_visible()
    # No name to type and no disabled Join to puzzle over: the one way on is home.
    expect(page.get_by_test_id("join-name")).to_have_count(0)
    expect(page.get_by_test_id("join-btn")).to_have_count(0)
    expect(page.get_by_test_id("go-home")).to_have_text("ساختن اتاق یا پیوستن به اتاق")
    page.get_by_test_id("go-home").click()
    expect(page.get_by_test_id("create-name")).to_be_visible()
    for path in ("/t/NOSUCH", "/m/nosuchmatch"):
        page.goto(f"{live_server}{path}")
        expect(page.get_by_test_id("go-home")).to_be_visible()
