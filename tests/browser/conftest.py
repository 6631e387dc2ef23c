"""Browser test fixtures: Debian's Chromium through PyPI playwright, the real server on a free
loopback port, console-error collection and screenshots under test-artifacts/browser/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.browser.fake_site import FakeSite

import httpx
import pytest

from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("UNO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser


def _chromium_or_skip() -> str:
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if not path:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Chromium is missing at {CHROMIUM} and CI=true")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return path


# Per module, not per session: sync Playwright runs an event loop in this thread while it is
# open, and the asyncio tests that run after the browser suite need the thread back.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    path = _chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def live_server() -> Iterator[str]:
    """`uvicorn app.main:app` with test hooks and in-memory stores; yields its base URL."""
    _chromium_or_skip()
    port = free_port()
    env = {
        **os.environ,
        "UNO_TEST_HOOKS": "1",
        "DATABASE_URL": "memory://",
        "PYTHONUNBUFFERED": "1",
        "CREATE_RATE_BURST": "100000",  # the whole session creates rooms from one address
        "WS_CONNECT_RATE_BURST": "100000",  # and opens its sockets from it
        "MAX_OPEN_PER_ADDRESS": "100000",  # and holds them open at once
        "ADDRESS_FRAMES_PER_SECOND": "1000000",
        "ADDRESS_FRAMES_BURST": "1000000",
    }
    env.pop("REDIS_URL", None)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = (ARTIFACTS / "server.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"the server exited with {proc.returncode}; see {ARTIFACTS / 'server.log'}"
                )
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("the server did not answer /healthz within 20 s")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


class ConsoleErrors:
    """Collects console 'error' messages and uncaught page errors of every watched page."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.expected: list[str] = []

    def expect_message(self, fragment: str) -> None:
        """A test that provokes an HTTP error on purpose names it; Chromium logs every one."""
        self.expected.append(fragment)

    def watch(self, page: object, label: str) -> None:
        page.on(  # type: ignore[attr-defined]
            "console",
            lambda msg: (
                self.messages.append(f"[{label}] {msg.text}") if msg.type == "error" else None
            ),
        )
        page.on("pageerror", lambda exc: self.messages.append(f"[{label}] uncaught: {exc}"))  # type: ignore[attr-defined]

    def assert_none(self) -> None:
        unexpected = [m for m in self.messages if not any(f in m for f in self.expected)]
        assert unexpected == [], "console errors:\n" + "\n".join(unexpected)


@pytest.fixture
def console_errors() -> Iterator[ConsoleErrors]:
    errors = ConsoleErrors()
    yield errors
    errors.assert_none()


@pytest.fixture
def make_page(browser: Any, console_errors: ConsoleErrors) -> Iterator[Callable[..., Any]]:
    """New pages, each in a context of its own (desktop size, English unless told), their
    console watched; the contexts are closed after the test."""
    contexts: list[Any] = []

    def make(label: str = "page", **options: Any) -> Any:
        options.setdefault("viewport", {"width": 1280, "height": 860})
        options.setdefault("locale", "en-US")
        ctx = browser.new_context(**options)
        contexts.append(ctx)
        page = ctx.new_page()
        console_errors.watch(page, label)
        return page

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def pages(make_page: Callable[..., Any]) -> Callable[..., Any]:
    return make_page


def now_ms() -> int:
    return int(time.time() * 1000)


def wait_sent(page: Any, site: FakeSite, kind: str, timeout: float = 5.0) -> dict[str, Any]:
    """The last frame of type `kind` the page sent, waiting for it to arrive."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = [f for f in site.sent if f["type"] == kind]
        if found:
            return found[-1]
        page.wait_for_timeout(30)
    raise AssertionError(f"the page sent no {kind!r} frame; sent: {site.sent}")
