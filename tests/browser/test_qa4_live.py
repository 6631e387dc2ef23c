"""The fourth QA pass against the real server, on phones and in four languages: what a player
trips on in the rarely dealt situations (a stack they cannot answer, a jump-in, a challenge's
outcome, a 7 swapped with a right-to-left name, a toast on a phone, a page reloaded mid-round).
Every hand is rigged with the `dealer` and `deck_order` test hooks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ConsoleErrors
from tests.browser.scenario import DeckPicker, host_opens_a_room

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

Spec = tuple[str | None, str, int | None]


def _joins(page: Page, invite: str, name: str) -> None:
    page.goto(invite)
    page.get_by_test_id("join-name").fill(name)
    page.get_by_test_id("join-btn").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()


def _rig(
    host: Page,
    live_server: str,
    hands: Sequence[Sequence[Spec]],
    first: Spec,
    pile: Sequence[Spec] = (),
    **settings: Any,
) -> dict[int, list[int]]:
    """Deals `hands` (seat 0 first; the last seat deals, so seat 0 starts) on `first`, then
    `pile` on top of the draw pile, untimed; returns each seat's card ids. Waits until the
    host's lobby shows the settings."""
    room = re.search(r"/r/([^/?#]+)$", host.url).group(1)  # type: ignore[union-attr]
    cards = httpx.get(f"{live_server}/api/rooms/{room}/deck").json()["cards"]
    pick = DeckPicker(cards)
    ids = {seat: [pick.take(*spec) for spec in hand] for seat, hand in enumerate(hands)}
    order = [ids[seat][i] for i in range(7) for seat in range(len(hands))]
    order.append(pick.take(*first))
    order += [pick.take(*spec) for spec in pile]
    order += [int(c["id"]) for c in pick.left]
    chosen: dict[str, Any] = {
        "dealer": len(hands) - 1,
        "turn_seconds": 0,
        "bot_delay_ms": 20,
        "next_round_seconds": 0,
    }
    chosen.update(settings, deck_order=order)
    host.evaluate("s => window.uno.send({type: 'settings', settings: s})", chosen)
    expect(host.get_by_test_id("lobby-turn_seconds")).to_have_value("0")
    return ids


GREENS: list[Spec] = [("green", "number", v) for v in (1, 2, 3, 4, 5, 6)]
YELLOWS: list[Spec] = [("yellow", "number", v) for v in (1, 2, 3, 4, 5, 6)]


