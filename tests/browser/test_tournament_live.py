"""The tournament page against the real server (PROTOCOL section 6): a host creates a tournament
with the home page form, two players register through the link, the host starts it, and each
player goes to the table with the seat token from /me, where the match begins."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import ConsoleErrors

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)

POLL_MS = 3000  # web/tournament.js POLL_MS


@pytest.fixture
def make_page(
    browser: Browser, console_errors: ConsoleErrors, live_server: str
) -> Iterator[Callable[..., Page]]:
    # A POST with an empty body is refused with 400 by the tournament routes; 404 means they
    # are not there at all.
    probe = httpx.post(f"{live_server}/api/tournaments", json={}, timeout=5)
    if probe.status_code == 404:
        pytest.skip("POST /api/tournaments answers 404: the tournament API is not merged yet")
    contexts: list[Any] = []

    def make(label: str, **options: Any) -> Page:
        options.setdefault("viewport", {"width": 1200, "height": 860})
        options.setdefault("locale", "en-US")
        ctx = browser.new_context(base_url=live_server, **options)
        contexts.append(ctx)
        page = ctx.new_page()
        console_errors.watch(page, label)
        # Timers at real speed that fast_forward() can bring forward (the 3 s polls).
        page.clock.install()
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def poll(page: Page) -> None:
    page.clock.fast_forward(POLL_MS)


def register(page: Page, url: str, name: str) -> None:
    page.goto(url)
    page.get_by_test_id("tour-name").fill(name)
    page.get_by_test_id("tour-enter").click()
    expect(page.get_by_test_id("tour-waiting-start")).to_contain_text(name)


def test_host_registers_starts_and_players_reach_their_table(
    make_page: Callable[..., Page],
    live_server: str,
    artifacts: Path,
    console_errors: ConsoleErrors,
) -> None:
    host = make_page("host")
    host.goto("/")
    host.get_by_test_id("host-tour-open").click()
    host.get_by_test_id("host-tour-name").fill("Live cup")
    host.get_by_test_id("host-tour-host-name").fill("Hana")
    host.get_by_test_id("host-tour-table-size").fill("2")
    host.get_by_test_id("host-tour-match-rounds").check()
    host.get_by_test_id("host-tour-match-n").fill("1")
    host.get_by_test_id("host-tour-btn").click()
    expect(host.get_by_test_id("tour-status")).to_have_text("registering")
    link = host.get_by_test_id("tour-link").input_value()
    code = link.rsplit("/t/", 1)[1]
    assert host.url == f"{live_server}/t/{code}"
    public = httpx.get(f"{live_server}/api/tournaments/{code}", timeout=5).json()
    assert public["name"] == "Live cup" and public["table_size"] == 2
    assert public["match"] == {"rounds": 1}
    # Not enough entrants yet: the host waits.
    expect(host.get_by_test_id("tour-start")).to_be_disabled()

    ayse = make_page("ayse")
    register(ayse, link, "Ayşe")
    mikko = make_page("mikko", viewport={"width": 390, "height": 844}, is_mobile=True)
    register(mikko, link, "Mikko")

    # A visitor who opened the page before the start, registers after: its page hears nothing
    # of the start (no pushed updates: its events stream answers 204, as from a server
    # without them; and its polling held still).
    late = make_page("late")
    late.route("**/api/tournaments/*/events", lambda route: route.fulfill(status=204, body=""))
    late.goto(link)
    late.get_by_test_id("tour-name").fill("Late Lale")
    late.clock.pause_at(late.evaluate("Date.now()") + 100)

    poll(host)
    expect(host.get_by_test_id("tour-entrants").locator(".seat-name")).to_have_text(
        ["Ayşe", "Mikko"]
    )
    host.get_by_test_id("tour-start").click()
    expect(host.get_by_test_id("tour-status")).to_have_text("running")
    table = host.get_by_test_id("tour-table-1-1")
    expect(table.get_by_test_id("table-seats").locator("li")).to_have_count(2)

    console_errors.expect_message("409")
    late.get_by_test_id("tour-enter").click()
    expect(late.get_by_test_id("tour-enter-error")).to_have_text(
        "Too late: the tournament has already started, so registration is closed."
    )
    late.clock.resume()
    poll(late)
    expect(late.get_by_test_id("tour-closed")).to_be_visible()

    for page in (ayse, mikko):
        poll(page)
        expect(page.get_by_test_id("tour-go")).to_be_visible()
    ayse.screenshot(path=str(artifacts / "tournament-live-ayse.png"), full_page=True)
    href = table.get_by_test_id("table-watch").get_attribute("href")
    for page in (ayse, mikko):
        page.get_by_test_id("tour-go").click()
        expect(page).to_have_url(f"{live_server}{href}")

    # Both seats connected with their /me tokens: the server starts the match at once.
    for page, name in ((ayse, "Ayşe"), (mikko, "Mikko")):
        expect(page.get_by_test_id("table")).to_be_visible()
        you = page.evaluate("window.uno.state.you")
        seats = page.evaluate("window.uno.state.view.seats")
        assert seats[you["seat"]]["name"] == name
        room = page.evaluate("window.uno.state.session.room")
        session = json.loads(page.evaluate(f"localStorage.getItem('uno.session.{room}')"))
        assert session["tournament"] == code

    poll(host)
    expect(table.get_by_test_id("table-status")).to_have_text("playing")
