"""Pure ASGI middleware (no per-request task, unlike BaseHTTPMiddleware): security headers
on every HTTP response and a cap on request bodies."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 64 * 1024
_HEADERS = [
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
]


class HardeningMiddleware:
    def __init__(self, app: ASGIApp, max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_body_bytes:
                await _too_large(send, self.max_body_bytes)
                return
        # Bodies here are small JSON objects: read the whole body first (refusing it past the
        # limit), then hand it to the app in one piece.
        chunks: list[bytes] = []
        size = 0
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
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        api = scope.get("path", "").startswith("/api/")
        if api and body and not any(name == b"content-type" for name, _ in scope["headers"]):
            # Every body here is JSON (PROTOCOL.md): a client that sends one without naming
            # its type is read as JSON rather than refused. (Only when no type is given:
            # `text/plain` stays refused, so a cross-site form cannot post here.)
            headers = [*scope["headers"], (b"content-type", b"application/json")]
            scope = {**scope, "headers": headers}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in _HEADERS if n not in present]
                if api and b"cache-control" not in present:
                    extra.append((b"cache-control", b"no-store"))  # answers may hold tokens
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, replay, send_with_headers)


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps(
        {"error": {"code": "too_large", "message": f"request bodies are limited to {limit} bytes"}}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
