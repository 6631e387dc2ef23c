"""A real room's invite link on a phone: the whole link can be read, room code and all, in every
language (the field cut it off after the address, and the code at its end is what tells one
room's link from another's); in Persian the link still reads left to right."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ConsoleErrors

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 860}}

# The field's box and what its text needs: nothing of the link left outside the box (sideways
# or below), the box inside the screen, the link laid out left to right.
MEASURE = """(e) => {
  const r = e.getBoundingClientRect();
  return {
    value: e.value,
    scroll: [e.scrollWidth, e.clientWidth, e.scrollHeight, e.clientHeight],
    hidden: e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1,
    onScreen: r.left >= 0 && r.right <= innerWidth,
    direction: getComputedStyle(e).direction,
    height: r.height,
    lineHeight: parseFloat(getComputedStyle(e).lineHeight) || 0,
  };
}"""


@pytest.mark.parametrize("locale", ["en-US", "tr-TR", "fi-FI", "fa-IR"])
def test_a_real_rooms_invite_link_is_readable_whole_on_a_phone(
    pages: Any, live_server: str, console_errors: ConsoleErrors, artifacts: Any, locale: str
) -> None:
    page = pages("host", locale=locale, **PHONE)
    page.goto(f"{live_server}/")
    page.get_by_test_id("create-name").fill("Hana")
    page.get_by_test_id("create-btn").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    field = page.get_by_test_id("invite-url")
    got = field.evaluate(MEASURE)
    code = page.url.rstrip("/").rsplit("/", 1)[-1]
    assert got["value"] == f"{live_server}/r/{code}", got
    assert not got["hidden"], got  # the room code at the end was cut off
    assert got["onScreen"], got
    assert got["direction"] == "ltr", got
    # The Copy button is still there, on the screen.
    button = page.get_by_test_id("copy-invite").bounding_box()
    assert button and button["x"] >= 0 and button["x"] + button["width"] <= 390, button
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    page.screenshot(
        path=str(artifacts / f"invite-phone-{locale}.png"),
        clip={"x": 0, "y": 0, "width": 390, "height": 320},
    )


def test_on_a_desktop_the_invite_link_is_whole_beside_its_button(
    pages: Any, live_server: str, console_errors: ConsoleErrors, artifacts: Any
) -> None:
    page = pages("host", **DESKTOP)
    page.goto(f"{live_server}/")
    page.get_by_test_id("create-name").fill("Hana")
    page.get_by_test_id("create-btn").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    field = page.get_by_test_id("invite-url")
    got = field.evaluate(MEASURE)
    # The lobby's narrow column cut it off on a desktop too.
    assert not got["hidden"], got
    box = field.bounding_box()
    button = page.get_by_test_id("copy-invite").bounding_box()
    assert box and button
    # Side by side, and the field no taller than two lines of the link.
    assert box["x"] + box["width"] <= button["x"], (box, button)
    assert box["y"] < button["y"] + button["height"] and button["y"] < box["y"] + box["height"]
    assert box["height"] <= 2 * got["lineHeight"] + 24, got
    page.screenshot(
        path=str(artifacts / "invite-desktop.png"),
        clip={"x": 0, "y": 0, "width": 1280, "height": 400},
    )
