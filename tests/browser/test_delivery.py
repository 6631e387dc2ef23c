"""Issue 12 (18): the first load of a room page, from an empty cache, against the real server:
at most 10 requests and 80 KB transferred (compressed, headers included); only the active
language's catalog and no home, join or tournament code."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import ConsoleErrors

pytestmark = pytest.mark.browser

MAX_REQUESTS = 10
MAX_BYTES = 80 * 1024


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_first_load_of_a_room_page_is_small(
    browser: Browser, live_server: str, console_errors: ConsoleErrors, lang: str
) -> None:
    created = httpx.post(f"{live_server}/api/rooms", json={"name": "Ayşe"}).json()
    room = created["room"]
    session = {
        "room": room,
        "token": created["token"],
        "player_id": created["player_id"],
        "seat": 0,
        "role": "player",
    }
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    ctx.add_init_script(
        f"localStorage.setItem('uno.session.{room}', {json.dumps(json.dumps(session))});"
        f"localStorage.setItem('uno.lang', '{lang}');"
    )
    page = ctx.new_page()
    console_errors.watch(page, "room")
    requests: list[Any] = []
    page.on("requestfinished", lambda r: requests.append(r))
    page.goto(f"{live_server}/r/{room}")
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("conn")).to_have_attribute("data-state", "online")
    page.wait_for_load_state("networkidle")
    urls = [r.url[len(live_server) :] for r in requests]
    sizes = [r.sizes() for r in requests]
    total = sum(s["responseBodySize"] + s["responseHeadersSize"] for s in sizes)
    report = "\n".join(f"{u} {s['responseBodySize']}" for u, s in zip(urls, sizes, strict=True))
    print(f"\n{lang}: {len(urls)} requests, {total} bytes\n{report}")
    assert len(urls) <= MAX_REQUESTS, report
    assert total <= MAX_BYTES, report
    catalogs = [u for u in urls if "/i18n/" in u and not u.endswith("index.js")]
    assert [c.rsplit("/", 1)[-1] for c in catalogs] == [f"{lang}.js"]
    assert not any(u.endswith(("/tournament.js", "/home.js")) for u in urls), urls
    ctx.close()
