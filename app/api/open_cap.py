"""How many connections one client address may hold open at once: HTTP requests in flight
(a tournament's server-sent-events stream is one for as long as it is read) plus room
WebSockets, per process, at most `max_open_per_address` (0: no cap).

The connect-rate buckets (app/api/limits.py, app/transport/ws.py) bound how fast an address
opens sockets, not how many it keeps: without this, one client holding thousands of them
would take the process's `max_connections` from everybody. The address is the one
`CreationLimit` counts (the X-Forwarded-For client behind a trusted proxy, IPv6 per /64).

Over the cap an HTTP request is answered 429 `rate_limited` with `Retry-After: 1`; a
WebSocket handshake is refused before it is accepted, as the ws route refuses one over its
connect rate (close 1013, which the server sends as HTTP 403). Idle keep-alive connections
between requests are not counted (the server closes them after a few seconds).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.limits import parse_networks, rate_limited_response, scope_client_key
from app.transport.ws import CLOSE_TRY_AGAIN

REFUSAL_MESSAGE = "too many open connections from this address"


class OpenConnections:
    """The connections each client key holds open now; a key is dropped when it holds none,
    so the table is as large as the set of addresses connected at this moment."""

    def __init__(self, cap: int, refused: Counter[str] | None = None) -> None:
        self.cap = cap
        self.by_key: dict[str, int] = {}
        # Refusals by scope type ("http", "websocket"); the app passes its Tally's, for
        # GET /metrics.
        self.refused: Counter[str] = Counter() if refused is None else refused

    def try_open(self, key: str) -> bool:
        held = self.by_key.get(key, 0)
        if self.cap > 0 and held >= self.cap:
            return False
        self.by_key[key] = held + 1
        return True

    def close(self, key: str) -> None:
        held = self.by_key.get(key, 0) - 1
        if held > 0:
            self.by_key[key] = held
        else:
            self.by_key.pop(key, None)


class OpenConnectionCap:
    """ASGI middleware: counts each http and websocket scope against its client key while
    it runs, and refuses one past the cap (see the module doc). Lifespan passes through."""

    def __init__(
        self,
        app: ASGIApp,
        connections: OpenConnections,
        trusted_proxies: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.connections = connections
        self.trusted = parse_networks(trusted_proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket") or self.connections.cap <= 0:
            await self.app(scope, receive, send)
            return
        key = scope_client_key(scope, self.trusted)
        if not self.connections.try_open(key):
            self.connections.refused[kind] += 1
            if kind == "http":
                await rate_limited_response(send, 1.0, REFUSAL_MESSAGE)
            else:  # before accepting: the server answers the handshake with HTTP 403
                await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN, "reason": ""})
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.connections.close(key)
