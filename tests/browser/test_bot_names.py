"""A bot's name in the page's language wherever a name is shown, on hand-made views (no server):
the server names bots "Bot 3"; a Finnish page says "Botti 3", a Persian one "ربات ۳" (Persian
digits). The event log and the live region, the label under the discard pile, the recent plays,
the match page (rounds table, chart legend and its text). A bot is told by its player id
("bot-…"; without one, the `bot` flag): a human called "Bot 5" keeps the name, also once the
seat is bot-played after the human left (`"bot": true`). The same with the real server:
test_bot_names_live.py."""

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

# (language, locale, the bot "Bot 3" as shown, "Bot 4" as shown, "... played" on the pile)
LANGS = [
    ("fi", "fi-FI", "Botti 3", "Botti 4", "pelasi"),
    ("fa", "fa-IR", "ربات ۳", "ربات ۴", "بازی کرد"),
]
BOT_ID = "bot-73148152680a1839"  # fake_views' "Bot 3"
LATIN_BOT = re.compile(r"\bBot [0-9]")


def bare(text: str) -> str:
    """Without the bidi isolates a Persian sentence puts around each name."""
    return text.replace("\u2068", "").replace("\u2069", "")


@pytest.mark.parametrize(("lang", "locale", "bot3", "bot4", "played"), LANGS, ids=["fi", "fa"])
def test_a_bots_play_and_join_are_logged_with_its_localized_name(
    make_page: Callable[..., Page],
    lang: str,
    locale: str,
    bot3: str,
    bot4: str,
    played: str,
) -> None:
    page = make_page(locale=locale)
    view = fv.classic_view(now_ms())
    site = FakeSite(page, view)
    site.open_room(lang=lang)
    expect(page.get_by_test_id("table")).to_be_visible()

    # "Bot 3" plays: the log, the live region, the pile's label and the recent plays.
    top = fv.card(41, "red", "number", 8)
    after = fv.classic_view(now_ms())
    after["state"]["top"] = top
    after["seats"][2]["hand_count"] = 3
    site.push_event({"kind": "card_played", "seat": 2, "card": top}, after)
    log = page.get_by_test_id("event-log")
    expect(log.locator("li").last).to_contain_text(bot3)
    expect(page.get_by_test_id("live")).to_contain_text(bot3)
    expect(page.get_by_test_id("last-play")).to_contain_text(bot3)
    expect(page.get_by_test_id("last-play")).to_contain_text(played)
    expect(page.get_by_test_id("recent-plays").locator(".recent-name").last).to_have_text(bot3)

    # A bot joins (its event names it; the seat list before the commit does not have it yet).
    joined = fv.classic_view(now_ms())
    joined["seats"].append(fv.seat(4, "Bot 4", 0, bot=True, player_id="bot-0a1b2c3d4e5f6071"))
    joined["state"]["top"] = top
    site.push_event(
        {
            "kind": "player_joined",
            "seat": 4,
            "name": "Bot 4",
            "player_id": "bot-0a1b2c3d4e5f6071",
            "bot": True,
        },
        joined,
    )
    expect(log.locator("li").last).to_contain_text(bot4)
    expect(page.get_by_test_id("live")).to_contain_text(bot4)
    for text in (log.inner_text(), page.get_by_test_id("live").inner_text()):
        assert not LATIN_BOT.search(bare(text)), text
    if lang == "fa":
        assert not re.search(r"[0-9]", bare(page.get_by_test_id("last-play").inner_text()))


