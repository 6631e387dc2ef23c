"""How many rooms, seats and entries one client address may create: a token bucket per address
(`create_rate_per_second` sustained, `create_rate_burst` at once) over every POST to /api/.
Past it the answer is 429 `rate_limited` with `Retry-After`.

The address is the TCP peer's. `X-Forwarded-For` is read only when the peer is one of the
configured `trusted_proxies` (addresses or networks): then the client is the right-most
address in it that is not itself a trusted proxy (the left part is whatever the client wrote).
IPv6 clients are counted per /64, the block one subscriber usually holds.
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_ADDRESSES = 65_536  # buckets kept; the least recently used is forgotten past it


def parse_networks(entries: Iterable[str]) -> list[Network]:
    return [ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip()]


def client_key(peer: str, forwarded_for: str | None, trusted: list[Network]) -> str:
    """The address a request is counted against (see the module doc)."""
    address = peer
    if forwarded_for and within(peer, trusted):
        for hop in reversed([part.strip() for part in forwarded_for.split(",")]):
            if _ip(hop) is None:
                break  # garbage from here on: keep the last address we could trust
            address = hop
            if not within(hop, trusted):
                break
    ip = _ip(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else ip or address)


def scope_client_key(scope: Scope, trusted: list[Network]) -> str:
    """`client_key` of an ASGI scope's peer and its X-Forwarded-For header."""
    client = scope.get("client")
    peer = client[0] if client else ""
    forwarded = dict(scope.get("headers", ())).get(b"x-forwarded-for")
    return client_key(peer, forwarded.decode("latin-1") if forwarded else None, trusted)


class AddressBuckets:
    """Token buckets by key, bounded in number (least recently used forgotten)."""

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> float:
        """0 when `key` may go on (a token taken), else the seconds until it may."""
        now = self._clock()
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate if self.rate > 0 else 3600.0
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > MAX_ADDRESSES:
            self._buckets.popitem(last=False)
        return wait

    def __len__(self) -> int:
        return len(self._buckets)


class CreationLimit:
    """ASGI middleware: the per-address bucket in front of every POST to /api/."""

    def __init__(
        self,
        app: ASGIApp,
        rate: float,
        burst: int,
        trusted_proxies: Iterable[str] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.buckets = AddressBuckets(rate, burst, clock)
        self.trusted = parse_networks(trusted_proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope.get("method") == "POST"
            and scope.get("path", "").startswith("/api/")
        ):
            wait = self.buckets.take(scope_client_key(scope, self.trusted))
            if wait > 0:
                await rate_limited_response(send, wait)
                return
        await self.app(scope, receive, send)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def within(text: str, networks: list[Network]) -> bool:
    ip = _ip(text)
    return ip is not None and any(ip in network for network in networks)


async def rate_limited_response(
    send: Send, wait: float, message: str = "too many requests from this address"
) -> None:
    """A 429 `rate_limited` in the API's error shape, with `Retry-After` (whole seconds)."""
    await error_response(send, 429, "rate_limited", message, wait)


async def error_response(
    send: Send, status: int, code: str, message: str, retry_after: float, *, close: bool = False
) -> None:
    """An error in the API's shape (`{"error": {...}}`) sent straight to an ASGI `send`, for
    the refusals made outside the app's routes, with `Retry-After` (whole seconds)."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(max(1, math.ceil(retry_after))).encode()),
        (b"cache-control", b"no-store"),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
