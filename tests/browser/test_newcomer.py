"""What a newcomer saw and found wrong, on hand-made views without the server: a "Light side"
badge in classic games."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import now_ms
from tests.browser.fake_site import FakeSite

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
