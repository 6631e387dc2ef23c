"""What a newcomer saw and found wrong, on hand-made views without the server: a "Light side"
badge in classic games, Latin commas in Persian lists, a disabled Start with no reason, who
played covering the discard count, names out of line in the score tables, a dead /t/ link
asked about for ever."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import ConsoleErrors, now_ms
from tests.browser.fake_site import ORIGIN, FakeSite

pytestmark = pytest.mark.browser


def test_the_side_badge_is_shown_only_in_flip(make_page: Callable[..., Page]) -> None:
    # The server sends `state.side` ("light") in every variant; only UNO Flip has sides.
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("current-color")).to_be_visible()
    expect(page.get_by_test_id("side")).to_have_count(0)
    site.push_event({"kind": "side_flipped", "side": "dark"}, fv.flip_view(now_ms()))
    expect(page.get_by_test_id("side")).to_have_text("Dark side")


def test_persian_lists_are_separated_by_the_persian_comma(make_page: Callable[..., Page]) -> None:
    page = make_page(locale="fa-IR")
    site = FakeSite(page, fv.lobby_view(now_ms()))
    # The join page names the players seated.
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    expect(page.get_by_test_id("join-info")).to_contain_text("Mikko")
    players = page.get_by_test_id("join-info").inner_text()
    assert "\u060c" in players and ", " not in players, players
    # The cards you drew, in the event log.
    site.open_room()
    drawn = fv.classic_view(now_ms())
    cards = [fv.card(150, "blue", "number", 2), fv.card(151, "green", "skip")]
    drawn["you"]["hand"].extend(cards)
    site.push_event({"kind": "card_drawn", "seat": 0, "count": 2, "cards": cards}, drawn)
    line = page.get_by_test_id("event-log").locator("li").last
    expect(line).to_contain_text("\u060c")
    assert ", " not in line.inner_text()


def test_a_host_alone_is_told_why_start_is_off(make_page: Callable[..., Page]) -> None:
    alone = fv.lobby_view(now_ms())
    alone["seats"] = alone["seats"][:1]
    alone["you"]["moves"] = {"play": [], "start": False}
    page = make_page(locale="fi-FI")
    site = FakeSite(page, alone)
    site.open_room()
    expect(page.get_by_test_id("start-btn")).to_be_disabled()
    expect(page.get_by_test_id("start-hint")).to_contain_text("kaksi pelaajaa")
    expect(page.get_by_test_id("start-btn")).to_have_attribute("aria-describedby", "start-hint")
    site.push_event({"kind": "bot_added", "seat": 1}, fv.lobby_view(now_ms()))
    expect(page.get_by_test_id("start-btn")).to_be_enabled()
    expect(page.get_by_test_id("start-hint")).to_have_count(0)


@pytest.mark.parametrize(
    "options",
    [
        {"locale": "en-US"},
        {
            "locale": "fa-IR",
            "viewport": {"width": 390, "height": 844},
            "is_mobile": True,
            "has_touch": True,
        },
    ],
    ids=["desktop-en", "phone-fa"],
)
def test_who_played_does_not_cover_the_discard_count(
    make_page: Callable[..., Page], options: dict[str, object], artifacts: Path
) -> None:
    page = make_page(**options)
    view = fv.classic_view(now_ms())
    view["state"]["turn"] = 3
    site = FakeSite(page, view)
    site.open_room()
    played = fv.classic_view(now_ms())
    played["state"]["top"] = fv.card(70, "red", "number", 8)
    played["state"]["discard_count"] = 37
    card = fv.card(70, "red", "number", 8)
    site.push_event({"kind": "card_played", "seat": 3, "card": card}, played)
    label = page.get_by_test_id("last-play")
    expect(label).to_be_visible()
    page.wait_for_timeout(400)  # the card's landing animation
    count = page.get_by_test_id("discard").locator(".pile-count")
    a, b = label.bounding_box(), count.bounding_box()
    assert a and b
    apart = (
        a["y"] >= b["y"] + b["height"]
        or b["y"] >= a["y"] + a["height"]
        or a["x"] >= b["x"] + b["width"]
        or b["x"] >= a["x"] + a["width"]
    )
    page.screenshot(path=str(artifacts / f"last-play-{options['locale']}.png"))
    assert apart, (a, b)
    # Both stay inside the felt.
    felt = page.locator(".felt").bounding_box()
    assert felt and a["y"] + a["height"] <= felt["y"] + felt["height"]


NAME_EDGES = """(ids) => ids.map((id) => {
    const cell = document.querySelector(`[data-testid="${id}"] td`);
    const range = document.createRange();
    range.selectNodeContents(cell);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
    const lines = new Set(rects.map((r) => Math.round(r.top))).size;
    return { left: Math.min(...rects.map((r) => r.left)), lines };
})"""


def test_names_line_up_in_the_score_tables_and_do_not_break(
    make_page: Callable[..., Page],
) -> None:
    # A Persian name in an English table started at the far edge of its cell (the cell took
    # the name's direction); on the phone the summary broke "Mehmet" into "Mehm" / "et".
    def named(view: dict[str, Any]) -> dict[str, Any]:
        view["seats"][1]["name"] = "سارا"
        view["seats"][2]["name"] = "Mehmet"
        return view

    page = make_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    site = FakeSite(page, named(fv.classic_view(now_ms())))
    site.open_room()
    ids = [f"score-{n}" for n in range(4)]
    expect(page.get_by_test_id("score-1")).to_contain_text("سارا")
    edges = page.evaluate(NAME_EDGES, ids)
    assert max(e["left"] for e in edges) - min(e["left"] for e in edges) < 2, edges

    over = named(fv.classic_view(now_ms()))
    over["status"] = "round_over"
    over["you"]["moves"] = {"play": [], "start": True}
    event = fv.round_ended_event()
    event["hands"][2] = [fv.card(20 + i, "blue", "number", i) for i in range(9)]
    site.push_event(event, over)
    expect(page.get_by_test_id("round-summary")).to_be_visible()
    edges = page.evaluate(NAME_EDGES, [f"summary-seat-{n}" for n in range(4)])
    assert max(e["left"] for e in edges) - min(e["left"] for e in edges) < 2, edges
    assert all(e["lines"] == 1 for e in edges), edges


def test_an_unknown_tournament_link_stops_asking(
    make_page: Callable[..., Page], console_errors: ConsoleErrors
) -> None:
    # A mistyped /t/ link said "no such tournament" and then asked the server again every few
    # seconds, for ever (the poll and the event stream, each a 404 in the console).
    console_errors.expect_message("404")
    page = make_page()
    FakeSite(page, fv.lobby_view(now_ms()))
    asked: list[str] = []

    def gone(route: Any) -> None:
        asked.append(route.request.url)
        route.fulfill(status=404, json={"error": {"code": "not_found", "message": "no"}})

    page.route(f"{ORIGIN}/api/tournaments/**", gone)
    page.clock.install()
    page.goto(f"{ORIGIN}/t/NOSUCHCUP")
    expect(page.get_by_test_id("tournament-info")).to_have_text("There is no such tournament.")
    first = len(asked)
    page.clock.run_for(30_000)
    page.wait_for_timeout(200)
    assert len(asked) == first, asked


def test_a_persian_name_in_a_turkish_sentence_keeps_its_number_after_it(
    make_page: Callable[..., Page],
) -> None:
    # "{name} {count} kart çekti" with سارا showed as "1 سارا kart çekti": the digit joined the
    # name's right-to-left run. The name is isolated now (as every name is in Persian).
    view = fv.classic_view(now_ms())
    view["seats"][1]["name"] = "سارا"
    page = make_page(locale="tr-TR")
    site = FakeSite(page, view)
    site.open_room()
    site.push_event({"kind": "card_drawn", "seat": 1, "count": 1}, view)
    line = page.get_by_test_id("event-log").locator("li").last
    expect(line).to_have_text("\u2068سارا\u2069 1 kart çekti")
    # A Latin name needs no isolation; its text stays as it was.
    site.push_event({"kind": "card_drawn", "seat": 0, "count": 2}, view)
    expect(page.get_by_test_id("event-log").locator("li").last).to_have_text("Ayşe 2 kart çekti")