def test_a_human_called_bot_keeps_the_name(make_page: Callable[..., Page]) -> None:
    page = make_page(locale="fi-FI")
    view = fv.classic_view(now_ms())
    # A human who chose the name "Bot 5" (names are the player's own; the server numbers its
    # bots around the names taken).
    view["seats"][3].update(name="Bot 5", player_id="p_Hq2vK8sLm0xZ")
    site = FakeSite(page, view)
    site.open_room(lang="fi")
    expect(page.get_by_test_id("seat-3").locator(".seat-name")).to_have_text("Bot 5")
    top = fv.card(42, "blue", "number", 3)
    after = fv.classic_view(now_ms())
    after["seats"][3].update(name="Bot 5", player_id="p_Hq2vK8sLm0xZ")
    after["state"]["top"] = top
    site.push_event({"kind": "card_played", "seat": 3, "card": top}, after)
    expect(page.get_by_test_id("last-play")).to_have_text("Bot 5 pelasi")
    # The human leaves the game: the seat is bot-played from now on ("bot": true), and its
    # name is still the human's.
    left = fv.classic_view(now_ms())
    left["seats"][3].update(name="Bot 5", player_id="p_Hq2vK8sLm0xZ", bot=True)
    left["state"]["top"] = top
    site.push_event(
        {
            "kind": "player_left",
            "seat": 3,
            "name": "Bot 5",
            "player_id": "p_Hq2vK8sLm0xZ",
            "bot": True,
        },
        left,
    )
    log = page.get_by_test_id("event-log")
    expect(log.locator("li").last).to_have_text(re.compile(r"Bot 5 lähti"))
    expect(page.get_by_test_id("seat-3").locator(".seat-name")).to_have_text("Bot 5")
    expect(page.get_by_test_id("last-play")).to_have_text("Bot 5 pelasi")
    expect(log).not_to_contain_text("Botti 5")


def match_record() -> dict[str, Any]:
    """As GET /api/matches/{id} answers from the in-memory recorder: players without `bot`,
    a bot told by its player id. Seat 2 is a human who chose the name "Bot 7"."""
    return fv.match_record(
        [
            {"seat": 0, "player_id": "p_X4oHrZpyT9sM", "name": "Ayşe"},
            {"seat": 1, "player_id": BOT_ID, "name": "Bot 3"},
            {"seat": 2, "player_id": "p_Ecc7QsdnzFBA", "name": "Bot 7"},
        ],
        [(1, [0, 60, 0]), (1, [0, 50, 0])],
        winner=1,
    )


@pytest.mark.parametrize(("lang", "locale", "bot3", "bot4", "played"), LANGS, ids=["fi", "fa"])
def test_the_match_page_names_a_bot_in_the_pages_language(
    make_page: Callable[..., Page],
    lang: str,
    locale: str,
    bot3: str,
    bot4: str,
    played: str,
) -> None:
    page = make_page(locale=locale)
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {"/api/matches/m1": (200, match_record())}
    page.goto(f"{ORIGIN}/")
    page.evaluate(f"localStorage.setItem('uno.lang', '{lang}')")
    page.goto(f"{ORIGIN}/m/m1")
    expect(page.get_by_test_id("rounds-table")).to_be_visible()
    head = page.get_by_test_id("rounds-table").locator("thead th")
    expect(head).to_have_text([re.compile(".+"), "Ayşe", bot3, "Bot 7"])
    legend = page.get_by_test_id("score-chart").locator(".legend .key")
    expect(legend).to_have_text(["Ayşe", bot3, "Bot 7"])
    label = page.get_by_test_id("score-chart").locator("svg").get_attribute("aria-label") or ""
    assert bot3 in bare(label) and "Bot 3" not in label, label
    expect(page.get_by_test_id("match-page-winner")).to_contain_text(bot3)


def test_a_match_record_with_the_bot_flag_and_no_player_id(
    make_page: Callable[..., Page],
) -> None:
    # The SQL recorder keeps `bot` too; a record with the flag alone is read by the flag.
    record = match_record()
    record["players"] = [
        {"seat": 0, "name": "Ayşe", "bot": False},
        {"seat": 1, "name": "Bot 3", "bot": True},
        {"seat": 2, "name": "Bot 7", "bot": False},
    ]
    page = make_page(locale="fi-FI")
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {"/api/matches/m1": (200, record)}
    page.goto(f"{ORIGIN}/m/m1")
    legend = page.get_by_test_id("score-chart").locator(".legend .key")
    expect(legend).to_have_text(["Ayşe", "Botti 3", "Bot 7"])
