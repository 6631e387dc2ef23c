"""Every error code the server can answer a person's action with is said in the page's
language, not as the generic "something went wrong" (a full tournament, a busy room, a
command the table refuses, a server fault)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import now_ms
from tests.browser.fake_site import ORIGIN, FakeSite

pytestmark = pytest.mark.browser

ERRORS = Path(__file__).resolve().parents[2] / "app" / "engine" / "errors.py"
# Codes a person's page never receives for something they did: the wire's own checks of a
# malformed frame, and the HTTP edge's refusals of a foreign page or body.
NOT_A_PERSONS = {"bad_frame", "unknown_type", "unsupported_media_type", "forbidden_origin"}


@pytest.mark.parametrize("locale", ["en-US", "tr-TR", "fi-FI", "fa-IR"])
def test_every_error_code_a_person_can_meet_has_its_own_text(
    make_page: Callable[..., Page], locale: str
) -> None:
    codes = re.findall(r'^\s+"([a-z_0-9]+)",', ERRORS.read_text(), re.M)
    assert "internal" in codes and "full" in codes
    page = make_page(locale=locale)
    FakeSite(page, fv.lobby_view(now_ms()))
    page.goto(f"{ORIGIN}/r/FAKEROOM")
    expect(page.get_by_test_id("join-name")).to_be_visible()
    generic = page.evaluate(
        """async (codes) => {
          const { errorText, t } = await import('/assets/core.js');
          return codes.filter((c) => errorText(c) === t('err.generic'));
        }""",
        [c for c in codes if c not in NOT_A_PERSONS],
    )
    assert generic == []
