"""Issue 12, the people around a table, on hand-made views (no server): the countdown before the
host role passes, a departed lobby seat shown as left with its own countdown, the spectator
count and a spectator's chat, and a name the server refuses as taken (its suggestion in one
click, the message in the player's language). The same against the server:
test_lobby_people_live.py."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import ConsoleErrors, now_ms
from tests.browser.conftest import wait_sent as sent
from tests.browser.fake_site import ORIGIN, FakeSite

pytestmark = pytest.mark.browser


def seconds_in(page: Page, testid: str) -> int:
    text = page.get_by_test_id(testid).inner_text()
    found = re.search(r"(\d+) s\b", text)
    assert found, text
    return int(found.group(1))


def test_the_lobby_counts_down_before_the_host_role_passes(make_page: Callable[..., Page]) -> None:
    view = fv.lobby_view(now_ms())
    view["host"] = 2  # Mikko hosts and went away; the role passes to us (seat 0)
    view["you"]["moves"] = {"play": [], "start": False}
    view["host_deadline"] = {"seat": 2, "at": now_ms() + 42_000, "to": 0}
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    countdown = page.get_by_test_id("host-countdown")
    expect(countdown).to_have_text(re.compile(r"^Host role passes to Ayşe in (4[12]) s$"))
    first = seconds_in(page, "host-countdown")
    # It counts down by itself (polled: a loaded machine's page ticks late now and then).
    for _ in range(40):
        page.wait_for_timeout(200)
        if seconds_in(page, "host-countdown") <= first - 2:
            break
    assert seconds_in(page, "host-countdown") <= first - 2
    # The host came back: the countdown goes.
    back = fv.lobby_view(now_ms())
    back["host"] = 2
    back["you"]["moves"] = {"play": [], "start": False}
    back["host_deadline"] = None
    site.push_event({"kind": "connected", "seat": 2}, back)
    expect(countdown).to_have_count(0)


def test_nobody_to_take_over_says_the_host_is_away_and_the_table_shows_it_too(
    make_page: Callable[..., Page],
) -> None:
    view = fv.classic_view(now_ms())
    view["host"] = 1
    view["host_deadline"] = {"seat": 1, "at": now_ms() + 30_000, "to": 0}
    page = make_page(locale="fa-IR")
    site = FakeSite(page, view)
    site.open_room(lang="fa")
    expect(page.get_by_test_id("host-countdown")).to_contain_text("میزبانی تا")
    expect(page.get_by_test_id("host-countdown")).to_contain_text("ثانیه")
    alone = fv.classic_view(now_ms())
    alone["host"] = 1
    alone["host_deadline"] = {"seat": 1, "at": now_ms() + 30_000, "to": None}
    site.push_event({"kind": "disconnected", "seat": 2}, alone)
    expect(page.get_by_test_id("host-countdown")).to_have_text(
        "میزبان، \u2068Mikko\u2069، حضور ندارد"
    )


def test_a_departed_seat_shows_as_left_with_its_countdown(make_page: Callable[..., Page]) -> None:
    view = fv.lobby_view(now_ms())
    view["seats"][2]["drop_at"] = now_ms() + 100_500
    for other in view["seats"][:2]:
        other["drop_at"] = None
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    row = page.get_by_test_id("lobby-seat-2")
    expect(row).to_have_attribute("data-departed", "true")
    expect(page.get_by_test_id("seat-left-2")).to_have_text("Left")
    expect(page.get_by_test_id("drop-2")).to_have_text(re.compile(r"^seat freed in 1:(40|41)$"))
    expect(page.get_by_test_id("departed-note")).to_have_text(
        "Away: Mikko. If the game starts they are dealt in,"
        " and a bot plays for them until they are back."
    )
    expect(page.get_by_test_id("lobby-seat-0")).to_have_attribute("data-departed", "false")
    # The timer freed it: the seat is gone and the log says why.
    freed = fv.lobby_view(now_ms())
    freed["seats"] = freed["seats"][:2]
    site.push_events(
        [
            {"kind": "timer_expired", "timer": "lobby_drop", "seat": 2},
            {
                "kind": "player_left",
                "seat": 2,
                "name": "Mikko",
                "player_id": "p2",
                "bot": False,
                "reason": "away",
            },
        ],
        freed,
    )
    expect(page.get_by_test_id("lobby-seats").locator("li")).to_have_count(2)
    expect(page.get_by_test_id("departed-note")).to_have_count(0)
    expect(page.get_by_test_id("live")).to_contain_text("Mikko left; the seat was freed")


def test_spectators_are_counted_and_a_spectator_chats(make_page: Callable[..., Page]) -> None:
    view = fv.lobby_view(now_ms())
    view["you"] = None
    view["spectators"] = 2
    page = make_page()
    site = FakeSite(page, view, role="spectator")
    site.open_room()
    expect(page.get_by_test_id("spectator-count")).to_have_text("👁 2 watching")
    page.get_by_test_id("chat-input").fill("go Ayşe!")
    page.get_by_test_id("chat-send").click()
    assert sent(page, site, "chat")["text"] == "go Ayşe!"
    expect(page.get_by_test_id("chat-input")).to_have_value("")
    after = fv.lobby_view(now_ms())
    after["you"] = None
    after["spectators"] = 3
    site.push_events(
        [
            {"kind": "spectator_joined", "name": "Zed", "count": 3},
            {"kind": "chat", "seat": None, "name": "Eve", "text": "go Ayşe!", "spectator": True},
            {"kind": "chat", "seat": 0, "name": "Ayşe", "text": "thanks"},
        ],
        after,
    )
    lines = page.get_by_test_id("chat-list").locator("li")
    expect(lines).to_have_count(2)
    expect(lines.nth(0)).to_have_text("Eve (spectator): go Ayşe!")
    expect(lines.nth(0)).to_have_attribute("data-spectator", "true")
    expect(lines.nth(1)).to_have_text("Ayşe: thanks")
    expect(page.get_by_test_id("spectator-count")).to_have_text("👁 3 watching")


def test_the_table_shows_the_spectator_count(make_page: Callable[..., Page]) -> None:
    view = fv.classic_view(now_ms())
    view["spectators"] = 1
    page = make_page(locale="tr-TR")
    site = FakeSite(page, view)
    site.open_room(lang="tr")
    expect(page.get_by_test_id("spectator-count")).to_have_text("👁 1 izleyici")
    quiet = fv.classic_view(now_ms())
    quiet["spectators"] = 0
    site.push_event({"kind": "spectator_left", "name": "Eve", "count": 0}, quiet)
    expect(page.get_by_test_id("spectator-count")).to_have_count(0)


@pytest.mark.parametrize(
    ("locale", "message", "button"),
    [
        ("tr-TR", "Bu odada bu ad zaten kullanılıyor.", "“mikko 2” kullan"),
        ("fi-FI", None, None),
        ("fa-IR", None, None),
    ],
)
def test_a_name_seated_already_is_offered_as_a_free_variant_in_one_click(
    make_page: Callable[..., Page],
    console_errors: ConsoleErrors,
    locale: str,
    message: str | None,
    button: str | None,
) -> None:
    page = make_page(locale=locale)
    site = FakeSite(page, fv.lobby_view(now_ms()))  # Ayşe, Bot 2, Mikko
    site.routes = {
        "/api/rooms/FAKEROOM/players": (
            201,
            {"player_id": "p3", "seat": 3, "token": "t3", "name": "mikko 2"},
        ),
    }
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    expect(page.locator("body")).to_contain_text("Mikko")  # the summary is in
    page.get_by_test_id("join-name").fill("mikko")
    page.get_by_test_id("join-btn").click()
    error = page.get_by_test_id("join-error")
    offer = page.get_by_test_id("use-suggested")
    expect(offer).to_be_focused()
    catalog = page.evaluate(
        "async (l) => (await import('/assets/i18n/' + l + '.js')).default", locale[:2]
    )
    expect(error).to_contain_text(message or catalog["err.name_taken"])
    if button:
        expect(offer).to_have_text(button)
    offer.click()
    expect(page.get_by_test_id("join-name")).to_have_value("mikko 2")
    page.get_by_test_id("join-btn").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    # Nothing was sent for the name seen taken; the variant was joined, as the answer says.
    assert [r["name"] for r in site.requests if r and "name" in r] == ["mikko 2"]
    expect(page.get_by_test_id("toast")).to_have_count(0)


def test_a_name_taken_meanwhile_is_seated_as_the_servers_variant_and_said(
    make_page: Callable[..., Page],
) -> None:
    page = make_page(locale="fi-FI")
    site = FakeSite(page, fv.lobby_view(now_ms()))  # Ayşe, Bot 2, Mikko: no "Ali" yet
    site.routes = {
        "/api/rooms/FAKEROOM/players": (
            201,
            {"player_id": "p3", "seat": 3, "token": "t3", "name": "Ali 2"},
        ),
    }
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    page.get_by_test_id("join-name").fill("Ali")
    page.get_by_test_id("join-btn").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("toast")).to_contain_text("pelaat nimellä ”Ali 2”")


def test_a_turkish_page_compares_names_as_the_server_does(
    make_page: Callable[..., Page],
) -> None:
    # The page lower-cased names by the page's language: on a Turkish page "MIKKO" was not
    # "Mikko" (I → ı) and "ALİ" was "Ali", the reverse of the server's rule.
    page = make_page(locale="tr-TR")
    FakeSite(page, fv.lobby_view(now_ms()))  # Ayşe, Bot 2, Mikko
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    expect(page.locator("body")).to_contain_text("Mikko")  # the summary is in
    page.get_by_test_id("join-name").fill("MIKKO")
    page.get_by_test_id("join-btn").click()
    expect(page.get_by_test_id("use-suggested")).to_have_text("“MIKKO 2” kullan")
    same = page.evaluate(
        """async () => {
          const { nameKey } = await import('/assets/names.js');
          return [nameKey('ALİ') === nameKey('Ali'), nameKey('STRASSE') === nameKey('straße')];
        }"""
    )
    assert same == [False, True]
