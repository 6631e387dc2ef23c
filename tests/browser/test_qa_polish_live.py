"""What a QA pass of the web client left open, with the real server: a spectator who gave no
name, and the phone's lobby and table without sideways scrolling in Finnish and Persian."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ConsoleErrors
from tests.browser.scenario import host_opens_a_room

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
FITS = "document.scrollingElement.scrollWidth <= innerWidth"


def test_a_spectator_without_a_name_is_one_spectator_for_everyone(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Hana")

    fan = pages("fan", locale="tr-TR", **PHONE)
    fan.goto(invite)
    fan.get_by_test_id("watch-btn").click()  # no name typed
    expect(fan.get_by_test_id("lobby")).to_be_visible()
    fan.get_by_test_id("chat-input").fill("merhaba")
    fan.get_by_test_id("chat-send").click()
    # The host read "İzleyici (spectator)": the fan's page named them in Turkish, then the
    # host's page tagged the line with the role again.
    expect(host.get_by_test_id("chat-list").locator("li")).to_have_text(["Spectator: merhaba"])
    expect(fan.get_by_test_id("chat-list").locator("li")).to_have_text(["İzleyici: merhaba"])


@pytest.mark.parametrize("locale", ["fi-FI", "fa-IR"])
def test_the_phone_lobby_and_table_do_not_scroll_sideways(
    pages: Any, live_server: str, console_errors: ConsoleErrors, artifacts: Any, locale: str
) -> None:
    page = pages("host", locale=locale, **PHONE)
    page.goto(f"{live_server}/")
    page.get_by_test_id("create-name").fill("Hana")
    page.get_by_test_id("create-btn").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    for seat in (1, 2, 3):
        page.get_by_test_id("add-bot").click()
        expect(page.get_by_test_id(f"lobby-seat-{seat}")).to_be_visible()
    page.get_by_test_id("qr-btn").click()
    expect(page.get_by_test_id("invite-qr")).to_be_visible()
    assert page.evaluate(FITS), page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    page.get_by_test_id("start-btn").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    # The deal is shown (7 cards, or more if a bot's Draw Two came first: the bots play on).
    page.wait_for_function("document.querySelectorAll('[data-testid=hand] .card').length >= 7")
    page.wait_for_timeout(700)  # the deal's card flights end
    assert page.evaluate(FITS), page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    page.screenshot(path=str(artifacts / f"phone-table-{locale}.png"), full_page=True)
