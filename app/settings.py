"""Process configuration from the environment (pydantic-settings).

Every value has an embedded default so that `make run` works with nothing installed but
Python: in-memory rooms and bus, SQLite for the match records.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class AppSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    database_url: str | None = "sqlite+aiosqlite:///data/uno.db"
    redis_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    # Browser origins allowed to open the WebSocket besides the page's own origin.
    allowed_origins: Annotated[list[str], NoDecode] = []
    uno_test_hooks: bool = False
    # Events kept per room so that a reconnecting client can resume with `since` (a replay is
    # also bounded by `resume_max_bytes`, which few more than this many events would exceed).
    history_limit: int = 256
    # Per-connection token bucket: sustained frames per second and burst size.
    rate_limit_per_second: float = 50.0
    rate_limit_burst: int = 100
    max_frame_bytes: int = 16 * 1024
    # Refused frames (bad, unknown, illegal, over the rate) answered per second and in a burst;
    # past that the socket is closed with 1008 instead of answered.
    error_budget_per_second: float = 10.0
    error_budget_burst: int = 100
    # Repeated `hello`s on one socket that may replay history (past this bucket a `hello` gets
    # the `welcome` alone).
    resume_per_second: float = 0.5
    resume_burst: int = 3
    # A resume replays the missed events only while the frame stays this small; further back,
    # the `welcome` alone answers.
    resume_max_bytes: int = 48 * 1024
    # Per-socket outbox: queued items before a socket that does not read is closed, and how
    # long one send may wait on a client that does not read.
    outbox_max_frames: int = 256
    send_timeout_seconds: float = 10.0
    hello_timeout_seconds: float = 5.0
    # A room nobody has used (no command, no connection) for this long is forgotten.
    room_idle_seconds: int = 6 * 3600

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        # Accept "a,b" as well as a JSON list, so the variable is easy to set by hand.
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value
