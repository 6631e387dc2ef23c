"""The scripted round of the browser test: hands and draw pile chosen from the deck listing.

Seats: 0 = host (A), 1 = B, 2 = C; dealer 2, so seat 0 starts and play goes 0 → 1 → 2.
The draw pile is consumed, in this order, by: B's draw (P1), B's lost challenge (6),
C's draw of a playable card that C keeps (P8), then one card per B/C draw, with the two
cards of A's UNO penalty in the middle. Every card B and C draw after the challenge is an
8 or a 9 of another color than red, which never matches the red 1-7 that A plays.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from playwright.sync_api import Page, expect


class DeckPicker:
    def __init__(self, cards: list[dict[str, Any]]) -> None:
        self.left = list(cards)

    def take(self, color: str | None, kind: str, value: int | None = None) -> int:
        for i, c in enumerate(self.left):
            if c["color"] == color and c["kind"] == kind and c.get("value") == value:
                return int(self.left.pop(i)["id"])
        raise LookupError(f"no {color} {kind} {value} left in the deck listing")


def short_round_deck(cards: list[dict[str, Any]]) -> list[int]:
    """A `deck_order` for a round of a person against one bot, the bot dealing: seat 0 holds
    red 1-7 and starts on a red 0; the bot holds, and first draws, only 8s and 9s of other
    colors, so it draws and passes while the person plays red 1-7 (the shortest whole round)."""
    pick = DeckPicker(cards)
    human = [pick.take("red", "number", v) for v in range(1, 8)]
    others = [(c, v) for v in (8, 9) for c in ("green", "yellow", "blue") for _ in range(2)]
    bot = [pick.take(c, "number", v) for c, v in others[:7]]
    first = pick.take("red", "number", 0)
    pile = [pick.take(c, "number", v) for c, v in others[7:]]
    order = [card for pair in zip(human, bot, strict=True) for card in pair] + [first, *pile]
    return order + [int(c["id"]) for c in pick.left]


def draw_pass_round_deck(cards: list[dict[str, Any]]) -> list[int]:
    """A short whole round of a person (seat 0) against one bot (the dealer) that needs every
    control of a turn: the person plays red 1-4, 6 and 7 on a red 0 (the bot draws and passes:
    it holds and draws only cards no red number matches), calls UNO, is left with a blue 5,
    draws a blue 9 (the turn ends), draws a red 5 and plays it, plays the blue 5; the bot
    answers with a blue 8 or 9, and the blue 9 ends the round."""
    pick = DeckPicker(cards)
    human = [pick.take("red", "number", v) for v in (1, 2, 3, 4, 6, 7)]
    human.append(pick.take("blue", "number", 5))
    blue_9 = pick.take("blue", "number", 9)
    red_5 = pick.take("red", "number", 5)
    # Nothing the bot holds or draws matches a red number; only its blue 8s and 9 match the
    # blue 5 at the end.
    safe = [(c, v) for v in (8, 9) for c in ("green", "yellow") for _ in range(2)]
    safe += [("blue", 8), ("blue", 8), ("blue", 9), ("green", 0), ("yellow", 0), ("blue", 0)]
    bot = [pick.take(c, "number", v) for c, v in safe[:7]]
    first = pick.take("red", "number", 0)
    draws = [pick.take(c, "number", v) for c, v in safe[7:]]
    # The bot draws 6 times while the person plays their reds, then once between each of
    # the person's draws.
    pile = [*draws[:5], pick.take("green", "skip"), blue_9, pick.take("yellow", "skip"), red_5]
    pile += [pick.take("yellow", "reverse"), *draws[5:]]
    order = [card for pair in zip(human, bot, strict=True) for card in pair] + [first, *pile]
    return order + [int(c["id"]) for c in pick.left]


@dataclass
class Script:
    deck_order: list[int]
    wild: int
    wd4: int
    a_reds: list[int]  # red 1..5 dealt to A, in playing order
    a_penalty_reds: list[int]  # red 6, red 7: A's UNO penalty draw
    c_blue: int  # the card C plays from the phone
    c_keeps: int  # red 9, drawn by C and kept (pass)
    hands: dict[int, list[int]] = field(default_factory=dict)


def build_script(cards: list[dict[str, Any]]) -> Script:
    pick = DeckPicker(cards)
    wild = pick.take(None, "wild")
    wd4 = pick.take(None, "wild_draw4")
    a_reds = [pick.take("red", "number", v) for v in (1, 2, 3, 4, 5)]
    hand_a = [wild, wd4, *a_reds]
    hand_b = [pick.take("yellow", "number", v) for v in (1, 2, 3, 4, 5, 6, 7)]
    c_blue = pick.take("blue", "number", 3)
    hand_c = [c_blue, *(pick.take("green", "number", v) for v in (1, 2, 3, 4, 5, 6))]
    first = pick.take("red", "number", 0)

    p1 = pick.take("green", "number", 7)  # unplayable on the blue wild
    challenge_draw = [pick.take("yellow", "number", v) for v in (1, 2, 3, 4, 5, 6)]
    c_keeps = pick.take("red", "number", 9)
    eights_nines = [
        pick.take(color, "number", v)
        for v in (8, 9)
        for color in ("green", "yellow", "blue")
        for _ in range(2)
    ]
    a_penalty = [pick.take("red", "number", v) for v in (6, 7)]
    pile = [p1, *challenge_draw, c_keeps, *eights_nines[:6], *a_penalty, *eights_nines[6:]]

    order: list[int] = []
    for i in range(7):
        for hand in (hand_a, hand_b, hand_c):  # dealt from seat dealer+1 = 0, clockwise
            order.append(hand[i])
    order.append(first)
    order.extend(pile)
    used = set(order)
    order.extend(int(c["id"]) for c in cards if int(c["id"]) not in used)
    assert len(order) == len(cards) == len(set(order))
    return Script(
        deck_order=order,
        wild=wild,
        wd4=wd4,
        a_reds=a_reds,
        a_penalty_reds=a_penalty,
        c_blue=c_blue,
        c_keeps=c_keeps,
        hands={0: hand_a, 1: hand_b, 2: hand_c},
    )


def against_a_bot_on_a_fixed_deal(
    page: Page, live_server: str, deal: Callable[[list[dict[str, Any]]], list[int]], **settings: Any
) -> None:
    """In the lobby of a room whose host is `page` and whose seat 1 is a bot: the bot deals
    `deal` (a `deck_order` made of the room's deck listing), quickly, untimed unless
    `settings` say otherwise; returns once the lobby shows them."""
    room = re.search(r"/r/([^/?#]+)$", page.url).group(1)  # type: ignore[union-attr]
    deck = httpx.get(f"{live_server}/api/rooms/{room}/deck").json()["cards"]
    chosen = {"bot_delay_ms": 20, "turn_seconds": 0, "next_round_seconds": 0, "dealer": 1}
    chosen.update(settings, deck_order=deal(deck))
    page.evaluate("s => window.uno.send({type: 'settings', settings: s})", chosen)
    expect(page.get_by_test_id("lobby-turn_seconds")).to_have_value(str(chosen["turn_seconds"]))


def host_opens_a_room(page: Page, live_server: str, name: str) -> str:
    """`page` creates a room from the home page as `name`; returns the lobby's invite link."""
    page.goto(f"{live_server}/")
    page.get_by_test_id("create-name").fill(name)
    page.get_by_test_id("create-btn").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    return page.get_by_test_id("invite-url").input_value()


def a_tournament_link(live_server: str) -> str:
    """A small elimination tournament, registering (two per table, one-round matches)."""
    made = httpx.post(
        f"{live_server}/api/tournaments",
        json={
            "name": "Friday cup",
            "host_name": "Hana",
            "format": "elimination",
            "table_size": 2,
            "advance": 1,
            "match": {"rounds": 1},
        },
        timeout=5,
    )
    assert made.status_code == 201, made.text
    return f"{live_server}{made.json()['url']}"
