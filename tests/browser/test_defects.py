"""Issue 12's numbered defects, one test each (named `test_dNN_...`), on hand-made views
without the server; the ones that need the real server are in test_defects_live.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import ConsoleErrors, now_ms
from tests.browser.conftest import wait_sent as sent
from tests.browser.fake_site import ORIGIN, FakeSite

pytestmark = pytest.mark.browser


def round_over_view(host_deals: bool, you_host: bool) -> dict[str, Any]:
    view = fv.classic_view(now_ms())
    view["status"] = "round_over"
    view["settings"]["next_round_seconds"] = 0 if host_deals else 10
    view["host"] = 0 if you_host else 1
    view["you"]["moves"] = {"play": [], "start": you_host}
    view["state"]["deadlines"] = {
        "turn": None,
        "uno": None,
        "challenge": None,
        "next_round": None if host_deals else {"seat": None, "at": now_ms() + 9000},
    }
    return view


# --- 1 -------------------------------------------------------------------------------------


def test_d01_host_closes_the_summary_and_can_still_deal_and_reopen_it(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    site.push_event(fv.round_ended_event(), round_over_view(host_deals=True, you_host=True))
    expect(page.get_by_test_id("round-summary")).to_be_visible()
    page.get_by_test_id("summary-close").click()
    expect(page.get_by_test_id("round-summary")).to_have_count(0)
    # The table still offers the host's Next round, and the summary comes back on demand.
    page.get_by_test_id("next-round-inline").click()
    assert sent(page, site, "start")["type"] == "start"
    page.get_by_test_id("summary-open").click()
    expect(page.get_by_test_id("round-summary")).to_be_visible()
    expect(page.get_by_test_id("summary-close")).to_be_focused()


# --- 2 -------------------------------------------------------------------------------------


def _colors(page: Page, testid: str) -> dict[str, str]:
    return page.evaluate(
        """(id) => { const s = getComputedStyle(document.querySelector(`[data-testid="${id}"]`));
            return { color: s.color, background: s.backgroundColor }; }""",
        testid,
    )


@pytest.mark.parametrize("status", ["playing", "full"])
def test_d02_a_started_or_full_room_offers_a_readable_watch_button_and_no_join(
    make_page: Callable[..., Page], status: str
) -> None:
    view = fv.classic_view(now_ms()) if status == "playing" else fv.lobby_view(now_ms())
    if status == "full":
        view["settings"]["max_players"] = 3
    page = make_page()
    FakeSite(page, view)
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    expect(page.get_by_test_id("join-error")).not_to_be_empty()
    expect(page.get_by_test_id("join-btn")).to_be_disabled()
    watch = _colors(page, "watch-btn")
    assert watch["background"] == "rgb(215, 38, 0)", watch  # the red main action
    assert watch["color"] == "rgb(255, 255, 255)", watch
    if status == "full":
        expect(page.get_by_test_id("join-seats")).to_have_text("3/3 seats taken")


# --- 3 -------------------------------------------------------------------------------------


def test_d03_real_names_pass_the_same_rule_as_the_server(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    page.goto(f"{ORIGIN}/")
    name = page.get_by_test_id("create-name")
    # 40 characters typed, 32 kept; a ZWJ family is one character, never cut in two.
    name.fill("a" * 40)
    expect(name).to_have_value("a" * 32)
    family = "👨\u200d👩\u200d👧"
    name.fill("b" * 31 + family + "c")
    expect(name).to_have_value("b" * 31 + family)
    # A bidi override is refused before anything is sent, in words.
    name.fill("Ali\u202e")
    page.get_by_test_id("create-btn").click()
    expect(page.get_by_test_id("create-name-hint")).to_have_text(
        "A name cannot contain control characters."
    )
    assert site.requests == []
    name.fill("مریم\u200cخانم")
    expect(page.get_by_test_id("create-name-hint")).to_have_text("")
    page.get_by_test_id("create-btn").click()
    expect(page).to_have_url(f"{ORIGIN}/r/NEWROOM")
    assert site.requests[-1]["name"] == "مریم\u200cخانم"


def test_d03_a_server_refusal_shows_by_code_in_the_players_language(
    make_page: Callable[..., Page], console_errors: ConsoleErrors
) -> None:
    console_errors.expect_message("400")
    page = make_page(locale="fa-IR")
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {
        "/api/rooms/FAKEROOM/players": (
            400,
            {"error": {"code": "bad_name", "message": "name must be 1-32 printable characters"}},
        ),
    }
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    page.get_by_test_id("join-name").fill("Ali")
    page.get_by_test_id("join-btn").click()
    error = page.get_by_test_id("join-error")
    expect(error).to_have_text("این نام پذیرفته نیست: ۱ تا ۳۲ نویسه، بدون نویسهٔ کنترلی.")


# --- 4 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_d04_clockwise_play_goes_to_your_left(make_page: Callable[..., Page], lang: str) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    expect(page.get_by_test_id("direction")).to_have_attribute("data-direction", "1")
    boxes = {}
    for seat in (1, 2, 3):
        box = page.locator(f".felt [data-testid=seat-{seat}]").bounding_box()
        assert box
        boxes[seat] = box["x"] + box["width"] / 2
    me = page.get_by_test_id("hand").bounding_box()
    assert me
    middle = me["x"] + me["width"] / 2
    # Seen from above with you at the bottom, clockwise runs you → left → top → right.
    assert boxes[1] < middle < boxes[3], boxes


# --- 5 -------------------------------------------------------------------------------------


def test_d05_language_switch_and_rotation_keep_the_home_form(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    page.goto(f"{ORIGIN}/")
    page.get_by_test_id("create-name").fill("Ayşe")
    page.get_by_test_id("create-settings").locator("summary").click()
    page.get_by_test_id("create-jump_in").check()
    page.get_by_test_id("create-draw").select_option("until_playable")
    page.get_by_test_id("open-link").fill("half a li")
    page.get_by_test_id("lang").select_option("fa")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.get_by_test_id("create-name")).to_have_value("Ayşe")
    expect(page.get_by_test_id("create-jump_in")).to_be_checked()
    expect(page.get_by_test_id("create-draw")).to_have_value("until_playable")
    expect(page.get_by_test_id("open-link")).to_have_value("half a li")
    page.set_viewport_size({"width": 800, "height": 1000})  # a tablet turned: crosses 820 px
    page.get_by_test_id("lang").select_option("en")
    expect(page.get_by_test_id("create-name")).to_have_value("Ayşe")
    expect(page.get_by_test_id("create-jump_in")).to_be_checked()
    page.get_by_test_id("create-btn").click()
    expect(page).to_have_url(f"{ORIGIN}/r/NEWROOM")
    assert site.requests[-1] == {
        "name": "Ayşe",
        "settings": {"jump_in": True, "draw": "until_playable"},
    }


# --- 6 -------------------------------------------------------------------------------------


def test_d06_a_tab_replaced_by_another_stops_playing_and_keeps_the_chat_draft(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    expect(page).to_have_title("● Your turn — UNO")
    page.get_by_test_id("chat-input").fill("wait for me")
    site.sockets[-1].close(code=4409, reason="replaced")
    expect(page.get_by_test_id("replaced")).to_be_visible()
    expect(page).to_have_title("UNO")
    assert page.evaluate(
        "document.querySelector('[data-testid=table]').closest('[inert]') !== null"
    )
    hellos = len([f for f in site.sent if f["type"] == "hello"])
    page.get_by_test_id("take-back").click()
    expect(page.get_by_test_id("replaced")).to_have_count(0)
    assert len([f for f in site.sent if f["type"] == "hello"]) == hellos + 1
    expect(page.get_by_test_id("chat-input")).to_have_value("wait for me")
    expect(page).to_have_title("● Your turn — UNO")


# --- 7 -------------------------------------------------------------------------------------


def test_d07_the_host_removes_a_departed_player_and_anyone_can_leave(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("lobby-seat-2")).to_have_attribute("data-connected", "false")
    page.get_by_test_id("remove-seat-2").click()
    assert sent(page, site, "remove_seat")["seat"] == 2
    page.get_by_test_id("remove-bot-1").click()
    assert sent(page, site, "remove_bot")["seat"] == 1
    expect(page.get_by_test_id("remove-seat-0")).to_have_count(0)  # not yourself
    page.get_by_test_id("leave-btn").click()
    expect(page.get_by_test_id("leave-confirm")).to_be_focused()
    page.keyboard.press("Enter")
    assert sent(page, site, "leave")["type"] == "leave"
    expect(page).to_have_url(f"{ORIGIN}/")
    assert page.evaluate("localStorage.getItem('uno.session.FAKEROOM')") is None


def test_d07_leaving_mid_match_says_a_bot_takes_the_seat(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    page.get_by_test_id("leave-btn").click()
    expect(page.get_by_test_id("leave-ask")).to_contain_text("A bot plays your seat")
    page.get_by_test_id("leave-cancel").click()
    expect(page.get_by_test_id("leave-btn")).to_be_focused()
    assert [f for f in site.sent if f["type"] == "leave"] == []


# --- 8 -------------------------------------------------------------------------------------


def _after_my_play(view: dict[str, Any], card: int) -> dict[str, Any]:
    view["you"]["hand"] = [c for c in view["you"]["hand"] if c["id"] != card]
    view["seats"][0]["hand_count"] = len(view["you"]["hand"])
    view["state"]["turn"] = 1
    view["you"]["moves"].update(play=[], draw=False, catch=[])
    return view


def test_d08_focus_stays_on_the_hand_after_each_move_and_the_skip_link_says_where(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    page.keyboard.press("Tab")
    skip = page.get_by_test_id("skip-link")
    expect(skip).to_be_focused()
    expect(skip).to_have_text("Skip to the game")
    page.get_by_test_id("card-2").focus()
    page.keyboard.press("Enter")
    assert sent(page, site, "play")["card"] == 2
    site.push_event(
        {"kind": "card_played", "seat": 0, "card": fv.card(2, "red", "skip")},
        _after_my_play(fv.classic_view(now_ms()), 2),
    )
    expect(page.get_by_test_id("card-2")).to_have_count(0)
    # The card that took the played card's place in the hand has the focus.
    focused = page.evaluate("document.activeElement.dataset.testid")
    assert focused and focused.startswith("card-"), focused
    # A wild through the color picker: focus comes back to the hand too.
    mine = fv.classic_view(now_ms())
    mine["you"]["hand"] = [c for c in mine["you"]["hand"] if c["id"] != 2]
    site.push_event({"kind": "turn_passed", "seat": 3}, mine)
    page.get_by_test_id("card-4").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("pick-color-red")).to_be_focused()
    page.keyboard.press("Enter")
    assert sent(page, site, "play")["card"] == 4
    after = _after_my_play(fv.classic_view(now_ms()), 4)
    after["you"]["hand"] = [c for c in after["you"]["hand"] if c["id"] != 2]
    site.push_event({"kind": "card_played", "seat": 0, "card": fv.card(4, None, "wild")}, after)
    expect(page.get_by_test_id("picker")).to_have_count(0)
    focused = page.evaluate("document.activeElement.dataset.testid")
    assert focused and focused.startswith("card-"), focused


# --- 13 ------------------------------------------------------------------------------------


def test_d13_at_a_match_end_with_the_host_dealing_the_others_wait_for_the_host(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    over = round_over_view(host_deals=True, you_host=False)
    over["status"] = "match_over"
    site.push_events(
        [fv.round_ended_event(), {"kind": "match_ended", "winner": 0, "match_id": "m1"}], over
    )
    waiting = page.get_by_test_id("summary-waiting")
    expect(waiting).to_have_text("The match is over. Mikko (host) can start a new match.")
    expect(page.get_by_test_id("next-round-btn")).to_have_count(0)
    # Between rounds with a timer, the timer's words stay.
    site.push_event({"kind": "round_started", "round": 1, "dealer": 3}, fv.classic_view(now_ms()))
    site.push_event(fv.round_ended_event(), round_over_view(host_deals=False, you_host=False))
    expect(waiting).to_have_text("The next round starts soon…")


# --- 14 ------------------------------------------------------------------------------------


def test_d14_uno_with_the_play_is_off_until_two_cards(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    uno = page.get_by_test_id("uno-btn")
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    expect(uno).to_be_disabled()
    two = fv.classic_view(now_ms())
    two["you"]["hand"] = two["you"]["hand"][:2]
    two["you"]["moves"]["play"] = [{"card": 1, "colors": None, "targets": None}]
    site.push_event({"kind": "card_drawn", "seat": 3, "count": 1}, two)
    expect(uno).to_be_enabled()
    expect(uno).to_have_attribute("data-mode", "arm")


# --- 16 ------------------------------------------------------------------------------------


def test_d16_away_has_an_im_back_button(make_page: Callable[..., Page]) -> None:
    view = fv.classic_view(now_ms())
    view["seats"][0]["afk"] = True
    view["state"]["turn"] = 2
    view["you"]["moves"].update(play=[], draw=False, catch=[])
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    expect(page.get_by_test_id("afk-banner")).to_be_visible()
    page.get_by_test_id("back-btn").click()
    frame = sent(page, site, "back")
    assert "at" not in frame
    back = fv.classic_view(now_ms())
    back["state"]["turn"] = 2
    site.push_event({"kind": "player_returned", "seat": 0}, back)
    expect(page.get_by_test_id("afk-banner")).to_have_count(0)
    expect(page.get_by_test_id("card-1")).to_have_attribute("data-legal", "true")


# --- 9 -------------------------------------------------------------------------------------


def test_d09_persian_isolates_names_and_keeps_draw_symbols_left_to_right(
    make_page: Callable[..., Page],
) -> None:
    view = fv.classic_view(now_ms())
    view["seats"][1]["name"] = "Bob!"
    view["seats"][2]["name"] = "Ali (2)"
    view["state"]["turn"] = 1
    view["you"]["moves"].update(play=[], draw=False, catch=[])
    page = make_page()
    site = FakeSite(page, view)
    site.open_room(lang="fa")
    status = page.get_by_test_id("turn-status")
    expect(status).to_contain_text("\u2068Bob!\u2069")
    assert page.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=seat-2] .seat-name')).unicodeBidi"
    ) in ("isolate", "plaintext")
    assert page.get_by_test_id("seat-2").locator(".seat-name").get_attribute("dir") == "auto"
    corner = page.get_by_test_id("card-6").locator(".corner").first
    expect(corner).to_have_text("+2")
    assert corner.evaluate("(el) => getComputedStyle(el).direction") == "ltr"


# --- 10 ------------------------------------------------------------------------------------


def test_d10_a_long_unbroken_name_and_word_stay_inside_their_panels(
    make_page: Callable[..., Page],
) -> None:
    long_name = "W" * 30  # 30 wide letters, no space
    view = fv.classic_view(now_ms())
    view["seats"][1]["name"] = long_name
    view["log"].append(
        {"kind": "chat", "seat": 1, "name": long_name, "text": "W" * 60, "version": 11}
    )
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    for selector in ("[data-testid=scoreboard]", ".panel.chat"):
        fits = page.evaluate(
            "(sel) => { const el = document.querySelector(sel);"
            " return el.scrollWidth <= el.clientWidth + 1; }",
            selector,
        )
        assert fits, selector
    score = page.get_by_test_id("score-1").locator("td.num")
    board = page.get_by_test_id("scoreboard").bounding_box()
    box = score.bounding_box()
    assert board and box and box["x"] + box["width"] <= board["x"] + board["width"]


# --- 11 ------------------------------------------------------------------------------------


def match_record() -> dict[str, Any]:
    return fv.match_record(
        [
            {"seat": 0, "player_id": "p0", "name": "Ayşe"},
            {"seat": 1, "player_id": "p1", "name": "Mikko"},
            {"seat": 2, "player_id": "bot-73148152680a1839", "name": "Bot 3", "bot": True},
        ],
        [(1, [0, 40, 0]), (0, [35, 0, 0]), (0, [70, 0, 0])],
        winner=0,
    )


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_d11_the_match_record_is_a_readable_page_with_a_chart(
    make_page: Callable[..., Page], artifacts: Any, lang: str
) -> None:
    page = make_page(locale="fa-IR" if lang == "fa" else "en-US")
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {"/api/matches/m1": (200, match_record())}
    page.goto(f"{ORIGIN}/m/m1")
    expect(page.get_by_test_id("match-page")).to_be_visible()
    table = page.get_by_test_id("rounds-table")
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(page.get_by_test_id("total-0")).to_have_text("105" if lang == "en" else "۱۰۵")
    expect(page.get_by_test_id("score-chart").locator("polyline")).to_have_count(3)
    expect(page.get_by_test_id("chart-target")).to_have_count(1)
    points = page.get_by_test_id("chart-seat-0").locator("polyline").get_attribute("points")
    assert points and len(points.split()) == 4  # the start and three rounds
    expect(page.get_by_test_id("match-json")).to_have_attribute("href", "/api/matches/m1")
    page.screenshot(path=str(artifacts / f"match-page-{lang}.png"), full_page=True)


def test_the_match_page_of_a_record_without_its_room_links_home_not_to_a_room(
    make_page: Callable[..., Page],
) -> None:
    """The server withholds the room code (`"room": null`): no link to `/r/null`."""
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {"/api/matches/m1": (200, {**match_record(), "room": None})}
    page.goto(f"{ORIGIN}/m/m1")
    expect(page.get_by_test_id("match-page")).to_be_visible()
    expect(page.get_by_test_id("match-json")).to_be_visible()
    expect(page.get_by_test_id("match-room-link")).to_have_count(0)
    expect(page.get_by_test_id("go-home")).to_have_attribute("href", "/")
    assert page.locator('a[href^="/r/"]').count() == 0


def test_d11_the_summary_links_the_page_and_shows_the_chart(
    make_page: Callable[..., Page], artifacts: Any
) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    record = match_record()
    record["status"] = "running"
    record["rounds"] = record["rounds"][:2]  # the record lags: the round just ended is added
    site.routes = {"/api/matches/m1": (200, record)}
    site.open_room()
    ended = fv.round_ended_event()
    ended["round"] = 3
    site.push_event(ended, round_over_view(host_deals=False, you_host=True))
    expect(page.get_by_test_id("match-link")).to_have_attribute("href", "/m/m1")
    expect(page.get_by_test_id("rounds-table").locator("tbody tr")).to_have_count(3)
    expect(page.get_by_test_id("round-summary").get_by_test_id("score-chart")).to_be_visible()
    page.screenshot(path=str(artifacts / "summary-chart-en.png"))


# --- feedback, phone, keyboard -------------------------------------------------------------


def test_last_play_recent_plays_sounds_and_a_remembered_mute(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    view = fv.classic_view(now_ms())
    view["state"]["turn"] = 3
    site = FakeSite(page, view)
    site.open_room()
    mine = fv.classic_view(now_ms())
    mine["state"]["top"] = fv.card(70, "red", "number", 8)
    site.push_events(
        [{"kind": "card_played", "seat": 3, "card": fv.card(70, "red", "number", 8)}], mine
    )
    expect(page.get_by_test_id("last-play")).to_have_text("Sara played")
    expect(page.get_by_test_id("discard-top")).to_have_class(re.compile(r"\blast-play\b"))
    expect(page.get_by_test_id("recent-plays").locator("li")).to_have_count(2)
    assert page.evaluate("window.uno.state.sounds") == ["turn"]
    page.get_by_test_id("mute").click()
    expect(page.get_by_test_id("mute")).to_have_attribute("aria-pressed", "true")
    page.reload()
    expect(page.get_by_test_id("mute")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("mute")).to_have_attribute("aria-label", "Sound off")


def test_keyboard_shortcuts_and_their_help(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    page.keyboard.press("?")
    expect(page.get_by_test_id("keys-help")).to_be_visible()
    expect(page.get_by_test_id("keys-close")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("keys-help")).to_have_count(0)
    page.keyboard.press("d")
    assert sent(page, site, "draw")["type"] == "draw"
    site.sent.clear()
    page.get_by_test_id("chat-input").fill("d")  # typing is never a shortcut
    page.get_by_test_id("chat-input").press("d")
    page.wait_for_timeout(150)
    assert [f for f in site.sent if f["type"] == "draw"] == []
    page.locator("body").click(position={"x": 5, "y": 400})
    page.keyboard.press("1")  # the first card in the hand (red 5)
    assert sent(page, site, "play")["card"] == 1


def test_phone_drags_a_card_to_the_pile_and_targets_are_44px(
    make_page: Callable[..., Page],
) -> None:
    page = make_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    page.get_by_test_id("card-2").drag_to(page.get_by_test_id("discard"))
    assert sent(page, site, "play")["card"] == 2
    small = page.evaluate(
        """() => [...document.querySelectorAll('button, select, a.button')]
            .filter((el) => el.offsetParent && !el.closest('.hand'))
            .map((el) => [el.dataset.testid || el.id || el.textContent.trim(),
                          el.getBoundingClientRect().height])
            .filter(([, h]) => h < 43.5)"""
    )
    assert small == [], small


def test_invite_shows_a_qr_code_of_the_link(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.open_room()
    page.get_by_test_id("qr-btn").click()
    qr = page.get_by_test_id("invite-qr")
    expect(qr.locator("svg")).to_have_count(1)
    expect(page.get_by_test_id("qr-btn")).to_have_attribute("aria-expanded", "true")
    # A QR code has its three finder squares: the path is long, not a placeholder.
    assert len(qr.locator("svg path").get_attribute("d") or "") > 500
    page.get_by_test_id("qr-btn").click()
    expect(qr).to_have_count(0)


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("size", [(1366, 900), (390, 844)])
def test_screenshots_of_the_table(
    make_page: Callable[..., Page], artifacts: Any, lang: str, size: tuple[int, int]
) -> None:
    """The table as a new player sees it, saved for review; the page never scrolls sideways."""
    width, height = size
    phone = width < 500
    page = make_page(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    after = fv.classic_view(now_ms())
    after["state"]["top"] = fv.card(71, "red", "draw2")
    after["seats"][1]["hand_count"] = 3
    site.push_events(
        [
            {"kind": "card_played", "seat": 3, "card": fv.card(71, "red", "draw2")},
            {"kind": "card_drawn", "seat": 1, "count": 2},
        ],
        after,
    )
    expect(page.get_by_test_id("last-play")).to_be_visible()
    page.wait_for_timeout(700)  # the card flights end
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(artifacts / f"table-{lang}-{width}x{height}.png"), full_page=phone)


# --- 12 (the room side; the tournament page side is in test_tournament.py) -------------------


def test_d12_a_finished_tournament_table_says_so_and_offers_no_new_match(
    make_page: Callable[..., Page],
) -> None:
    view = fv.classic_view(now_ms())
    view["settings"].update(match_rounds=1, target_score=10_000)
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    page.evaluate(
        "(() => { const s = JSON.parse(localStorage.getItem('uno.session.FAKEROOM'));"
        " s.tournament = 'TOUR1'; localStorage.setItem('uno.session.FAKEROOM', JSON.stringify(s));"
        " })()"
    )
    page.reload()
    expect(page.get_by_test_id("score-goal")).to_have_text(
        "A single-hand match: the winner of this hand wins"
    )
    over = round_over_view(host_deals=True, you_host=True)
    over.update(status="match_over")
    over["settings"].update(match_rounds=1, target_score=10_000)
    site.push_events(
        [fv.round_ended_event(), {"kind": "match_ended", "winner": 0, "match_id": "m1"}], over
    )
    expect(page.get_by_test_id("round-summary")).to_be_visible()
    expect(page.get_by_test_id("next-round-btn")).to_have_count(0)
    expect(page.get_by_test_id("summary-waiting")).to_have_text(
        "This tournament table is finished."
    )
    expect(page.get_by_test_id("tournament-link")).to_have_attribute("href", "/t/TOUR1")
    expect(page.get_by_text("10,000")).to_have_count(0)


# --- 17 ------------------------------------------------------------------------------------


def test_d17_smaller_things(make_page: Callable[..., Page]) -> None:
    page = make_page()
    FakeSite(page, fv.lobby_view(now_ms()))
    # Garbage in the join box says so.
    page.goto(f"{ORIGIN}/")
    page.get_by_test_id("open-link").fill("hello there")
    page.get_by_test_id("open-link-btn").click()
    expect(page.get_by_test_id("open-link-error")).to_contain_text("not a room link")
    # A name already at the table is refused before joining, with a free variant offered.
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    expect(page.get_by_test_id("join-info")).to_contain_text("Mikko")
    page.get_by_test_id("join-name").fill("mikko")
    page.get_by_test_id("join-btn").click()
    expect(page.get_by_test_id("join-error")).to_contain_text("already has that name")
    page.get_by_test_id("use-suggested").click()
    expect(page.get_by_test_id("join-name")).to_have_value("mikko 2")


def test_d17_table_details(make_page: Callable[..., Page]) -> None:
    view = fv.classic_view(now_ms())
    view["log"].append({"kind": "chat", "seat": 1, "text": "moi", "version": 11})
    page = make_page(locale="fi-FI")
    site = FakeSite(page, view)
    site.open_room()
    # Chat is in the chat panel only, not repeated in Events.
    expect(page.get_by_test_id("chat-list")).to_contain_text("moi")
    expect(page.get_by_test_id("event-log")).not_to_contain_text("moi")
    # Bot names in the page's language.
    expect(page.get_by_test_id("seat-2").locator(".seat-name")).to_have_text("Botti 3")
    # A deal marks no card as new; a card drawn during the round is marked.
    deal = fv.classic_view(now_ms())
    for c in deal["you"]["hand"]:
        c["id"] += 100
    site.push_event({"kind": "round_started", "round": 2, "dealer": 1}, deal)
    expect(page.get_by_test_id("card-101")).to_be_visible()
    expect(page.locator("[data-testid=hand] .card.new")).to_have_count(0)
    drawn = fv.classic_view(now_ms())
    for c in drawn["you"]["hand"]:
        c["id"] += 100
    drawn["you"]["hand"].append(fv.card(150, "blue", "number", 2))
    site.push_event({"kind": "card_drawn", "seat": 0, "count": 1}, drawn)
    expect(page.locator("[data-testid=hand] .card.new")).to_have_count(1)
    # Under a challenge there are the dialog's two buttons and no third Draw button.
    site.push_event({"kind": "challenge_opened", "seat": 0, "offender": 3}, fv.challenge_view())
    expect(page.get_by_test_id("challenge-dialog")).to_be_visible()
    expect(page.get_by_test_id("draw-btn")).to_have_count(0)


def test_the_table_says_it_waits_for_a_player_to_reconnect(make_page: Callable[..., Page]) -> None:
    view = fv.classic_view(now_ms())
    view["seats"][1]["connected"] = False
    view["state"]["turn"] = 1
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    expect(page.get_by_test_id("turn-status")).to_have_text("Waiting for Mikko to reconnect…")


def test_d07_the_host_role_passing_to_you_is_said(make_page: Callable[..., Page]) -> None:
    view = fv.lobby_view(now_ms())
    view["host"] = 2
    view["you"]["moves"] = {"play": [], "start": False}
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    expect(page.get_by_test_id("lobby-wait")).to_be_visible()
    mine = fv.lobby_view(now_ms())
    site.push_event({"kind": "host_changed", "host": 0}, mine)
    expect(page.get_by_test_id("toast")).to_contain_text("You are the host now")
    expect(page.get_by_test_id("start-btn")).to_be_enabled()
