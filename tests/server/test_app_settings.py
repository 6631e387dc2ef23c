from __future__ import annotations

import pytest

from app.settings import AppSettings
from app.transport.ws import origin_allowed


def test_environment_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNO_TEST_HOOKS", "1")
    monkeypatch.setenv("DATABASE_URL", "memory://")
    monkeypatch.setenv("ALLOWED_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("HISTORY_LIMIT", "64")
    monkeypatch.setenv("MAX_OPEN_PER_ADDRESS", "0")
    settings = AppSettings()
    assert settings.uno_test_hooks is True
    assert settings.database_url == "memory://"
    assert settings.allowed_origins == ["https://a.example", "https://b.example"]
    assert settings.history_limit == 64
    assert settings.max_open_per_address == 0
    monkeypatch.setenv("ALLOWED_ORIGINS", '["https://c.example"]')
    assert AppSettings().allowed_origins == ["https://c.example"]


def test_defaults_are_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "UNO_TEST_HOOKS",
        "ALLOWED_ORIGINS",
        "DATABASE_URL",
        "REDIS_URL",
        "MAX_OPEN_PER_ADDRESS",
    ):
        monkeypatch.delenv(name, raising=False)
    settings = AppSettings()
    assert settings.uno_test_hooks is False
    assert settings.allowed_origins == []
    assert settings.database_url == "sqlite+aiosqlite:///data/uno.db"
    assert settings.redis_url is None
    assert settings.max_frame_bytes == 16 * 1024
    assert settings.hello_timeout_seconds == 5.0
    assert settings.max_open_per_address == 256


@pytest.mark.parametrize(
    ("origin", "host", "allowed", "ok"),
    [
        (None, "h:1", [], True),  # not a browser
        ("http://h:1", "h:1", [], True),  # same origin
        ("https://H:1", "h:1", [], True),
        ("http://evil:1", "h:1", [], False),
        ("http://evil:1", "h:1", ["http://evil:1"], True),
        ("null", "h:1", [], False),
        ("http://h:2", "h:1", [], False),
    ],
)
def test_origin_allowlist(origin: str | None, host: str, allowed: list[str], ok: bool) -> None:
    assert origin_allowed(origin, host, allowed) is ok
