"""What a newcomer ran into in the web audit of December 2026, against hand-made views."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import ConsoleErrors, now_ms, wait_sent
from tests.browser.fake_site import ORIGIN, FakeSite
from tests.browser.test_tournament import CODE, FakeTournament, open_tournament, registering

pytestmark = pytest.mark.browser

LANDSCAPE = {"viewport": {"width": 844, "height": 390}, "is_mobile": True, "has_touch": True}

PILE_AND_HAND = """() => {
  const top = (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
  const cards = [...document.querySelectorAll('[data-testid=hand] .card')]
    .map((c) => c.getBoundingClientRect());
  return {
    felt: document.querySelector('.felt').getBoundingClientRect().height,
    from: top('discard').top,
    to: Math.max(...cards.map((r) => r.bottom)),
    screen: innerHeight,
  };
}"""


@pytest.mark.parametrize("lang", ["fi", "fa"])
def test_a_phone_held_sideways_shows_the_pile_and_the_hand_together(
    make_page: Callable[..., Page], lang: str
) -> None:
    # 844 x 390 is wider than the phone layout's 820 px: the table's ellipse kept its 470 px,
    # taller than the screen, and every turn meant scrolling from the pile to the hand.
    page = make_page(**LANDSCAPE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    box = page.evaluate(PILE_AND_HAND)
    assert box["felt"] < box["screen"], box
    assert box["to"] - box["from"] <= box["screen"], box
    assert page.evaluate("document.documentElement.scrollWidth") <= 844


LAPTOP_FOLD = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const cards = [...document.querySelectorAll('[data-testid=hand] .card')];
  const first = cards.filter((c) => Math.abs(c.offsetTop - cards[0].offsetTop) < 4);
  const ids = ['discard', 'draw-pile', 'turn-status', 'draw-btn', 'pass-btn', 'uno-btn',
    'challenge-btn', 'accept-btn'];
  const seen = Object.fromEntries(ids
    .map((id) => [id, document.querySelector(`[data-testid=${id}]`)])
    .filter(([, el]) => el).map(([id, el]) => [id, box(el)]));
  first.forEach((c, i) => { seen[`hand-${i}`] = box(c); });
  return { seen, scrolled: scrollY, width: innerWidth, height: innerHeight };
}"""


def many_seats(view: dict, opponents: int) -> dict:
    names = ["Mikko", "Bot 3", "Sara", "Darius", "Elif", "Juho", "Maryam", "Can", "Aino", "Reza"]
    view["seats"] = [fv.seat(0, "Ayşe", 7)] + [
        fv.seat(i, names[i - 1], 5) for i in range(1, opponents + 1)
    ]
    return view


def _fits_without_scrolling(page: Page, width: int, height: int) -> None:
    """The piles, the turn, the moves and the hand's first row inside the viewport, with
    nothing scrolled either way."""
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    box = page.evaluate(LAPTOP_FOLD)
    assert box["scrolled"] == 0, box
    assert {"discard", "draw-pile", "turn-status", "hand-0"} <= box["seen"].keys(), box
    for name, (left, top, right, bottom) in box["seen"].items():
        assert left >= 0 and top >= 0 and right <= width and bottom <= height, (name, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("opponents", [4, 10])
@pytest.mark.parametrize("size", [(1366, 650), (1440, 780)])
@pytest.mark.parametrize("make_view", [fv.classic_view, fv.challenge_view])
def test_a_laptop_screen_shows_the_piles_the_moves_and_the_hand_without_scrolling(
    make_page: Callable[..., Page],
    size: tuple[int, int],
    opponents: int,
    make_view: Callable[[int], dict],
) -> None:
    # A browser window on a 768-900 px tall laptop screen: the 470 px ellipse of the felt above
    # your area put the hand below the fold, so every turn meant scrolling to the cards.
    width, height = size
    page = make_page(viewport={"width": width, "height": height}, locale="fi-FI")
    site = FakeSite(page, many_seats(make_view(now_ms()), opponents))
    site.open_room(lang="fi")
    _fits_without_scrolling(page, width, height)


@pytest.mark.parametrize("opponents", [1, 3, 4, 6, 9])
@pytest.mark.parametrize("size", [(390, 844), (844, 390)])
@pytest.mark.parametrize("make_view", [fv.classic_view, fv.challenge_view])
def test_a_phone_shows_the_piles_the_moves_and_the_hand_with_many_opponents_without_scrolling(
    make_page: Callable[..., Page],
    size: tuple[int, int],
    opponents: int,
    make_view: Callable[[int], dict],
) -> None:
    # Every opponent was a 95 px tile in 3 columns: with 4-9 of them the hand (upright) or the
    # piles (sideways) fell below the fold, so every turn meant a scroll between pile and hand.
    width, height = size
    page = make_page(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    site = FakeSite(page, many_seats(make_view(now_ms()), opponents))
    site.open_room()
    _fits_without_scrolling(page, width, height)
    # The compact tiles keep each seat's name and count, and the Catch button a touch target.
    for seat in range(1, opponents + 1):
        expect(page.get_by_test_id(f"seat-{seat}-count")).to_be_visible()
    catch = page.get_by_test_id("catch-1")
    if catch.count():
        assert catch.bounding_box()["height"] >= 32


@pytest.mark.parametrize("lang", ["fi", "fa", "tr"])
@pytest.mark.parametrize("size", [(390, 844), (844, 390)])
def test_a_phones_compact_seats_keep_long_names_and_badges_in_their_column(
    make_page: Callable[..., Page], size: tuple[int, int], lang: str
) -> None:
    # A long name or an Away badge made a compact tile wider than its column: the page scrolled
    # sideways and the draw pile left the screen; Turkish moves took two lines beside the hand.
    width, height = size
    page = make_page(
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
        locale={"fi": "fi-FI", "fa": "fa-IR", "tr": "tr-TR"}[lang],
    )
    view = many_seats(fv.classic_view(now_ms()), 9)
    view["seats"][2].update(bot=True)
    view["seats"][3].update(connected=False, afk=True)
    view["seats"][4].update(uno=True, hand_count=1)
    view["seats"][5].update(name="Maximiliana-Josefina Korhonen")
    view["state"]["turn"] = 6
    view["state"]["deadlines"]["turn"] = {"seat": 6, "at": now_ms() + 20_000}
    view["you"]["moves"].update(play=[], draw=True, uno=True)
    site = FakeSite(page, view)
    site.open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.evaluate(LAPTOP_FOLD)
    assert box["scrolled"] == 0, box
    assert {"discard", "draw-pile", "turn-status", "hand-0"} <= box["seen"].keys(), box
    for name, (left, top, right, bottom) in box["seen"].items():
        assert left >= 0 and top >= 0 and right <= width and bottom <= height, (name, box)


def test_tournament_errors_are_said_in_the_pages_language(
    make_page: Callable[..., Page], console_errors: ConsoleErrors
) -> None:
    # The tournament page showed the server's English message for a code missing from the
    # catalogs ("tournaments cannot be reached now, retry" on a Persian page), and the
    # server's English reason why a tournament stopped.
    console_errors.expect_message("503")
    page = make_page(locale="fa-IR")
    data = registering(2)
    data["error"] = "a table's room was lost"
    FakeTournament(page, data)
    page.route(
        f"{ORIGIN}/api/tournaments/{CODE}/entrants",
        lambda route: route.fulfill(
            status=503,
            json={"error": {"code": "unavailable", "message": "tournaments cannot be reached"}},
        ),
    )
    open_tournament(page, lang="fa")
    expect(page.get_by_test_id("tour-stopped")).to_have_text(
        "مسابقات متوقف شد: یکی از میزها قابل بازی نبود."
    )
    page.get_by_test_id("tour-name").fill("Darius")
    page.get_by_test_id("tour-enter").click()
    expect(page.get_by_test_id("tour-enter-error")).to_have_text(
        "سرور الان مشغول است. کمی بعد دوباره امتحان کنید."
    )


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_the_deal_shows_the_table_from_its_top(make_page: Callable[..., Page]) -> None:
    # A guest reading the rules at the bottom of the lobby when the host dealt was left at the
    # bottom of the table: scores, log and chat on the screen, the piles and the hand above it.
    page = make_page(**PHONE)
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    page.get_by_test_id("lobby-next_round_seconds").scroll_into_view_if_needed()
    assert page.evaluate("scrollY") > 1000
    site.push_event({"kind": "round_started", "round": 1}, fv.classic_view(now_ms()))
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("discard")).to_be_in_viewport()
    assert page.evaluate("scrollY") == 0


def test_the_focus_stays_in_the_page_when_its_screen_changes(
    make_page: Callable[..., Page],
) -> None:
    # Start pressed by keyboard went with the lobby, and the focus with it (to nothing): a
    # screen reader had nothing to read on from.
    page = make_page()
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.open_room()
    page.get_by_test_id("start-btn").focus()
    page.keyboard.press("Enter")
    site.push_event({"kind": "round_started", "round": 1}, fv.classic_view(now_ms()))
    expect(page.get_by_test_id("table")).to_be_visible()
    assert page.evaluate("document.getElementById('app').contains(document.activeElement)")
    # Tab goes on into the table.
    page.keyboard.press("Tab")
    assert page.evaluate("!!document.activeElement.closest('[data-testid=table]')")


def test_a_tournament_table_lobby_has_no_host_controls(make_page: Callable[..., Page]) -> None:
    # The entrant in a tournament table's host seat was offered Start (dealing in the others
    # before they came), Add bot, Remove and the rules, which the tournament puts back; the
    # others read "Waiting for the host to start" while the tournament deals the table.
    page = make_page(locale="tr-TR", **PHONE)
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("start-btn")).to_be_visible()  # an ordinary room's host
    page.evaluate(
        "(() => { const s = JSON.parse(localStorage.getItem('uno.session.FAKEROOM'));"
        " s.tournament = 'TOUR1'; localStorage.setItem('uno.session.FAKEROOM', JSON.stringify(s));"
        " })()"
    )
    page.reload()
    expect(page.get_by_test_id("lobby-wait")).to_have_text(
        "Turnuva bu masayı tüm oyuncular gelince ya da kısa bir beklemeden sonra dağıtır."
    )
    expect(page.get_by_test_id("tournament-link")).to_have_attribute("href", "/t/TOUR1")
    for testid in ("start-btn", "add-bot", "remove-bot-1", "remove-seat-2"):
        expect(page.get_by_test_id(testid)).to_have_count(0)
    expect(page.get_by_test_id("lobby-variant")).to_be_disabled()
    expect(page.get_by_test_id("lobby-target_score")).to_be_disabled()


FIELD_LOOK = """(ids) => ids.map((id) => {
  const s = getComputedStyle(document.querySelector(`[data-testid=${id}]`));
  return [s.backgroundColor, s.color];
})"""


def test_read_only_settings_all_look_read_only(make_page: Callable[..., Page]) -> None:
    # Not the host: the selects were greyed out, but the number fields stayed white with black
    # figures, as if they could be typed into.
    view = fv.lobby_view(now_ms())
    view["you"] = {"seat": 2, "hand": [], "moves": {"play": []}}
    page = make_page()
    site = FakeSite(page, view)
    site.open_room()
    expect(page.get_by_test_id("lobby-wait")).to_be_visible()
    number, select = page.evaluate(FIELD_LOOK, ["lobby-target_score", "lobby-variant"])
    assert number == select
    site.view = fv.lobby_view(now_ms())  # the host's, as the page is reloaded
    page.reload()
    expect(page.get_by_test_id("start-btn")).to_be_visible()
    (enabled,) = page.evaluate(FIELD_LOOK, ["lobby-target_score"])
    assert enabled != number


def test_no_card_flies_over_the_rounds_summary(make_page: Callable[..., Page]) -> None:
    # The winning card (and draws queued behind it) flew across the summary as it opened.
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    page.evaluate(
        """() => {
            window.__flights = 0;
            new MutationObserver((records) => {
                for (const r of records) for (const n of r.addedNodes) {
                    if (n.classList?.contains('flying')) window.__flights += 1;
                }
            }).observe(document.body, { childList: true, subtree: true });
        }"""
    )
    over = fv.classic_view(now_ms())
    over["status"] = "round_over"
    over["you"]["moves"] = {"play": []}
    site.push_events(
        [
            {"kind": "card_played", "seat": 1, "card": fv.card(50, "red", "number", 5)},
            {"kind": "card_drawn", "seat": 2, "count": 2},
            fv.round_ended_event(),
        ],
        over,
    )
    expect(page.get_by_test_id("round-summary")).to_be_visible()
    # The first flight leaves as the frame is rendered (the next ones are refused the same way).
    page.wait_for_function("(window.__unoMotion || []).includes('round_ended')")
    assert page.evaluate("window.__flights") == 0


def test_copy_invite_without_the_clipboard_api_copies_or_shows_the_link(
    make_page: Callable[..., Page],
) -> None:
    # Over plain http (a server on the home network) there is no navigator.clipboard: the
    # lobby said "copied" having only selected its field, and the table did nothing at all.
    page = make_page(**PHONE)
    page.add_init_script(
        """
        Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });
        window.__copied = [];
        const real = document.execCommand.bind(document);
        document.execCommand = (cmd, ...rest) => {
            if (cmd === 'copy') window.__copied.push(document.activeElement.value);
            return window.__refuse ? false : real(cmd, ...rest);
        };
        """
    )
    room = "VAYCU3xQw1OkTgpA6zM-vw"  # a real room code's length: the link is one long word
    view = fv.classic_view(now_ms())
    view["room"] = room
    site = FakeSite(page, view)
    site.open_room(room)
    page.get_by_test_id("copy-invite").click()
    expect(page.get_by_test_id("toast")).to_have_text("Invite link copied")
    assert page.evaluate("window.__copied") == [f"{ORIGIN}/r/{room}"]
    page.evaluate("window.__refuse = true")
    page.get_by_test_id("copy-invite").click()
    shown = page.get_by_test_id("toast").last
    expect(shown).to_contain_text(f"{ORIGIN}/r/{room}")
    box = shown.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box


def test_a_challenge_takes_the_focus_unless_one_is_typing(make_page: Callable[..., Page]) -> None:
    # From the hand, a keyboard player had to find Challenge and Accept with Tab (the
    # shortcuts are off under the question) while its 10 seconds ran.
    page = make_page()
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    page.get_by_test_id("card-1").focus()
    site.push_event({"kind": "challenge_opened", "seat": 0, "offender": 3}, fv.challenge_view())
    expect(page.get_by_test_id("challenge-btn")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("accept-btn")).to_be_focused()
    page.keyboard.press("Enter")
    wait_sent(page, site, "accept")
    # Typing in the chat when the question comes: the text field keeps the focus.
    site.push_event({"kind": "turn_passed", "seat": 3}, fv.classic_view(now_ms()))
    expect(page.get_by_test_id("challenge-dialog")).to_have_count(0)
    page.get_by_test_id("chat-input").fill("hold on")
    site.push_event({"kind": "challenge_opened", "seat": 0, "offender": 3}, fv.challenge_view())
    expect(page.get_by_test_id("challenge-dialog")).to_be_visible()
    expect(page.get_by_test_id("chat-input")).to_be_focused()


def test_a_phone_offers_no_keyboard_shortcuts(make_page: Callable[..., Page]) -> None:
    page = make_page(**PHONE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("draw-btn")).to_be_visible()
    expect(page.get_by_test_id("keys-btn")).to_be_hidden()
    laptop = make_page()
    FakeSite(laptop, fv.classic_view(now_ms())).open_room()
    expect(laptop.get_by_test_id("keys-btn")).to_be_visible()


CONTRAST = """(el) => {
  const rgb = (c) => {
    const v = c.match(/[\\d.]+/g).map(Number);
    return v.length < 4 ? [...v, 1] : v;
  };
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  // A background at most half opaque (the table's panels are white at 8%) shows the one below.
  const clear = (e) => { const c = rgb(getComputedStyle(e).backgroundColor); return c[3] < 0.5; };
  let bg = el;
  while (bg && clear(bg)) bg = bg.parentElement;
  const a = lum(rgb(getComputedStyle(el).color));  // lum reads r, g, b and ignores alpha
  const b = lum(rgb(getComputedStyle(bg || document.body).backgroundColor));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


def test_text_on_the_dark_table_is_readable(make_page: Callable[..., Page]) -> None:
    # "Leave? A bot plays for you until the game ends." was dark grey on the dark green.
    page = make_page(**PHONE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    page.get_by_test_id("leave-btn").click()
    question = page.get_by_test_id("leave-ask").locator("span")
    expect(question).to_be_visible()
    assert question.evaluate(CONTRAST) >= 4.5
    # And "(you)" beside your name above the hand (2:1).
    assert page.get_by_test_id("seat-0").locator(".muted").evaluate(CONTRAST) >= 4.5


LABEL_AND_SYMBOL = """() => [...document.querySelectorAll('[data-testid=hand] .card')].map((c) => {
  const label = c.querySelector('.ctext').getBoundingClientRect();
  const symbol = c.querySelector('.oval').getBoundingClientRect();
  const apart = label.top >= symbol.bottom || label.bottom <= symbol.top
    || label.left >= symbol.right || label.right <= symbol.left;
  return { name: c.getAttribute('aria-label'), text: c.querySelector('.ctext').innerText,
    apart, label: [label.top, label.bottom], symbol: [symbol.top, symbol.bottom] };
})"""


@pytest.mark.parametrize(
    ("locale", "names"),
    [
        ("fi-FI", ["Keltainen suunnanvaihto", "Vihreä nosta kaksi", "Villi nosta neljä"]),
        ("tr-TR", ["Sarı Yön değiştir", "Yeşil +2 Çek", "Joker +4"]),
        ("en-US", ["Yellow Reverse", "Green Draw Two", "Wild Draw Four"]),
        ("fa-IR", ["برعکس", "دو بردار", "وحشی چهار بردار"]),
    ],
)
def test_a_phone_cards_label_does_not_cover_its_symbol(
    make_page: Callable[..., Page], locale: str, names: list[str]
) -> None:
    # "SUUNNAN|VAIHTO|KELTAINEN" and Turkish "YÖN|DEĞİŞTİR|KIRMIZI", three lines on a phone's
    # 54 px card, covered the bottom of the symbol's oval.
    page = make_page(locale=locale, **PHONE)
    view = fv.classic_view(now_ms())
    view["you"]["hand"] = [
        fv.card(1, "yellow", "reverse"),
        fv.card(2, "green", "draw2"),
        fv.card(3, None, "wild_draw4"),
        fv.card(4, "red", "reverse"),
        fv.card(5, "blue", "draw2"),
        fv.card(6, "red", "skip"),
    ]
    view["you"]["moves"]["play"] = []
    FakeSite(page, view).open_room(lang=locale[:2])
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(6)
    cards = page.evaluate(LABEL_AND_SYMBOL)
    assert [c for c in cards if not c["apart"]] == [], cards
    # The accessible name stays whole: the kind and the color.
    labels = [c["name"] for c in cards]
    for name in names:
        assert any(name in label.replace("\u2068", "").replace("\u2069", "") for label in labels), (
            name,
            labels,
        )
