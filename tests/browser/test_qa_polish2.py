"""What a second QA pass of the web client found, on hand-made views (no server): "null" on the
match page, long names at a phone's table, the rules at the table and what a settings change
changed, the offline pill clearing, the round summary's points left in each hand, the Turkish
invite row, the name field's limit, card names, and the live region and the bot's label in
every language. The same with the real server: test_qa_polish2_live.py."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import now_ms
from tests.browser.fake_site import ORIGIN, FakeSite

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LOCALES = {"en": "en-US", "tr": "tr-TR", "fi": "fi-FI", "fa": "fa-IR"}


def open_match(page: Page, record: dict[str, Any], lang: str) -> None:
    site = FakeSite(page, fv.lobby_view(now_ms()))
    site.routes = {"/api/matches/m1": (200, record)}
    page.goto(f"{ORIGIN}/")
    page.evaluate(f"localStorage.setItem('uno.lang', '{lang}')")
    page.goto(f"{ORIGIN}/m/m1")
    expect(page.get_by_test_id("match-status")).to_be_visible()


def abandoned_record() -> dict[str, Any]:
    """An abandoned match under scoring none: no winner, a player the record names not, null
    points and scores."""
    return {
        "match_id": "m1",
        "room": None,
        "status": "abandoned",
        "settings": {"scoring": "none", "target_score": 500},
        "players": [
            {"seat": 0, "player_id": "p0", "name": None},
            {"seat": 1, "player_id": "bot-1", "name": "Bot 2"},
        ],
        "rounds": [
            {"number": 1, "winner": 1, "points": [None, None], "ended_at": 1},
            {"number": 2, "winner": None, "points": None, "ended_at": 2},
        ],
        "scores": [None, None],
        "winner": None,
    }


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_match_page_never_shows_null(make_page: Callable[..., Page], lang: str) -> None:
    page = make_page(locale=LOCALES[lang], **PHONE)
    open_match(page, abandoned_record(), lang)
    body = page.get_by_test_id("match-page")
    # The page read "null" under its status line: a missing winner was written as text.
    expect(body).not_to_contain_text("null")
    html = body.evaluate("el => el.outerHTML")
    assert "null" not in html, html
    # The player without a name is "Seat 1"; the abandoned match says so, not "In progress".
    seat1 = "Seat 1" if lang == "en" else "صندلی ۱"
    expect(page.get_by_test_id("rounds-table").locator("thead")).to_contain_text(seat1)
    expect(page.get_by_test_id("match-status")).to_contain_text(
        "Abandoned after 2 rounds" if lang == "en" else "نیمه‌کاره"
    )
    # No points under scoring none: the table counts the rounds won, no chart of flat lines.
    expect(page.get_by_test_id("score-chart")).to_have_count(0)
    expect(page.get_by_test_id("total-1")).to_have_text("1" if lang == "en" else "۱")
    expect(page.get_by_test_id("total-0")).to_have_text("0" if lang == "en" else "۰")


def test_a_match_record_with_nothing_in_it_shows_no_null(make_page: Callable[..., Page]) -> None:
    page = make_page(**PHONE)
    record = {
        "match_id": "m1",
        "room": None,
        "status": "running",
        "settings": None,
        "players": [],
        "rounds": [],
        "scores": None,
        "winner": None,
    }
    open_match(page, record, "en")
    expect(page.get_by_test_id("match-page")).to_contain_text("No round has ended yet.")
    assert "null" not in page.get_by_test_id("match-page").evaluate("el => el.outerHTML")
    # One round: "1 round", not "1 rounds".
    record.update(
        players=[{"seat": 0, "player_id": "p0", "name": "Ayşe"}],
        rounds=[{"number": 1, "winner": 0, "points": [12], "ended_at": 1}],
        scores=[12],
        status="finished",
        winner=0,
        settings={"scoring": "winner_collects", "target_score": 10},
    )
    other = make_page(**PHONE)
    open_match(other, record, "en")
    expect(other.get_by_test_id("match-status")).to_have_text("Finished after 1 round.")
    expect(other.get_by_test_id("match-page-winner")).to_contain_text("Ayşe wins the match!")
    label = other.get_by_test_id("score-chart").locator("svg").get_attribute("aria-label") or ""
    assert label == "Scores over the rounds: Ayşe 12", label


LONG = ["Alexandrina Montgomery-Smith 1", "Alexandrina Montgomery-Smith 2"]


@pytest.mark.parametrize("opponents", [2, 3])
def test_long_names_at_a_phone_table_keep_their_ends_and_the_whole_name(
    make_page: Callable[..., Page], artifacts: Any, opponents: int
) -> None:
    page = make_page(**PHONE)
    view = fv.classic_view(now_ms())
    view["seats"] = view["seats"][: opponents + 1]
    for i, name in enumerate([*LONG, "Alexandrina Montgomery-Smith 3"][:opponents], 1):
        view["seats"][i].update(name=name, bot=False, player_id=f"p{i}")
    site = FakeSite(page, view)
    site.open_room()
    # Both were cut to "Alexandrina…": two players could not be told apart.
    for seat, name in ((1, LONG[0]), (2, LONG[1])):
        el = page.get_by_test_id(f"seat-{seat}-name")
        expect(el).to_have_attribute("title", name)
        expect(el).to_have_text(name)  # the text is whole; only CSS draws the ellipsis
        expect(page.get_by_test_id(f"seat-{seat}")).to_have_attribute(
            "aria-label", re.compile(f"^{name}, ")
        )
        tail = el.locator(".fit-tail")
        expect(tail).to_have_text(name[-6:])
        fits = tail.evaluate(
            """(t) => {
                const r = t.getBoundingClientRect();
                const box = t.closest('[data-testid^=seat-]').getBoundingClientRect();
                return t.scrollWidth <= t.clientWidth + 1 && r.width > 0
                    && r.left >= box.left && r.right <= box.right;
            }"""
        )
        assert fits, f"the end of {name!r} is not in sight"
    # The recent plays name the player the same way.
    site.push_event(
        {"kind": "card_played", "seat": 2, "card": fv.card(41, "red", "number", 3)}, view
    )
    recent = page.get_by_test_id("recent-plays").locator(".recent-name").last
    expect(recent).to_have_attribute("title", LONG[1])
    expect(recent.locator(".fit-tail")).to_be_visible()
    page.screenshot(path=str(artifacts / f"long-names-{opponents}.png"))


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_table_shows_the_rooms_rules_from_a_button_beside_your_name(
    make_page: Callable[..., Page], artifacts: Any, lang: str
) -> None:
    page = make_page(locale=LOCALES[lang], **PHONE)
    view = fv.classic_view(now_ms())
    view["settings"].update(seven_zero=True, uno_penalty=4)
    FakeSite(page, view).open_room(lang=lang)
    rules = page.get_by_test_id("rules-summary")
    expect(rules.locator("dl")).not_to_be_visible()  # folded until asked for
    button = page.get_by_test_id("rules-btn")
    expect(button).to_be_visible()
    # The button sits in your area: the hand's first row is still in sight under it.
    hand = page.get_by_test_id("hand").bounding_box()
    assert hand and hand["y"] < 844, hand
    button.click()
    expect(rules.locator("dl")).to_be_visible()
    expect(rules).to_be_in_viewport()
    expect(button).to_have_attribute("aria-expanded", "true")
    if lang == "en":
        expect(rules.get_by_test_id("rule-variant")).to_contain_text("Classic")
        expect(rules.get_by_test_id("rule-seven_zero")).to_contain_text("On (not standard)")
        expect(rules.get_by_test_id("rule-uno_penalty")).to_contain_text("4 (not standard)")
        expect(rules.get_by_test_id("rule-jump_in")).to_contain_text("Off")
        expect(rules.get_by_test_id("rules-toggle")).to_contain_text("2 not standard")
    else:
        expect(rules.get_by_test_id("rule-uno_penalty")).to_contain_text("۴")
        expect(rules.get_by_test_id("rule-seven_zero")).to_contain_text("روشن")
    # Settings of another variant are left out; Flip's own are there in Flip.
    expect(rules.get_by_test_id("rule-flip_discard")).to_have_count(0)
    page.screenshot(path=str(artifacts / f"rules-summary-{lang}.png"))


def test_a_settings_change_says_what_changed(make_page: Callable[..., Page]) -> None:
    # A player who is not the host: the lobby has no log, a toast says it.
    page = make_page()
    lobby = fv.lobby_view(now_ms())
    lobby["you"] = {"seat": 2, "hand": [], "moves": {"play": []}}
    site = FakeSite(page, lobby)
    site.open_room()
    after = {**lobby, "settings": {**lobby["settings"], "uno_penalty": 4, "jump_in": True}}
    site.push_event({"kind": "settings_changed", "settings": after["settings"]}, after)
    # It said "Settings changed", not which.
    expect(page.get_by_test_id("toast")).to_have_text(
        "Settings changed — Jump-in with an identical card: Off → On, Cards for a missed UNO: 2 → 4"
    )
    # The host, who made the change, is not toasted; the live region says it; so does the log
    # at the table, in the language picked later.
    host = make_page()
    hsite = FakeSite(host, fv.lobby_view(now_ms()))
    hsite.open_room()
    flip = {**lobby, "you": fv.lobby_view()["you"]}
    flip["settings"] = {**lobby["settings"], "variant": "flip"}
    hsite.push_event({"kind": "settings_changed", "settings": flip["settings"]}, flip)
    expect(host.get_by_test_id("live")).to_contain_text(
        "Settings changed — Variant: Classic → Flip"
    )
    expect(host.get_by_test_id("toast")).to_have_count(0)
    table = fv.classic_view(now_ms())
    table["settings"]["variant"] = "flip"
    hsite.push_event({"kind": "round_started", "round": 1, "dealer": 1}, table)
    host.get_by_test_id("lang").select_option("fi")
    expect(host.get_by_test_id("event-log")).to_contain_text(
        "Asetukset muuttuivat — Muunnelma: Klassinen → Flip"
    )


@pytest.mark.parametrize("lang", ["en", "fi", "fa"])
def test_the_round_summary_labels_each_hands_points(
    make_page: Callable[..., Page], artifacts: Any, lang: str
) -> None:
    page = make_page(locale=LOCALES[lang], **PHONE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    over = fv.classic_view(now_ms())
    over["status"] = "round_over"
    site.push_event(fv.round_ended_event(), over)
    summary = page.get_by_test_id("round-summary")
    expect(summary).to_be_visible()
    # Blue 9, a Wild, a Skip: what each hand left is worth, labeled; they add up to the
    # winner's 79 (winner collects), which the caption explains.
    worth = {
        "en": ["0 pts left", "9 pts left", "50 pts left", "20 pts left"],
        "fi": ["0 p jäljellä", "9 p jäljellä", "50 p jäljellä", "20 p jäljellä"],
        "fa": ["۰ امتیاز مانده", "۹ امتیاز مانده", "۵۰ امتیاز مانده", "۲۰ امتیاز مانده"],
    }[lang]
    for seat, text in enumerate(worth):
        expect(page.get_by_test_id(f"summary-hand-points-{seat}")).to_have_text(text)
    headers = summary.locator(".summary-table thead th")
    expect(headers).to_have_count(4)
    for i in range(4):
        assert (headers.nth(i).inner_text() or "").strip(), "a column without a label"
    if lang == "en":
        expect(headers).to_have_text(["Player", "Cards left", "Round points", "Total"])
        expect(page.get_by_test_id("summary-how")).to_have_text(
            "The round's winner scores the points of the cards left in every other hand."
        )
    # The table fits the phone: the Total column is not cut off.
    total = page.get_by_test_id("summary-total-3").bounding_box()
    panel = summary.bounding_box()
    assert total and panel and total["x"] + total["width"] <= panel["x"] + panel["width"], (
        total,
        panel,
    )
    page.screenshot(path=str(artifacts / f"summary-hand-points-{lang}.png"))


def test_each_hands_points_are_the_servers_and_an_older_server_shows_none(
    make_page: Callable[..., Page],
) -> None:
    # The figure is the event's `hand_points` (the engine counts a Flip hand on the side in
    # play, tests/engine/test_rule_26_flip_scoring.py); the page keeps no copy of the card
    # values. An older server's event has no such field: no figure rather than a guess.
    page = make_page()
    site = FakeSite(page, fv.flip_view(now_ms()))
    site.open_room()
    over = fv.flip_view(now_ms())
    over["status"] = "round_over"
    event = fv.round_ended_event()

    def face(c: str | None, k: str, v: int | None = None) -> dict[str, Any]:
        return {
            "id": 0,
            "face": {"color": c, "kind": k, "value": v},
            "color": c,
            "kind": k,
            "value": v,
        }

    event["hands"] = [
        [],
        [face("teal", "skip_everyone"), face(None, "wild_draw_color")],
        [face("pink", "number", 7)],
        [],
    ]
    event["points"] = [97, 0, 0, 0]
    event["hand_points"] = [0, 90, 7, 0]
    site.push_event(event, over)
    expect(page.get_by_test_id("summary-hand-points-1")).to_have_text("90 pts left")
    expect(page.get_by_test_id("summary-hand-points-2")).to_have_text("7 pts left")
    expect(page.get_by_test_id("summary-hand-points-0")).to_have_text("0 pts left")

    older = {**event, "round": 2}
    del older["hand_points"]
    site.push_event(older, over)
    expect(page.get_by_test_id("round-summary").locator("h2")).to_have_text("Round 2 over")
    expect(page.get_by_test_id("summary-seat-1").locator(".mini-hand .card")).to_have_count(2)
    expect(page.locator(".hand-points")).to_have_count(0)


@pytest.mark.parametrize("lang", ["tr", "fi", "fa"])
def test_the_invite_link_and_its_button_fit_a_phone_in_every_language(
    make_page: Callable[..., Page], artifacts: Any, lang: str
) -> None:
    page = make_page(locale=LOCALES[lang], **PHONE)
    FakeSite(page, fv.lobby_view(now_ms())).open_room(lang=lang)
    field = page.get_by_test_id("invite-url")
    button = page.get_by_test_id("copy-invite")
    # Turkish squeezed the link to "http://uno.t" beside "Davet bağlantısını kopyala".
    box = field.bounding_box()
    assert box and box["width"] >= 200, box
    expect(button).to_have_text({"tr": "Kopyala", "fi": "Kopioi", "fa": "رونوشت"}[lang])
    expect(button).to_have_attribute(
        "aria-label",
        {"tr": "Davet bağlantısını kopyala", "fi": "Kopioi kutsulinkki", "fa": "رونوشت پیوند دعوت"}[
            lang
        ],
    )
    for el in (field, button):
        fits = el.evaluate(
            "e => { const r = e.getBoundingClientRect();"
            " return r.left >= 0 && r.right <= innerWidth"
            " && (e.tagName === 'INPUT' || e.scrollWidth <= e.clientWidth + 1); }"
        )
        assert fits, el
    page.screenshot(
        path=str(artifacts / f"invite-{lang}.png"),
        clip={"x": 0, "y": 0, "width": 390, "height": 300},
    )


@pytest.mark.parametrize(
    ("lang", "count", "full"),
    [
        ("en", "32 of 32 characters", "A name can have at most 32 characters."),
        ("tr", "32 / 32 karakter", "Ad en fazla 32 karakter olabilir."),
        ("fi", "32 / 32 merkkiä", "Nimessä voi olla enintään 32 merkkiä."),
        ("fa", "۳۲ از ۳۲ نویسه", "نام حداکثر ۳۲ نویسه می‌تواند داشته باشد."),
    ],
)
def test_the_name_field_shows_its_limit(
    make_page: Callable[..., Page], lang: str, count: str, full: str
) -> None:
    page = make_page(locale=LOCALES[lang], **PHONE)
    FakeSite(page, fv.lobby_view(now_ms()))
    page.goto(f"{ORIGIN}/")
    page.evaluate(f"localStorage.setItem('uno.lang', '{lang}')")
    page.goto(f"{ORIGIN}/")
    field = page.get_by_test_id("create-name")
    field.fill("")
    # The limit shows before it is reached, and the field is described by it.
    expect(page.get_by_test_id("create-name-count")).to_contain_text("۳۲" if lang == "fa" else "32")
    described = (field.get_attribute("aria-describedby") or "").split()
    assert "create-name-limit" in described, described
    field.type("Ali")
    expect(page.get_by_test_id("create-name-count")).to_contain_text("3" if lang != "fa" else "۳")
    expect(page.get_by_test_id("create-name-full")).to_have_text("")
    # Typing on past 32 stopped without a word: it says why now (a family emoji counts one).
    field.fill("")
    field.type("👨‍👩‍👧" + "x" * 34)
    assert field.input_value() == "👨‍👩‍👧" + "x" * 31
    expect(page.get_by_test_id("create-name-count")).to_have_text(count)
    expect(page.get_by_test_id("create-name-full")).to_have_text(full)


def test_the_tournament_name_fields_show_the_limit_too(make_page: Callable[..., Page]) -> None:
    page = make_page(locale="tr-TR")
    FakeSite(page, fv.lobby_view(now_ms()))
    page.goto(f"{ORIGIN}/")
    page.evaluate("localStorage.setItem('uno.lang', 'tr')")
    page.goto(f"{ORIGIN}/")
    page.get_by_test_id("host-tour-open").click()
    field = page.get_by_test_id("host-tour-host-name")
    field.fill("")
    field.type("y" * 33)
    expect(page.get_by_test_id("host-tour-host-name-count")).to_have_text("32 / 32 karakter")
    expect(page.get_by_test_id("host-tour-host-name-full")).to_have_text(
        "Ad en fazla 32 karakter olabilir."
    )


KINDS = [
    "number", "skip", "reverse", "draw2", "wild", "wild_draw4", "wild_shuffle", "wild_custom",
    "wild_skip", "wild_skip2", "wild_reverse", "wild_draw2", "wild_targeted_draw2",
    "wild_forced_swap", "draw1", "flip", "draw5", "skip_everyone", "wild_draw_color",
]  # fmt: skip

CARD_NAMES = """async ([lang, kinds]) => {
  const c = await import('/assets/core.js');
  await c.setLanguage(lang);
  const out = [];
  for (const k of kinds) {
    const wild = k.startsWith('wild');
    const value = k === 'number' ? 7 : null;
    out.push(c.cardName({ color: wild ? null : 'green', kind: k, value }));
    if (wild) out.push(c.cardName({ color: null, kind: k, value: null }, 'blue'));
  }
  out.push(c.cardName({ color: null, kind: 'wild_custom', effect: 'next_draws', n: 3 }, 'red'));
  const swap = { color: null, kind: 'wild_custom', effect: 'swap_hands', label: 'Swap!' };
  out.push(c.cardName(swap, 'red'));
  out.push(c.cardName({ color: 'red', kind: 'some_new_kind', value: null }));
  return out.map((x) => x.replace(/[\\u2068\\u2069]/g, ''));
}"""


@pytest.mark.parametrize(
    ("lang", "examples"),
    [
        ("en", ["Green 7", "Wild Draw Four", "Blue Wild Draw Four", "Green Skip"]),
        ("tr", ["Yeşil 7", "Joker +4", "Mavi Joker +4", "Yeşil Pas"]),
        # Finnish says the kind in lower case after its color ("Vihreä Ohitus" read oddly).
        ("fi", ["Vihreä 7", "Villi nosta neljä", "Sininen villi nosta neljä", "Vihreä ohitus"]),
        # Persian puts the color after the card, the Customizable one too ("آبی وحشی سفارشی").
        ("fa", ["۷ سبز", "وحشی چهار بردار", "وحشی چهار بردار آبی", "وحشی سفارشی آبی"]),
    ],
)
def test_every_cards_name_reads_naturally_without_codes(
    make_page: Callable[..., Page], lang: str, examples: list[str]
) -> None:
    page = make_page()
    FakeSite(page, fv.lobby_view(now_ms()))
    page.goto(f"{ORIGIN}/")
    names = page.evaluate(CARD_NAMES, [lang, KINDS])
    for name in names:
        assert name.strip(), names
        assert not re.search(r"_|kind\.|effect\.|card\.|undefined|null|NaN|\{", name), name
    for example in examples:
        assert example in names, (example, names)
    # A kind this client does not know is "a card" in the page's language, not its code.
    assert names[-1] == {"en": "a card", "tr": "bir kart", "fi": "kortti", "fa": "یک کارت"}[lang]
    # A player's own label keeps its letters, whatever the language's case rule.
    assert any("Swap!" in n for n in names), names


BOT_WORDS = {
    "en": ("Bot", "Bot 2"),
    "tr": ("Bot", "Bot 2"),
    "fi": ("Botti", "Botti 2"),
    "fa": ("ربات", "ربات ۲"),
}


@pytest.mark.parametrize("lang", ["en", "tr", "fi", "fa"])
def test_the_live_region_and_the_bot_label_speak_the_pages_language(
    make_page: Callable[..., Page], lang: str
) -> None:
    page = make_page(locale=LOCALES[lang])
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    view = fv.classic_view(now_ms())
    events = [
        {"kind": "player_joined", "seat": 2, "name": "Bot 2", "player_id": "bot-2", "bot": True},
        {"kind": "bot_took_over", "seat": 3},
        {"kind": "card_played", "seat": 1, "card": fv.card(41, "blue", "number", 3)},
        {"kind": "uno_declared", "seat": 1},
        {"kind": "card_drawn", "seat": 2, "count": 2},
        {"kind": "timer_expired", "timer": "turn", "seat": 2},
    ]
    site.push_events(events, view)
    live = page.get_by_test_id("live")
    word, name = BOT_WORDS[lang]
    expect(live).to_contain_text(name)
    text = live.inner_text().replace("\u2068", "").replace("\u2069", "")
    # No catalog key, and no English in another language's page.
    assert not re.search(r"\b(ev|seat|timer|kind)\.\w", text), text
    if lang != "en":
        for english in ("played", "joined", "drew", "A bot plays", "said UNO", "Time's up"):
            assert english not in text, (english, text)
    if lang in ("fi", "fa"):
        assert not re.search(r"\bBot\b", text), text
    # A sentence ending in "!" is not followed by a second full stop.
    assert "!." not in text, text
    # The bot's badge at the table and its tile's name.
    expect(page.get_by_test_id("seat-2").locator(".badge").first).to_contain_text(word)
    expect(page.get_by_test_id("seat-2-name")).to_have_text(
        BOT_WORDS[lang][0] + (" 3" if lang != "fa" else " ۳")
    )
    # A tile's accessible name counts cards in the language's grammar ("1 kortti", not "1 korttia").
    one = {"en": "1 card", "tr": "1 kart", "fi": "1 kortti", "fa": "۱ کارت"}[lang]
    label = (
        (page.get_by_test_id("seat-1").get_attribute("aria-label") or "")
        .replace("\u2068", "")
        .replace("\u2069", "")
    )
    assert label.endswith(one), label


STATES = """() => {
  window.__connStates = [];
  const el = document.querySelector('[data-testid=conn]');
  new MutationObserver(() => window.__connStates.push(el.dataset.state))
    .observe(el, { attributes: true, attributeFilter: ['data-state'] });
}"""


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_header_says_offline_while_reconnecting_and_clears_when_back(
    make_page: Callable[..., Page], lang: str
) -> None:
    page = make_page(locale=LOCALES[lang], **PHONE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    pill = page.get_by_test_id("conn")
    expect(pill).to_have_attribute("data-state", "online")
    page.evaluate(STATES)
    # The server refuses every socket for a while: the page retries.
    page.route_web_socket("ws://uno.test/ws/rooms/*", lambda ws: ws.close(code=1011))
    site.sockets[-1].close(code=1012)
    expect(pill).to_have_attribute("data-state", "offline")
    offline = {"en": "Offline — reconnecting…", "fa": "قطع — در حال اتصال دوباره…"}[lang]
    expect(pill).to_have_attribute("title", offline)
    expect(pill).to_contain_text(offline[:6])
    expect(page.get_by_test_id("reconnect-btn")).to_be_visible()
    page.wait_for_timeout(2500)  # several refused attempts
    # Each attempt left the pill offline: it did not flicker to "Connecting…" and back.
    states = page.evaluate("window.__connStates")
    assert states and set(states) == {"offline"}, states
    expect(pill).to_be_in_viewport()
    # The server takes sockets again: the next attempt (or the button) brings the page back.
    page.route_web_socket("ws://uno.test/ws/rooms/*", site._socket)
    button = page.get_by_test_id("reconnect-btn")
    with contextlib.suppress(PlaywrightError):  # the page's own retry may win the race
        button.click(timeout=2000)
    expect(pill).to_have_attribute("data-state", "online")
    expect(pill).to_have_attribute("title", {"en": "Online", "fa": "متصل"}[lang])
    expect(page.get_by_test_id("reconnect-btn")).to_have_count(0)
    expect(pill).not_to_contain_text(offline[:6])


CHALLENGE_SIGHT = """() => {
  const prompt = document.querySelector('[data-testid=challenge-dialog]').getBoundingClientRect();
  const over = (r) => r.left < prompt.right && r.right > prompt.left
    && r.top < prompt.bottom && r.bottom > prompt.top;
  const cards = [...document.querySelectorAll('[data-testid=hand] .card')];
  const first = cards[0].getBoundingClientRect();
  const covered = cards.filter((c) => over(c.getBoundingClientRect()));
  return { covered: covered.map((c) => c.dataset.testid),
           first: first.top >= 0 && first.bottom <= innerHeight,
           prompt: prompt.top >= 0 && prompt.bottom <= innerHeight };
}"""


@pytest.mark.parametrize(
    ("lang", "size"), [("en", (390, 844)), ("fi", (360, 740)), ("fa", (390, 844))]
)
def test_the_challenge_question_and_the_hand_are_in_sight_when_scrolled_down(
    make_page: Callable[..., Page], lang: str, size: tuple[int, int]
) -> None:
    width, height = size
    page = make_page(
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
        locale=LOCALES[lang],
    )
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room(lang=lang)
    expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
    # Reading the log under the hand: the hand sits at the top of the screen, where the
    # question appears on a phone.
    page.get_by_test_id("hand").evaluate("el => el.scrollIntoView({ block: 'start' })")
    page.evaluate("window.scrollBy(0, -20)")
    site.push_event(
        {"kind": "challenge_opened", "seat": 0, "offender": 3}, fv.challenge_view(now_ms())
    )
    expect(page.get_by_test_id("challenge-btn")).to_be_focused()
    expect(page.get_by_test_id("accept-btn")).to_be_in_viewport(ratio=1)
    seen = page.evaluate(CHALLENGE_SIGHT)
    assert seen["covered"] == [] and seen["first"] and seen["prompt"], seen
