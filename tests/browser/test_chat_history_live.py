"""Issue 12, defect 17: earlier chat is not lost in a new tab, even once the 20-event log has
moved past it (the welcome carries the room's recent chat, `view.chat`)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect
from websockets.sync.client import connect

from tests.browser.conftest import ConsoleErrors

pytestmark = pytest.mark.browser

expect.set_options(timeout=8000)


def test_d17_earlier_chat_is_shown_in_a_new_tab(
    browser: Browser, live_server: str, console_errors: ConsoleErrors
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    try:
        a = ctx.new_page()
        console_errors.watch(a, "A")
        a.goto(f"{live_server}/")
        a.get_by_test_id("create-name").fill("Ayşe")
        a.get_by_test_id("create-btn").click()
        expect(a.get_by_test_id("lobby")).to_be_visible()
        room = re.search(r"/r/([^/?#]+)$", a.url).group(1)  # type: ignore[union-attr]

        a.get_by_test_id("chat-input").fill("hello from the start")
        a.get_by_test_id("chat-send").click()
        expect(a.get_by_test_id("chat-list")).to_contain_text("hello from the start")

        # Another player comes and goes 12 times: 24 events push the chat out of the log.
        joined = httpx.post(f"{live_server}/api/rooms/{room}/players", json={"name": "Mikko"})
        token = joined.json()["token"]
        ws_base = live_server.replace("http://", "ws://")
        for _ in range(12):
            with connect(f"{ws_base}/ws/rooms/{room}") as ws:
                ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
                while json.loads(ws.recv(timeout=5))["type"] != "welcome":
                    pass
        summary: Any = httpx.get(f"{live_server}/api/rooms/{room}").json()
        assert summary["version"] >= 24 + 3

        fresh = ctx.new_page()  # same storage: the same seat, in a new tab
        console_errors.watch(fresh, "A2")
        fresh.goto(f"{live_server}/r/{room}")
        expect(fresh.get_by_test_id("lobby")).to_be_visible()
        expect(fresh.get_by_test_id("chat-list")).to_contain_text("hello from the start")
    finally:
        ctx.close()
