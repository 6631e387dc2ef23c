"""What a newcomer tripped on with the real server: a dead link to a room, a tournament or a
match showed a form with nothing to do (or only the message) and no way on."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ConsoleErrors
from tests.browser.scenario import a_tournament_link

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


def test_a_spectator_can_stop_watching(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    host = pages("host")
    host.goto(f"{live_server}/")
    host.get_by_test_id("create-name").fill("Hana")
    host.get_by_test_id("create-btn").click()
    expect(host.get_by_test_id("lobby")).to_be_visible()
    invite = host.get_by_test_id("invite-url").input_value()
    host.get_by_test_id("add-bot").click()
    expect(host.get_by_test_id("lobby-seat-1")).to_be_visible()

    fan = pages("fan", locale="tr-TR", **PHONE)
    fan.goto(invite)
    fan.get_by_test_id("watch-btn").click()
    expect(fan.get_by_test_id("lobby")).to_be_visible()
    # The lobby and the table both offer a way out; the Leave button (a seat's) is not there.
    expect(fan.get_by_test_id("stop-watching")).to_have_text("İzlemeyi bırak")
    expect(fan.get_by_test_id("leave-btn")).to_have_count(0)
    expect(host.get_by_test_id("spectator-count")).to_be_visible()
    host.get_by_test_id("start-btn").click()
    expect(fan.get_by_test_id("table")).to_be_visible()
    fan.get_by_test_id("stop-watching").click()
    expect(fan.get_by_test_id("create-name")).to_be_visible()
    expect(host.get_by_test_id("spectator-count")).to_have_count(0)
    # Opening the link again asks again: the spectator's token was forgotten.
    fan.goto(invite)
    expect(fan.get_by_test_id("join-form")).to_be_visible()


def test_settings_out_of_range_are_brought_into_it(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    # A 3 s turn was taken by the form and refused by the server as a whole ("these settings
    # are not allowed"), with no word of which one.
    page = pages("host", locale="fi-FI", **PHONE)
    page.goto(f"{live_server}/")
    page.get_by_test_id("create-name").fill("Hana")
    page.get_by_test_id("create-settings").locator("summary").click()
    for key, typed, kept in (("turn_seconds", "3", "5"), ("max_players", "20", "10")):
        field = page.get_by_test_id(f"create-{key}")
        field.fill(typed)
        field.press("Tab")
        expect(field).to_have_value(kept)
    page.get_by_test_id("create-btn").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("lobby-turn_seconds")).to_have_value("5")
    field = page.get_by_test_id("lobby-uno_window_ms")
    field.fill("90000")
    field.press("Tab")
    expect(field).to_have_value("30000")
    # Fewer places than players seated: at least the seats taken.
    page.get_by_test_id("add-bot").click()
    page.get_by_test_id("add-bot").click()
    expect(page.get_by_test_id("lobby-seat-2")).to_be_visible()
    field = page.get_by_test_id("lobby-max_players")
    field.fill("2")
    field.press("Tab")
    expect(field).to_have_value("3")
    page.wait_for_timeout(300)
    expect(page.get_by_test_id("toast")).to_have_count(0)


def test_a_tournament_link_pasted_into_the_join_box_opens_the_tournament(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    link = a_tournament_link(live_server)
    page = pages("newcomer", locale="tr-TR", **PHONE)
    page.goto(f"{live_server}/")
    # "That is not a room link": the link a friend sent was refused by the only box for links.
    page.get_by_test_id("open-link").fill(link)
    page.get_by_test_id("open-link-btn").click()
    expect(page.get_by_test_id("tour-name")).to_be_visible()
    assert page.url == link
    # The name box keeps the player-name rule (32 characters as a reader counts them), as the
    # home page does: it used to take 40 and leave the server to refuse the entry.
    page.get_by_test_id("tour-name").fill("")
    page.get_by_test_id("tour-name").press_sequentially("Ğ" * 40)
    expect(page.get_by_test_id("tour-name")).to_have_value("Ğ" * 32)


def test_a_seat_opened_in_another_tab_offers_one_way_back(
    browser: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    ctx = browser.new_context(locale="fa-IR", **PHONE)
    try:
        first = ctx.new_page()
        console_errors.watch(first, "first")
        first.goto(f"{live_server}/")
        first.get_by_test_id("create-name").fill("Hana")
        first.get_by_test_id("create-btn").click()
        expect(first.get_by_test_id("lobby")).to_be_visible()
        second = ctx.new_page()
        console_errors.watch(second, "second")
        second.goto(first.url)
        expect(second.get_by_test_id("lobby")).to_be_visible()
        expect(first.get_by_test_id("replaced")).to_be_visible()
        expect(first.get_by_test_id("conn")).to_have_attribute("data-state", "replaced")
        # The top bar named a connection problem ("Reconnect") beside the banner's button.
        expect(first.get_by_test_id("reconnect-btn")).to_have_count(0)
        first.get_by_test_id("take-back").click()
        expect(first.get_by_test_id("replaced")).to_have_count(0)
        expect(first.get_by_test_id("conn")).to_have_attribute("data-state", "online")
    finally:
        ctx.close()


def test_a_mistyped_address_shows_the_home_page_saying_so(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    console_errors.expect_message("404")
    page = pages("typo", locale="tr-TR", **PHONE)
    response = page.goto(f"{live_server}/rooms/ABC")
    assert response is not None and response.status == 404  # still a 404, not a raw JSON body
    expect(page.get_by_test_id("no-such-page")).to_have_text(
        "Böyle bir sayfa yok. Aşağıdan bir oda kur ya da bir odaya katıl."
    )
    expect(page.get_by_test_id("create-name")).to_be_visible()
    page.goto(f"{live_server}/")
    expect(page.get_by_test_id("create-name")).to_be_visible()
    expect(page.get_by_test_id("no-such-page")).to_have_count(0)
