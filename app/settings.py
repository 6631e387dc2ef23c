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
    # also bounded by `resume_max_bytes`, sized so that the whole history fits).
    history_limit: int = 256
    # And at most this many bytes of a room's older events (as kept: packed JSON), in the
    # embedded store: a normal round's 256 events take ~28 KB, 256 chat lines of 300 characters
    # ~90 KB, a lobby whose host changes the settings (long custom wild labels) over and over
    # ~1 KB per change. Past it the oldest commits go, as past `history_limit`; a resume from
    # before them gets a `welcome`.
    history_max_bytes: int = 128 * 1024
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
    # Chat, which every socket of the room receives: per socket, and per room (in each
    # process), so neither one client nor a crowd of spectators can make a room a fire hose.
    chat_per_second: float = 1.0
    chat_burst: int = 5
    room_chat_per_second: float = 5.0
    room_chat_burst: int = 20
    # A resume replays the missed events only while the frame stays this small, else the
    # `welcome` alone answers. PROTOCOL promises the replay whenever the history holds the
    # events, so this is sized for the whole history (`history_limit` events of the largest
    # kinds, long chat lines and settings with three labelled custom wilds, fit): a bound on
    # what one `hello` can draw, not a second, shorter history.
    resume_max_bytes: int = 256 * 1024
    # Per-socket outbox: queued items before a socket that does not read is closed, and how
    # long one send may wait on a client that does not read.
    outbox_max_frames: int = 256
    send_timeout_seconds: float = 10.0
    # Server limits (app/server.py): WebSocket messages past this are not even read; open
    # connections and requests at once; how long a connection may take to send a request head.
    ws_max_bytes: int = 64 * 1024
    # The design load is 8,000 sockets on one process (docs/performance.md); the open-files
    # limit must allow it too.
    max_connections: int = 12288
    header_timeout_seconds: float = 10.0
    hello_timeout_seconds: float = 5.0
    # A room nobody has used (no command, no connection) for this long is forgotten.
    room_idle_seconds: int = 6 * 3600
    # A room made over HTTP that no socket has ever opened (nobody came to its page) is
    # forgotten sooner: the web client opens its socket as soon as the room exists, so only a
    # script leaves rooms like that, and at the creation rate's 1/s each address could keep
    # ~21,600 of them for `room_idle_seconds` (~5.6 KB each).
    room_unused_seconds: int = 1800
    # Rooms one process keeps in memory (the embedded store) at most: past it `POST
    # /api/rooms` answers 503 `unavailable` with `Retry-After`, so that many addresses
    # together cannot grow the process without bound. Tournament tables are not refused.
    # 0: no cap. (With Redis, rooms live in Redis: its `maxmemory` and the rooms' TTL bound
    # them; docs/deploy.md.)
    max_rooms: int = 50_000
    # Rooms, seats, spectators and tournament entries one client address may create
    # (app/api/limits.py): sustained per second, and at once.
    create_rate_per_second: float = 1.0
    create_rate_burst: int = 60
    # Room sockets one client address may open (app/transport/ws.py): sustained per second,
    # and at once. A reconnect loop costs its room two commits a cycle (connected, then not);
    # past the bucket the handshake is refused (HTTP 403) and the client's backoff applies.
    ws_connect_rate_per_second: float = 2.0
    ws_connect_rate_burst: int = 60
    # Frames one client address may send over all its room sockets together (each socket has
    # its own rate above): without it an address holding `max_open_per_address` sockets could
    # send 256 x 50 frames a second and slow every other table. Past it a frame is refused as
    # over its socket's rate. A household or a classroom behind one NAT address plays far
    # below it (a player sends about one frame a second).
    address_frames_per_second: float = 500.0
    address_frames_burst: int = 1000
    # Connections one client address may hold open at once, per process (app/api/open_cap.py):
    # HTTP requests in flight (a tournament's event stream lasts as long as it is read) plus
    # room WebSockets. The rates above bound how fast an address connects, not how many
    # connections it keeps; without this one client could hold most of `max_connections`.
    # Past it a request is answered 429 and a handshake refused (HTTP 403). 0: no cap.
    max_open_per_address: int = 256
    # GET /metrics (Prometheus text) answers a scrape that sends this as a bearer token; unset,
    # there is no /metrics (app/api/metrics.py).
    metrics_token: str | None = None
    # Reverse proxies (addresses or networks) whose X-Forwarded-For names the client.
    trusted_proxies: Annotated[list[str], NoDecode] = []
    # A room's database rows (credentials, restore snapshot) are deleted after this long
    # without activity; a match with no round for `room_idle_seconds` is marked abandoned.
    room_retention_days: float = 30.0

    # --- Redis (only with REDIS_URL: rooms shared by every process; docs/deploy.md) ---
    # Key prefix, so that several deployments (or test runs) can share one Redis.
    redis_prefix: str = "uno"
    # Connections per process; a caller waits at most the timeout for one, a command too.
    redis_pool_size: int = 32
    redis_timeout_seconds: float = 2.0
    # A room's keys expire after this long without a write (a lobby or a match between
    # rounds is kept long enough for friends to come back; a finished round is also in the
    # database, from which a room is restored).
    redis_room_ttl_seconds: int = 24 * 3600
    # Timers: how often each process polls the wake-up index, and how long a claimed entry
    # waits before another process may claim it again (a claimer that died).
    redis_poll_ms: int = 100
    redis_claim_lease_ms: int = 5000
    # The pub/sub watchdog's period (ping, re-subscribe, version check).
    redis_check_seconds: float = 2.0
    # A completed round read from the round stream by a process that died before storing it
    # is taken over by another process after this long (XAUTOCLAIM).
    redis_round_claim_ms: int = 30_000
    # A process refreshes its presence lease this often / 4; once it has run out (the process
    # died), another marks the seats whose sockets it held disconnected.
    redis_presence_lease_ms: int = 10_000
    # Each process writes the rooms it changed to the database this often and when it stops
    # (0: only at round ends); a room Redis lost comes back from its newest checkpoint
    # (docs/deploy.md).
    checkpoint_seconds: float = 5.0
    # The same for one process with a database (no Redis; not with matches kept in memory):
    # a room comes back after a restart from its newest checkpoint. Less often, as it only
    # matters after a crash (a stop on purpose checkpoints every room it holds) and each costs
    # ~0.08-0.17 ms of CPU on SQLite (bench/checkpoints.py; 2,000 busy rooms every 30 s: ~1%
    # of a CPU at most).
    embedded_checkpoint_seconds: float = 30.0

    @field_validator("allowed_origins", "trusted_proxies", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        # Accept "a,b" as well as a JSON list, so the variable is easy to set by hand.
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value
