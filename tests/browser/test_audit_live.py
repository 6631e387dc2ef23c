"""What a newcomer ran into with the real server in the web audit of December 2026."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ConsoleErrors
from tests.browser.scenario import a_tournament_link, host_opens_a_room

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_a_tournament_name_already_entered_is_registered_as_a_free_variant(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    # Two entrants called "Ali" were both taken as "Ali": the standings listed "Ali" twice,
    # and their table seated the first one as "Ali 2". The second is registered as "ali 2"
    # (PROTOCOL 6: a registration before the start is a 201) and told so.
    link = a_tournament_link(live_server)
    first = pages("first", locale="tr-TR", **PHONE)
    first.goto(link)
    first.get_by_test_id("tour-name").fill("Ali")
    first.get_by_test_id("tour-enter").click()
    expect(first.get_by_test_id("tour-waiting-start")).to_contain_text("Ali")

    second = pages("second", locale="tr-TR", **PHONE)
    second.goto(link)
    second.get_by_test_id("tour-name").fill("ali")
    second.get_by_test_id("tour-enter").click()
    expect(second.get_by_test_id("tour-waiting-start")).to_contain_text("ali 2")
    expect(second.locator("body")).to_contain_text("Bu ad zaten alınmıştı")
    code = link.rsplit("/", 1)[1]
    entrants = httpx.get(f"{live_server}/api/tournaments/{code}", timeout=5).json()["entrants"]
    assert [e["name"] for e in entrants] == ["Ali", "ali 2"]


def test_a_player_the_host_removes_is_told_and_can_join_again(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    # The removed player's page went on as a spectator's ("You are watching"), saying nothing.
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Hana")
    guest = pages("guest", locale="fi-FI", **PHONE)
    guest.goto(invite)
    guest.get_by_test_id("join-name").fill("Gül")
    guest.get_by_test_id("join-btn").click()
    expect(guest.get_by_test_id("lobby")).to_be_visible()
    host.get_by_test_id("remove-seat-1").click()
    expect(guest.get_by_test_id("toast")).to_have_text(
        "Isäntä poisti sinut huoneesta. Voit liittyä uudelleen."
    )
    expect(guest.get_by_test_id("join-form")).to_be_visible()
    expect(guest.get_by_test_id("spectator-badge")).to_have_count(0)
    guest.get_by_test_id("join-name").fill("Gül")
    guest.get_by_test_id("join-btn").click()
    expect(guest.get_by_test_id("lobby")).to_be_visible()
    expect(host.get_by_test_id("lobby-seat-1")).to_contain_text("Gül")
