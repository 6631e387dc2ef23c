"""The Wild Draw Four question names who played the card: whether they held the colour is
what the answer turns on, and on an upright phone the question covers the seats."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import now_ms
from tests.browser.fake_site import FakeSite

PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize(
    ("locale", "named"),
    [
        ("en-US", "played"),
        ("fi-FI", "pelasi sinulle"),
        ("tr-TR", "sana"),
        ("fa-IR", "روی شما"),
    ],
)
def test_the_question_names_the_player_who_played_the_card(
    make_page: Callable[..., Page], locale: str, named: str
) -> None:
    page = make_page(locale=locale, viewport=PHONE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    # As the server sends it (app/engine/play.py): the victim `seat`, the player `by`.
    site.push_event({"kind": "challenge_opened", "seat": 0, "by": 3}, fv.challenge_view())
    expect(page.get_by_test_id("challenge-dialog")).to_be_visible()
    text = page.get_by_test_id("challenge-text")
    expect(text).to_contain_text(named)
    # The name is isolated for right-to-left text (U+2068 ... U+2069), as every name is.
    expect(text).to_contain_text(re.compile(r"^\u2068?Sara\u2069? "))


def test_without_the_event_the_question_still_stands(make_page: Callable[..., Page]) -> None:
    """Opened on a challenge already running (a reload), the page has no `challenge_opened`
    to read: the question is asked without the name."""
    page = make_page(viewport=PHONE)
    site = FakeSite(page, fv.challenge_view(now_ms()))
    site.open_room()
    expect(page.get_by_test_id("challenge-text")).to_contain_text("was played on you")


def test_a_challenge_opened_on_another_seat_names_nobody_here(
    make_page: Callable[..., Page],
) -> None:
    page = make_page(viewport=PHONE)
    site = FakeSite(page, fv.classic_view(now_ms()))
    site.open_room()
    site.push_event({"kind": "challenge_opened", "seat": 2, "by": 1}, fv.classic_view(now_ms()))
    site.push_event({"kind": "turn_passed", "seat": 3}, fv.challenge_view())
    expect(page.get_by_test_id("challenge-text")).to_contain_text("was played on you")
    expect(page.get_by_test_id("challenge-text")).not_to_contain_text("Mikko")
