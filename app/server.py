"""How the ASGI server (uvicorn) runs the app: the limits that keep one client from holding
the process's sockets or memory. `make run`, the container and `python -m app.main` all start
it through `uvicorn_options`, so the limits are set in one place.

- Request heads are read by h11 and limited to `MAX_HEAD_BYTES` (16 KiB, as our frames): a
  larger head is answered 400 and the connection closed, without reading the rest.
- A connection that has not sent a whole request head `header_timeout_seconds` after it
  opened (or after its previous response) is closed: silent and trickling (slowloris)
  connections do not pile up. Idle keep-alive connections close after `KEEP_ALIVE_SECONDS`.
- WebSocket messages larger than `ws_max_bytes` (4 frames' worth) are refused from their
  header (close 1009) instead of being read whole; between 16 KiB and that size the socket
  answers `too_large` and stays open.
- At most `max_connections` connections and requests at once; past it, 503.
- `X-Forwarded-For` is not applied by the server: app/api/limits.py reads it, and only from
  the configured `trusted_proxies`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.settings import AppSettings

MAX_HEAD_BYTES = 16 * 1024
KEEP_ALIVE_SECONDS = 5


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request head (see the module doc)."""

    head_timeout: float = 10.0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # a whole head arrived (or the peer is done)
            self._disarm_head_timer()

    def on_response_complete(self) -> None:
        self._arm_head_timer()  # the next request's head has the same deadline ...
        super().on_response_complete()
        if self.conn.their_state is not h11.IDLE:  # ... unless a pipelined one came whole
            self._disarm_head_timer()

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return  # closed, or handed to the WebSocket protocol
        if self.conn.their_state is h11.IDLE:  # no whole head since the timer was armed
            self.transport.close()


def uvicorn_options(config: AppSettings) -> dict[str, Any]:
    """Keyword arguments for `uvicorn.run` / `uvicorn.Config` (besides the app)."""
    protocol = type(
        "GuardedH11Protocol", (GuardedH11Protocol,), {"head_timeout": config.header_timeout_seconds}
    )
    return {
        "host": config.host,
        "port": config.port,
        "http": protocol,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "limit_concurrency": config.max_connections,
        "ws_max_size": config.ws_max_bytes,
        "proxy_headers": False,
        "server_header": False,
    }
