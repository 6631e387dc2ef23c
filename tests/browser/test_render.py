"""Rendering and input tests against hand-made views (no server): Flip backs, pickers,
keyboard play, jump-in, reconnect with `since`, the live region, RTL and the phone layout."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import ConsoleErrors, now_ms, wait_sent
from tests.browser.fake_site import FakeSite

pytestmark = pytest.mark.browser


def test_catalogs_have_the_same_keys(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.open_room()
    result = page.evaluate(
        """async () => {
            const out = {};
            for (const l of ['en', 'tr', 'fi', 'fa']) {
                out[l] = Object.keys((await import(`/assets/i18n/${l}.js`)).default).sort();
            }
            return out;
        }"""
    )
    assert len(result["en"]) > 200
    for lang in ("tr", "fi", "fa"):
        assert result[lang] == result["en"], lang


def test_flip_shows_backs_and_the_dark_side(
    make_page: Callable[..., Page], artifacts: Path
) -> None:
    page = make_page()
    site = FakeSite(page, fv.flip_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("seat-1-backs").locator(".card")).to_have_count(1)
    expect(page.get_by_test_id("seat-3-backs").locator(".card")).to_have_count(4)
    # The draw pile shows the back face of its top card (a light-side red 4).
    expect(page.get_by_test_id("draw-pile").locator(".card")).to_have_attribute("data-color", "red")
    expect(page.locator("body")).to_have_class("dark-side")
    expect(page.get_by_test_id("current-color")).to_have_attribute("data-color", "pink")
    expect(page.get_by_test_id("direction")).to_have_attribute("data-direction", "-1")
    expect(page.get_by_test_id("card-2")).to_have_attribute("aria-label", "Teal Skip Everyone")
    page.screenshot(path=str(artifacts / "render-flip.png"))


def test_keyboard_plays_a_card_and_a_wild(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    first = page.get_by_test_id("card-1")
    expect(first).to_have_attribute("data-legal", "true")
    expect(page.get_by_test_id("card-3")).to_have_attribute("data-legal", "false")
    first.focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("card-2")).to_be_focused()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    frame = wait_sent(page, site, "play")
    assert frame["card"] == 1 and frame["at"] == 12 and "color" not in frame and frame["id"]

    site.sent.clear()
    page.get_by_test_id("card-4").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("picker")).to_be_visible()
    expect(page.get_by_test_id("pick-color-red")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # yellow
    frame = wait_sent(page, site, "play")
    assert frame == {**frame, "card": 4, "color": "yellow"}
    expect(page.get_by_test_id("picker")).to_have_count(0)


def test_picker_escape_cancels(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    page.get_by_test_id("card-5").click()
    expect(page.get_by_test_id("picker")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("picker")).to_have_count(0)
    assert [f for f in site.sent if f["type"] == "play"] == []


def test_targeted_card_asks_color_then_seat(make_page: Callable[..., Page]) -> None:
    view = fv.classic_view(now_ms())
    view["you"]["hand"].append(fv.card(90, None, "wild_targeted_draw2"))
    view["you"]["moves"]["play"] = [
        {"card": 90, "colors": ["red", "yellow", "green", "blue"], "targets": [1, 2, 3]}
    ]
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    page.get_by_test_id("card-90").click()
    page.get_by_test_id("pick-color-green").click()
    expect(page.get_by_test_id("pick-target-2")).to_contain_text("Bot 3")
    page.get_by_test_id("pick-target-2").click()
    frame = wait_sent(page, site, "play")
    assert (frame["card"], frame["color"], frame["target"]) == (90, "green", 2)


def test_uno_toggle_rides_on_the_play_and_declares_after(make_page: Callable[..., Page]) -> None:
    view = fv.classic_view(now_ms())
    view["you"]["hand"] = view["you"]["hand"][:2]
    view["you"]["moves"].update(play=[{"card": 1, "colors": None, "targets": None}], uno=True)
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    uno = page.get_by_test_id("uno-btn")
    expect(uno).to_have_attribute("data-mode", "arm")
    uno.click()
    expect(uno).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("card-1").click()
    assert wait_sent(page, site, "play")["uno"] is True

    after = fv.classic_view(now_ms())
    after["you"]["hand"] = after["you"]["hand"][1:2]
    after["you"]["moves"].update(play=[], uno=True, draw=False, catch=[])
    after["state"]["turn"] = 1
    site.push_event(
        {"kind": "card_played", "seat": 0, "card": fv.card(1, "red", "number", 5)}, after
    )
    expect(uno).to_have_attribute("data-mode", "declare")
    uno.click()
    assert wait_sent(page, site, "uno")["type"] == "uno"


def test_jump_in_choose_and_catch(make_page: Callable[..., Page]) -> None:
    view = fv.classic_view(now_ms())
    view["state"].update(turn=2, phase="play")
    view["state"]["deadlines"]["turn"] = {"seat": 2, "at": now_ms() + 9000}
    view["you"]["moves"].update(play=[{"card": 1, "colors": None, "targets": None}], draw=False)
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    expect(page.get_by_test_id("turn-status")).to_have_attribute("data-mine", "false")
    expect(page.get_by_test_id("seat-2-timer")).to_be_visible()
    expect(page.get_by_test_id("card-1")).to_have_class("card c-red legal jump")
    expect(page.get_by_test_id("catch-1-timer")).to_be_visible()
    page.get_by_test_id("catch-1").click()
    assert wait_sent(page, site, "catch")["seat"] == 1
    page.get_by_test_id("card-1").click()
    assert wait_sent(page, site, "play")["card"] == 1

    choose = fv.classic_view(now_ms())
    choose["state"]["phase"] = "choose"
    choose["you"]["moves"].update(
        play=[], draw=False, catch=[], choose=["red", "yellow", "green", "blue"]
    )
    site.push_event({"kind": "round_started", "round": 1, "dealer": 3}, choose)
    page.get_by_test_id("choose-green").click()
    assert wait_sent(page, site, "choose")["color"] == "green"


def test_reconnects_with_since_after_the_socket_closes(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("conn")).to_have_attribute("data-state", "online")
    hello = wait_sent(page, site, "hello")
    assert hello["token"] == "t0" and hello["since"] is None
    site.sent.clear()
    page.evaluate(
        """() => {
            window.__conn = [];
            const el = document.getElementById('conn');
            new MutationObserver(() => window.__conn.push(el.dataset.state))
                .observe(el, { attributes: true, attributeFilter: ['data-state'] });
        }"""
    )
    site.sockets[-1].close(code=1012)
    hello = wait_sent(page, site, "hello")
    assert hello["since"] == 12
    expect(page.get_by_test_id("conn")).to_have_attribute("data-state", "online")
    # Offline until the server welcomes the page again: no flicker to "connecting" at the retry.
    assert page.evaluate("window.__conn")[:2] == ["offline", "online"]
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)


def test_events_reach_the_log_and_the_live_region(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    after = fv.classic_view(now_ms())
    after["seats"][2]["hand_count"] = 3
    site.push_event(
        {"kind": "card_played", "seat": 2, "card": fv.card(60, "red", "skip"), "color": "red"},
        after,
    )
    expect(page.get_by_test_id("live")).to_contain_text("Bot 3 played Red Skip")
    expect(page.get_by_test_id("event-log")).to_contain_text("Bot 3 played Red Skip")
    expect(page.get_by_test_id("seat-2")).to_have_attribute("data-count", "3")
    page.get_by_test_id("lang").select_option("tr")
    expect(page.get_by_test_id("event-log")).to_contain_text("Bot 3 Kırmızı Pas oynadı")


def test_summary_shows_hands_points_and_the_record_link(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    over = fv.classic_view(now_ms())
    over["status"] = "round_over"
    over["seats"][0]["score"] = 79
    over["you"]["moves"] = {"play": [], "start": True}
    site.push_event(fv.round_ended_event(), over)
    summary = page.get_by_test_id("round-summary")
    expect(summary).to_be_visible()
    expect(page.get_by_test_id("summary-points-0")).to_have_text("79")
    expect(page.get_by_test_id("summary-seat-2").locator(".card")).to_have_count(1)
    expect(page.get_by_test_id("match-link")).to_have_attribute("href", "/m/m1")
    expect(page.get_by_test_id("summary-close")).to_be_focused()
    page.keyboard.press("Tab")  # wraps inside the dialog
    expect(page.get_by_test_id("match-link")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert wait_sent(page, site, "start")["type"] == "start"
    page.keyboard.press("Escape")
    expect(summary).to_have_count(0)


def test_spectator_sees_no_hand_and_may_only_chat(make_page: Callable[..., Page]) -> None:
    view = fv.classic_view(now_ms())
    view["you"] = None
    page = make_page()
    site = FakeSite(page, view, role="spectator")
    site.open_room()
    expect(page.get_by_test_id("spectator-badge")).to_be_visible()
    expect(page.get_by_test_id("hand")).to_have_count(0)
    expect(page.get_by_test_id("draw-btn")).to_have_count(0)
    expect(page.get_by_test_id("chat-input")).to_be_visible()  # spectators chat (issue 12)
    expect(page.get_by_test_id("seat-0")).to_be_visible()


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_phone_layout_fits_and_mirrors(
    make_page: Callable[..., Page], artifacts: Path, lang: str
) -> None:
    page = make_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    cards = page.get_by_test_id("hand").locator(".card")
    first = cards.nth(0).bounding_box()
    second = cards.nth(1).bounding_box()
    assert first and second
    rtl = lang == "fa"
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if rtl else "ltr")
    assert (first["x"] > second["x"]) == rtl
    page.get_by_test_id("card-1").tap()
    assert wait_sent(page, site, "play")["card"] == 1
    page.screenshot(path=str(artifacts / f"render-phone-{lang}.png"), full_page=True)


def test_language_switcher_changes_strings_and_direction(make_page: Callable[..., Page]) -> None:
    page = make_page(locale="tr-TR")
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("start-btn")).to_have_text("Oyunu başlat")
    page.get_by_test_id("lang").select_option("fa")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.get_by_test_id("start-btn")).to_have_text("شروع بازی")
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "fa")


def test_home_creates_a_room_with_changed_settings_only(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    page.goto("http://uno.test/")
    page.get_by_test_id("create-name").fill("Ayşe")
    page.get_by_test_id("create-settings").locator("summary").click()
    page.get_by_test_id("create-custom-add").click()
    page.get_by_test_id("create-custom-0-effect").select_option("all_others_draw")
    page.get_by_test_id("create-custom-0-n").fill("3")
    page.get_by_test_id("create-custom-0-n").press("Tab")
    page.get_by_test_id("create-custom-0-label").fill("Herkes çeker")
    page.get_by_test_id("create-custom-0-label").press("Tab")
    page.get_by_test_id("create-jump_in").check()
    page.get_by_test_id("create-draw").select_option("until_playable")
    page.get_by_test_id("create-max_draw").fill("5")
    page.get_by_test_id("create-max_draw").press("Tab")
    page.get_by_test_id("create-btn").click()
    expect(page).to_have_url("http://uno.test/r/NEWROOM")
    assert site.requests == [
        {
            "name": "Ayşe",
            "settings": {
                "custom_wilds": [{"effect": "all_others_draw", "n": 3, "label": "Herkes çeker"}],
                "jump_in": True,
                "draw": "until_playable",
                "max_draw": 5,
            },
        }
    ]
    stored = page.evaluate("JSON.parse(localStorage.getItem('uno.session.NEWROOM'))")
    assert stored["token"] == "t-new" and stored["seat"] == 0
    wait_sent(page, site, "hello")


def test_custom_wilds_are_dropped_outside_the_gdj85_deck(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    page.goto("http://uno.test/")
    page.get_by_test_id("create-name").fill("Mikko")
    page.get_by_test_id("create-settings").locator("summary").click()
    page.get_by_test_id("create-custom-add").click()
    page.get_by_test_id("create-variant").select_option("flip")
    expect(page.get_by_test_id("create-custom-wilds")).to_have_count(0)
    expect(page.get_by_test_id("create-flip_discard")).to_be_visible()
    page.get_by_test_id("create-btn").click()
    expect(page).to_have_url("http://uno.test/r/NEWROOM")
    assert site.requests[-1]["settings"] == {"variant": "flip"}


@pytest.mark.parametrize(
    "pasted",
    [
        "  http://uno.test/r/FAKEROOM  ",
        "http://uno.test/r/FAKEROOM.",  # copied with the full stop of a chat sentence
        "Join my game: http://uno.test/r/FAKEROOM!",
        "(http://uno.test/r/FAKEROOM)",
        "FAKEROOM.",
    ],
)
def test_home_opens_a_pasted_invite_link(make_page: Callable[..., Page], pasted: str) -> None:
    page = make_page()
    FakeSite(page, fv.lobby_view(now_ms()))
    page.goto("http://uno.test/")
    page.get_by_test_id("open-link").fill(pasted)
    page.get_by_test_id("open-link-btn").click()
    expect(page).to_have_url("http://uno.test/r/FAKEROOM")
    expect(page.get_by_test_id("join-form")).to_be_visible()
    expect(page.get_by_test_id("join-info")).to_contain_text("Waiting in the lobby")


def test_tab_title_shows_your_turn(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    expect(page).to_have_title("● Your turn — UNO")
    later = fv.classic_view(now_ms())
    later["state"]["turn"] = 1
    site.push_event({"kind": "turn_passed", "seat": 0}, later)
    expect(page).to_have_title("UNO")


def test_a_full_room_offers_to_watch(
    make_page: Callable[..., Page], console_errors: ConsoleErrors
) -> None:
    console_errors.expect_message("409")
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {
        "/api/rooms/FAKEROOM/players": (
            409,
            {"error": {"code": "room_full", "message": "the room is full"}},
        ),
        "/api/rooms/FAKEROOM/spectators": (201, {"token": "spec-tok"}),
    }
    page.goto("http://uno.test/r/FAKEROOM")
    page.get_by_test_id("join-name").fill("Late")
    page.get_by_test_id("join-btn").click()
    expect(page.get_by_test_id("join-error")).to_have_text(
        "This room is full or the game has started. You can watch."
    )
    expect(page.get_by_test_id("watch-btn")).to_be_focused()
    page.keyboard.press("Enter")
    assert wait_sent(page, site, "hello")["token"] == "spec-tok"
    stored = page.evaluate("JSON.parse(localStorage.getItem('uno.session.FAKEROOM'))")
    assert stored["role"] == "spectator"


def test_a_double_click_plays_once(make_page: Callable[..., Page]) -> None:
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.ack = False
    site.open_room()
    page.get_by_test_id("card-1").dblclick()
    page.get_by_test_id("draw-btn").click()
    wait_sent(page, site, "play")
    page.wait_for_timeout(300)
    assert [f["type"] for f in site.sent if f["type"] in ("play", "draw")] == ["play"]


def test_an_events_frame_applies_its_events_in_order_then_the_view(
    make_page: Callable[..., Page],
) -> None:
    """Wire v2: one frame per commit; a Draw Two logs the play, the penalty draw and the skip
    in that order, the flights follow that order, the view after the last event is shown, and
    a resumed frame repeating seen versions adds nothing."""
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    after = fv.classic_view(now_ms())
    after["seats"][3]["hand_count"] = 5
    after["seats"][1]["hand_count"] = 3
    after["state"].update(top=fv.card(61, "red", "draw2"), turn=2)
    after["state"]["deadlines"]["turn"] = {"seat": 2, "at": now_ms() + 20_000}
    after["you"]["moves"].update(play=[], draw=False)
    site.push_events(
        [
            {"kind": "card_played", "seat": 3, "card": fv.card(61, "red", "draw2")},
            {"kind": "card_drawn", "seat": 1, "count": 2},
            {"kind": "turn_skipped", "seat": 1},
        ],
        after,
    )
    log = page.get_by_test_id("event-log")
    expect(log).to_contain_text("Sara played Red Draw Two")
    items = log.locator("li").all_inner_texts()
    played = next(i for i, x in enumerate(items) if "Sara played Red Draw Two" in x)
    drew = next(i for i, x in enumerate(items) if "Mikko drew 2" in x)
    assert played < drew, items
    expect(page.get_by_test_id("turn-status")).to_contain_text("Bot 3")
    expect(page.get_by_test_id("seat-1")).to_have_attribute("data-count", "3")
    expect(page.get_by_test_id("discard-top")).to_have_attribute("data-kind", "draw2")
    motion = page.evaluate("window.__unoMotion")
    assert motion[-3:] == ["card_played", "card_drawn", "turn_skipped"]
    assert page.evaluate("window.uno.state.version") == 15
    # A resumed frame overlapping what was seen: nothing is logged twice.
    count = log.locator("li").count()
    for ws in site.sockets:
        ws.send(
            json.dumps(
                {
                    "type": "events",
                    "version": 15,
                    "events": [
                        {"kind": "card_drawn", "seat": 1, "count": 2, "version": 14},
                        {"kind": "turn_skipped", "seat": 1, "version": 15},
                    ],
                    "view": site.view,
                }
            )
        )
    page.wait_for_timeout(200)
    assert log.locator("li").count() == count


def test_typed_text_focus_and_scroll_survive_frames_and_a_language_switch(
    make_page: Callable[..., Page],
) -> None:
    """Keyed in-place updates: a frame or a language switch patches the page, it does not
    rebuild it, so the chat being typed, the focus and a log read back stay as they were."""
    page = make_page(viewport={"width": 1280, "height": 700})
    view = fv.classic_view(now_ms())
    view["log"] = [
        {"kind": "card_drawn", "seat": 1 + i % 3, "count": 1, "version": i + 1} for i in range(11)
    ]
    site = FakeSite(page, view)
    site.open_room()
    chat = page.get_by_test_id("chat-input")
    chat.fill("half a sente")
    page.evaluate("document.querySelector('[data-card-id=\"3\"]').__mark = 'same node'")
    log = page.get_by_test_id("event-log")
    assert page.evaluate("(el) => el.scrollHeight > el.clientHeight + 40", log.element_handle())
    page.evaluate("(el) => { el.scrollTop = 0; }", log.element_handle())
    for i in range(3):
        later = fv.classic_view(now_ms())
        later["seats"][2]["hand_count"] = 4 - i
        site.push_event({"kind": "card_drawn", "seat": 2, "count": 1}, later)
    expect(page.get_by_test_id("seat-2")).to_have_attribute("data-count", "2")
    page.get_by_test_id("lang").select_option("fi")
    expect(page.get_by_test_id("chat-send")).to_have_text("Lähetä")
    chat.focus()
    page.keyboard.type("nce")
    for _ in range(2):
        site.push_event({"kind": "turn_passed", "seat": 3}, fv.classic_view(now_ms()))
    expect(chat).to_be_focused()
    expect(chat).to_have_value("half a sentence")
    assert page.evaluate("document.querySelector('[data-card-id=\"3\"]').__mark") == "same node"
    assert page.evaluate("(el) => el.scrollTop", log.element_handle()) == 0


def test_a_join_form_opens_the_seat_another_tab_took_instead_of_taking_a_second(
    make_page: Callable[..., Page],
) -> None:
    """Two tabs of one browser showed the join form; one joined. The other's Join (or Watch)
    opens that seat: one person, one seat."""
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {
        "/api/rooms/FAKEROOM/players": (
            201,
            {"player_id": "p9", "seat": 1, "token": "t-second"},
        ),
    }
    page.goto("http://uno.test/r/FAKEROOM")
    expect(page.get_by_test_id("join-form")).to_be_visible()
    # The other tab joins meanwhile: its seat is in this browser's storage.
    session = {"room": "FAKEROOM", "token": "t0", "player_id": "p0", "seat": 0, "role": "player"}
    page.evaluate(
        f"localStorage.setItem('uno.session.FAKEROOM', {json.dumps(json.dumps(session))})"
    )
    page.get_by_test_id("join-name").fill("Mikko2")
    page.get_by_test_id("join-btn").click()
    page.wait_for_function("window.uno && window.uno.state.view !== null")
    assert site.requests == []  # no second seat asked for
    hello = next(m for m in site.sent if m.get("type") == "hello")
    assert hello["token"] == "t0"


@pytest.mark.parametrize(("target", "shown"), [(10000, 0), (300, 1)])
def test_a_tournament_table_of_set_hands_shows_no_target_nobody_plays_to(
    make_page: Callable[..., Page], target: int, shown: int
) -> None:
    """A tournament whose matches are a number of hands gives its tables a target of 10000
    that the hands decide before: the lobby does not show it as the goal."""
    page = make_page()
    view = fv.lobby_view(now_ms())
    view["host"] = 1  # the tournament's table: nobody here is its host
    view["settings"] = {**view["settings"], "target_score": target}
    site = FakeSite(page, view)
    page.goto("http://uno.test/")
    session = {
        "room": "FAKEROOM",
        "token": "t0",
        "player_id": "p0",
        "seat": 0,
        "role": "player",
        "tournament": "T1",
    }
    page.evaluate(
        f"localStorage.setItem('uno.session.FAKEROOM', {json.dumps(json.dumps(session))})"
    )
    page.goto("http://uno.test/r/FAKEROOM")
    expect(page.get_by_test_id("tournament-link")).to_be_visible()
    expect(page.get_by_test_id("lobby-variant")).to_be_visible()
    expect(page.get_by_test_id("lobby-target_score")).to_have_count(shown)
    assert site.sockets
