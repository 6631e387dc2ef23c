"""Pure ASGI middleware (no per-request task, unlike BaseHTTPMiddleware): security headers
on every HTTP response, a cap on request bodies, and the API's cross-site guard.

Cross-site guard: a page on another site can make a browser send a POST here without
JavaScript reading the answer (`no-cors`, or a form), with a `text/plain` body and no
preflight. So every request to /api/ that changes something (POST, PUT, PATCH, DELETE) with a
foreign `Origin` is refused with 403 `forbidden_origin` (same origin, the configured
`allowed_origins`, or no Origin at all, as from a non-browser client, pass), and every API
body must say `Content-Type: application/json` (else 415 `unsupported_media_type`): a body
of that type cannot be sent cross-site without a CORS preflight, which this server never
grants.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.transport.ws import origin_allowed

MAX_BODY_BYTES = 64 * 1024
# How long a request body may take to arrive (the server passes its head deadline).
BODY_TIMEOUT_SECONDS = 10.0
# The page loads its script, style and socket from its own origin only; no inline script or
# style element, no plug-ins, never inside a frame (clickjacking). `data:` is the favicon.
# Style *attributes* are allowed: the client patches the DOM in place (morphdom copies a
# node's `style` attribute, and card flights position themselves) and a style attribute can
# run no code.
CONTENT_SECURITY_POLICY = (
    b"default-src 'self'; script-src 'self'; style-src 'self'; "
    b"style-src-attr 'unsafe-inline'; img-src 'self' data:; "
    b"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    b"form-action 'self'; frame-ancestors 'none'"
)
_HEADERS = [
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy", CONTENT_SECURITY_POLICY),
    (b"x-frame-options", b"DENY"),
]
_CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class HardeningMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int = MAX_BODY_BYTES,
        allowed_origins: Iterable[str] = (),
        body_timeout: float = BODY_TIMEOUT_SECONDS,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.allowed_origins = list(allowed_origins)
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope.get("path", "").startswith("/api/")
        headers = dict(scope.get("headers", ()))
        if api and scope.get("method") in _CHANGES:
            origin = headers.get(b"origin")
            host = headers.get(b"host")
            if not origin_allowed(
                origin.decode("latin-1") if origin is not None else None,
                host.decode("latin-1") if host is not None else None,
                self.allowed_origins,
            ):
                await _refuse(send, 403, "forbidden_origin", "cross-site requests are refused")
                return
        length = headers.get(b"content-length", b"")
        if length.isdigit() and int(length) > self.max_body_bytes:
            await _too_large(send, self.max_body_bytes)
            return
        # Bodies here are small JSON objects: read the whole body first (refusing it past the
        # limit), then hand it to the app in one piece.
        # The whole body within a deadline, like the head (app/server.py): a client that
        # trickles it (a slow POST) holds no connection and no request task for long.
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        return  # the client went away
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_body_bytes:
                        await _too_large(send, self.max_body_bytes)
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _refuse(
                send,
                408,
                "request_timeout",
                "the request body came too slowly",
                [(b"connection", b"close")],  # no more reading of the rest of it
            )
            return
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        if api and body and not _is_json(headers.get(b"content-type", b"")):
            await _refuse(
                send, 415, "unsupported_media_type", "request bodies must be application/json"
            )
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in _HEADERS if n not in present]
                if api and b"cache-control" not in present:
                    extra.append((b"cache-control", b"no-store"))  # answers may hold tokens
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, replay, send_with_headers)


def _is_json(content_type: bytes) -> bool:
    return content_type.split(b";", 1)[0].strip().lower() == b"application/json"


async def _too_large(send: Send, limit: int) -> None:
    await _refuse(send, 413, "too_large", f"request bodies are limited to {limit} bytes")


async def _refuse(
    send: Send,
    status: int,
    code: str,
    message: str,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),  # an /api/ answer like any other
                *_HEADERS,
                *(headers or ()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