def _host_plays_an_illegal_wild_draw_four(host: Page, live_server: str) -> dict[int, list[int]]:
    """Rig a two-seat deal where the host holds a Wild Draw Four and a red card on a red top,
    start, and play the Wild Draw Four (blue) at once: the guest is asked to challenge. The
    dealt card ids, per seat."""
    ids = _rig(
        host,
        live_server,
        [
            [(None, "wild_draw4", None), ("red", "number", 1), *GREENS[:5]],
            [("blue", "number", 1), *YELLOWS],
        ],
        ("red", "number", 3),
        challenge_seconds=60,
    )
    host.get_by_test_id("start-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    host.get_by_test_id(f"card-{ids[0][0]}").click()
    host.get_by_test_id("pick-color-blue").click()
    return ids


def test_a_toast_on_a_phone_spans_the_screen_instead_of_half_of_it(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """The toast box was pinned at the middle of the screen (left: 50%) and so could be only
    half the screen wide: on a phone a settings change became a tall, narrow tower of text
    over the player's cards."""
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Ann")
    bob = pages("bob", locale="tr-TR", **PHONE)
    _joins(bob, invite, "Bob")
    host.evaluate(
        "() => window.uno.send({type: 'settings', settings: {uno_penalty: 4, turn_seconds: 0}})"
    )
    toast = bob.get_by_test_id("toast")
    expect(toast).to_contain_text("Ayarlar değişti")
    box = toast.bounding_box()
    assert box is not None
    # The text is longer than a line: the toast takes the screen's width less its margins.
    assert box["width"] >= 390 - 2 * 16 - 2, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    # A toast only tells: a tap on it reaches what it covers (on a phone, the hand at the
    # bottom of the screen, for up to 8 seconds).
    hit = bob.evaluate(
        """([x, y]) => !!document.elementFromPoint(x, y)?.closest('#toasts')""",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit is False


def test_a_seven_swapped_with_a_right_to_left_name_keeps_the_name_before_its_count(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """The 7-0 picker wrote "آیدا · 7 cards" as bare text: in an English page the bidi
    algorithm joined the number to the Persian name and showed "7 · آیدا cards"."""
    host = pages("host", **PHONE)
    invite = host_opens_a_room(host, live_server, "Ann")
    guest = pages("guest", locale="fa-IR")
    _joins(guest, invite, "آیدا")
    ids = _rig(
        host,
        live_server,
        [[("red", "number", 7), *GREENS], [("blue", "number", 7), *YELLOWS]],
        ("red", "number", 3),
        seven_zero=True,
    )
    host.get_by_test_id("start-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    host.get_by_test_id(f"card-{ids[0][0]}").click()
    target = host.get_by_test_id("pick-target-1")
    expect(target).to_contain_text("7 cards")
    # The name is isolated: its own direction, never its neighbours'.
    expect(target.locator("bdi")).to_have_text("آیدا")
    name = target.locator("bdi").bounding_box()
    count = host.evaluate(
        """() => {
          const b = document.querySelector('[data-testid=pick-target-1]');
          const walker = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const i = n.data.indexOf('7');
            if (i < 0 || n.parentElement.closest('bdi')) continue;
            const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
            return r.getBoundingClientRect().x;
          }
          return null;
        }"""
    )
    assert name is not None and count is not None
    assert name["x"] < count, (name, count)  # left to right: "آیدا · 7 cards"
    target.click()
    expect(guest.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")


def test_a_penalty_with_nothing_to_stack_says_take_the_cards(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """With stacking on, a Draw Two made the victim read "Stack a card or take the cards" even
    when no card of theirs could be stacked: they looked for a card to play that was not
    there. Now that line is only for a player who can stack."""
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Ann")
    fin = pages("fin", locale="fi-FI", **PHONE)
    _joins(fin, invite, "Mikko")
    ids = _rig(
        host,
        live_server,
        [
            [("red", "draw2", None), ("red", "draw2", None), *GREENS[:5]],
            [*YELLOWS, ("blue", "number", 1)],
        ],
        ("red", "number", 3),
        stack_draw2=True,
    )
    host.get_by_test_id("start-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    host.get_by_test_id(f"card-{ids[0][0]}").click()
    status = fin.get_by_test_id("turn-status")
    expect(status).to_have_attribute("data-mine", "true")
    expect(status).to_have_text("Ei pinottavaa: ota 2 korttia")
    expect(fin.get_by_test_id("draw-btn")).to_have_text("Ota 2 korttia")
    fin.get_by_test_id("draw-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")


def test_a_player_who_can_stack_is_still_asked_to_stack_or_take(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    host = pages("host", locale="tr-TR")
    invite = host_opens_a_room(host, live_server, "Ayşe")
    guest = pages("guest", locale="tr-TR", **PHONE)
    _joins(guest, invite, "Bora")
    ids = _rig(
        host,
        live_server,
        [[("red", "draw2", None), *GREENS], [("blue", "draw2", None), *YELLOWS]],
        ("red", "number", 3),
        stack_draw2=True,
    )
    host.get_by_test_id("start-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    host.get_by_test_id(f"card-{ids[0][0]}").click()
    status = guest.get_by_test_id("turn-status")
    expect(status).to_have_attribute("data-mine", "true")
    expect(status).to_have_text("Üstüne kart koy ya da kartları al")


def test_a_player_who_may_jump_in_is_told_so(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """A card that could jump in was only ringed in light blue: nothing on the screen said a
    newcomer could play out of turn. The status line now says it while it is so."""
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Ann")
    guest = pages("guest", locale="fa-IR", **PHONE)
    _joins(guest, invite, "آیدا")
    ids = _rig(
        host,
        live_server,
        [[("red", "number", 5), *GREENS], [("red", "number", 5), *YELLOWS]],
        ("red", "number", 3),
        jump_in=True,
    )
    host.get_by_test_id("start-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    host.get_by_test_id(f"card-{ids[0][0]}").click()
    # Ann's red 5 is on the pile; آیدا holds the other red 5.
    expect(guest.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    # On her own turn آیدا is not told to jump in; she draws and keeps the card.
    expect(guest.get_by_test_id("jump-in-hint")).to_have_count(0)
    guest.get_by_test_id("draw-btn").click()
    guest.get_by_test_id("pass-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    hint = guest.get_by_test_id("jump-in-hint")
    expect(hint).to_be_visible()
    expect(hint).to_have_text("با کارتِ مشخص‌شده می‌توانید وسط بپرید!")
    jump = guest.get_by_test_id(f"card-{ids[1][0]}")
    expect(jump).to_have_class(re.compile(r"\bjump\b"))
    jump.click()
    expect(hint).to_have_count(0)
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")


def test_the_outcome_of_a_challenge_is_shown_to_the_table_with_the_hand_to_the_challenger(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """The outcome of a Wild Draw Four challenge, and the hand it revealed to the challenger,
    were written only in the event log: on a phone, far below the table. A toast says it now."""
    host = pages("host", locale="tr-TR")
    invite = host_opens_a_room(host, live_server, "Ayşe")
    fin = pages("fin", locale="fi-FI", **PHONE)
    _joins(fin, invite, "Mikko")
    _host_plays_an_illegal_wild_draw_four(host, live_server)
    expect(fin.get_by_test_id("challenge-dialog")).to_be_visible()
    fin.get_by_test_id("challenge-btn").click()
    expect(fin.get_by_test_id("challenge-dialog")).to_have_count(0)
    said = fin.get_by_test_id("toast").filter(has_text="Haaste onnistui")
    expect(said).to_be_visible()
    expect(said).to_contain_text("Punainen 1")  # Ayşe's hand, shown to Mikko alone
    told = host.get_by_test_id("toast").filter(has_text="İtiraz haklı")
    expect(told).to_be_visible()
    expect(told).not_to_contain_text("Kırmızı 1")


def test_a_catch_is_told_to_the_catcher_and_the_caught(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """Tapping "Catch!" changed only a count on the table (1 card → 3): neither the catcher nor
    the player caught was told what happened, except far down the event log."""
    host = pages("host", locale="fa-IR", **PHONE)
    invite = host_opens_a_room(host, live_server, "آیدا")
    guest = pages("guest", locale="tr-TR", **PHONE)
    _joins(guest, invite, "Bora")
    others: list[Spec] = [
        (c, "number", v) for v in (8, 9) for c in ("green", "yellow", "blue") for _ in range(2)
    ]
    _rig(
        host,
        live_server,
        [[("red", "number", v) for v in range(1, 8)], others[:7]],
        ("red", "number", 0),
        pile=others[7:],
        uno_window_ms=30000,
    )
    host.get_by_test_id("start-btn").click()
    for played in range(1, 7):
        expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
        host.locator("[data-testid=hand] .card.legal").first.click()
        if played < 6:  # Bora draws an 8 or a 9 of another color, and his turn ends
            expect(guest.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
            guest.get_by_test_id("draw-btn").click()
    # آیدا is left with one card and said no UNO.
    guest.get_by_test_id("catch-0").click()
    expect(guest.get_by_test_id("seat-0-count")).to_contain_text("3")
    said = guest.get_by_test_id("toast").filter(has_text="UNO demeyen")
    expect(said).to_have_text("Bora, UNO demeyen \u2068آیدا\u2069 oyuncusunu yakaladı: +2")
    expect(host.get_by_test_id("toast").filter(has_text="را بدون اونو گرفت")).to_be_visible()


def test_a_customizable_wild_without_a_label_shows_its_effect_on_its_face(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """An unlabelled Wild Customizable read only "Wild Customizable" on its face; what it does
    was in its tooltip, which a phone never shows. Its face now names the effect."""
    host = pages("host", locale="fi-FI", **PHONE)
    host_opens_a_room(host, live_server, "Mikko")
    host.get_by_test_id("add-bot").click()
    expect(host.get_by_test_id("lobby-seat-1")).to_have_attribute("data-bot", "true")
    host.evaluate(
        """() => window.uno.send({type: 'settings', settings: {custom_wilds: [
             {effect: 'swap_hands'}, {effect: 'next_draws', n: 3, label: 'Pommi'}]}})"""
    )
    expect(host.get_by_test_id("lobby-custom-1-label")).to_have_value("Pommi")
    hands: list[Sequence[Spec]] = [
        [(None, "wild_custom", None), (None, "wild_custom", None), *GREENS[:5]],
        [*YELLOWS, ("blue", "number", 1)],
    ]
    _rig(host, live_server, hands, ("red", "number", 3))
    host.get_by_test_id("start-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    custom = host.locator("[data-testid=hand] .card[data-kind=wild_custom]")
    expect(custom).to_have_count(2)
    names = custom.locator(".cname").all_text_contents()
    assert sorted(n.strip() for n in names) == ["Pommi", "Vaihda kädet"], names


RECTS = """(el) => {
  // The left edge of the first place each character is drawn in the element's text.
  const node = el.firstChild;
  const at = (ch) => {
    const i = node.data.indexOf(ch);
    const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
    return r.getBoundingClientRect().x;
  };
  return { label: at('ج'), from: at('۲'), to: at('۴') };
}"""


def test_a_settings_change_reads_right_to_left_in_persian(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """A setting's change, "label: 2 ← 4", was laid out left to right inside the Persian
    sentence: the list and each change were wrapped in first-strong isolates that held only
    other isolates, so they fell back to left-to-right, and the arrow pointed from the new
    value to the old one ("4 → 2" to a Persian reader). Now it reads "جریمه…: ۲ ← ۴"."""
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Ann")
    guest = pages("guest", locale="fa-IR")  # wide enough for the toast to be one line
    _joins(guest, invite, "آیدا")
    host.evaluate("() => window.uno.send({type: 'settings', settings: {uno_penalty: 4}})")
    toast = guest.get_by_test_id("toast")
    expect(toast).to_contain_text("جریمه")
    assert (toast.bounding_box() or {}).get("height", 99) < 50  # one line
    x = toast.evaluate(RECTS)
    # Right to left: the label, then the old value, the arrow, the new value.
    assert x["label"] > x["from"] > x["to"], x


def _overlap(a: Any, b: Any) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


SIZES: dict[str, dict[str, Any]] = {
    "laptop": {"viewport": {"width": 1280, "height": 800}},
    "desktop": {"viewport": {"width": 1440, "height": 1000}},
    "phone": PHONE,
}


@pytest.mark.parametrize("size", list(SIZES))
def test_a_toast_does_not_cover_the_challenge_buttons(
    pages: Any, live_server: str, console_errors: ConsoleErrors, size: str
) -> None:
    """On a desktop the challenge panel sits at the bottom of the screen, where the toasts
    are: a toast (a catch, a settings change, a card tapped that cannot be played) hid the
    Challenge and Accept buttons for seconds while the challenge clock ran."""
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Ann")
    guest = pages("guest", **SIZES[size])
    _joins(guest, invite, "Bob")
    ids = _host_plays_an_illegal_wild_draw_four(host, live_server)
    dialog = guest.get_by_test_id("challenge-dialog")
    expect(dialog).to_be_visible()
    # No card may be played now: tapping one says so in a toast.
    guest.get_by_test_id(f"card-{ids[1][0]}").click(force=True)
    toast = guest.get_by_test_id("toast").filter(has_text="You cannot play that card now.")
    expect(toast).to_be_visible()
    for button in ("challenge-btn", "accept-btn"):
        box = guest.get_by_test_id(button).bounding_box()
        assert box is not None
        assert not _overlap(box, toast.bounding_box()), (button, box, toast.bounding_box())
    guest.get_by_test_id("accept-btn").click()
    expect(dialog).to_have_count(0)


def test_the_status_line_says_when_a_turn_allows_only_a_play_or_only_a_draw(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """Under "draw only when you cannot play" the status line still said "Your turn: play or
    draw" while the Draw button was greyed out, with nothing to say why; and a player with
    nothing to play was told to "play or draw"."""
    host = pages("host", locale="tr-TR", **PHONE)
    invite = host_opens_a_room(host, live_server, "Ayşe")
    guest = pages("guest", locale="fi-FI", **PHONE)
    _joins(guest, invite, "Mikko")
    ids = _rig(
        host,
        live_server,
        [[("red", "number", 7), *GREENS], [*YELLOWS, ("blue", "number", 1)]],
        ("red", "number", 3),
        pile=[("blue", "number", 2)],
        no_voluntary_draw=True,
    )
    host.get_by_test_id("start-btn").click()
    status = host.get_by_test_id("turn-status")
    expect(status).to_have_attribute("data-mine", "true")
    expect(status).to_have_text("Sıra sende: bir kart oyna (oynayabilirken kart çekemezsin)")
    expect(host.get_by_test_id("draw-btn")).to_be_disabled()
    host.get_by_test_id(f"card-{ids[0][0]}").click()
    # Mikko holds yellow 1-6 and a blue 1 on a red 7: nothing to play.
    status = guest.get_by_test_id("turn-status")
    expect(status).to_have_attribute("data-mine", "true")
    expect(status).to_have_text("Ei pelattavaa: nosta kortti")
    guest.get_by_test_id("draw-btn").click()  # a blue 2: the turn passes
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")


def test_a_player_whose_hand_is_swapped_is_told(
    pages: Any, live_server: str, console_errors: ConsoleErrors
) -> None:
    """A 7 (seven_zero) swapped Mikko's hand for Ann's without a word on his screen: his cards
    simply changed. The swap (and a rotation, a shuffle of every hand) is now a toast."""
    host = pages("host")
    invite = host_opens_a_room(host, live_server, "Ann")
    guest = pages("guest", locale="fi-FI", **PHONE)
    _joins(guest, invite, "Mikko")
    ids = _rig(
        host,
        live_server,
        [[("red", "number", 7), *GREENS], [("blue", "number", 7), *YELLOWS]],
        ("red", "number", 3),
        seven_zero=True,
    )
    host.get_by_test_id("start-btn").click()
    expect(host.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    host.get_by_test_id(f"card-{ids[0][0]}").click()
    host.get_by_test_id("pick-target-1").click()
    expect(guest.get_by_test_id("turn-status")).to_have_attribute("data-mine", "true")
    expect(guest.get_by_test_id(f"card-{ids[0][1]}")).to_be_visible()  # Ann's green 1
    expect(
        guest.get_by_test_id("toast").filter(has_text="Ann vaihtoi kädet pelaajan Mikko kanssa")
    ).to_be_visible()
