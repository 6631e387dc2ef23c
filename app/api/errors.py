"""Every HTTP error has the body {"error": {"code", "message"}} (PROTOCOL section 2)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.rooms.service import RoomError

log = logging.getLogger(__name__)

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "bad_request",
    429: "rate_limited",
    503: "unavailable",
}


def error_response(
    status: int, code: str, message: str, extra: dict[str, Any] | None = None
) -> JSONResponse:
    # `extra`: fields beside code and message (a RoomError's `extra`), never replacing them.
    body = {**(extra or {}), "code": code, "message": message}
    return JSONResponse({"error": body}, status_code=status)


# Paths that are never pages: their 404 stays the JSON error body whatever the client accepts.
_NOT_PAGES = ("/api/", "/ws", "/assets/", "/healthz", "/readyz", "/metrics")


def _wants_page(request: Request) -> bool:
    path = request.url.path
    return (
        request.method in ("GET", "HEAD")
        and "text/html" in request.headers.get("accept", "")
        and not path.startswith(_NOT_PAGES)
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(RoomError)
    async def room_error(request: Request, exc: RoomError) -> JSONResponse:
        response = error_response(exc.status, exc.code, exc.message, exc.extra)
        if exc.retry_after is not None:
            response.headers["Retry-After"] = str(exc.retry_after)
        if exc.status == 401:  # RFC 9110 11.6.1: a 401 names the scheme it wants
            response.headers["WWW-Authenticate"] = "Bearer"
        return response

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        # Name the first problem without echoing the input back.
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        message = f"{where}: {first.get('msg', 'invalid')}" if where else "invalid request body"
        return error_response(400, "bad_request", message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and _wants_page(request):
            # A mistyped address in a browser: the page (still a 404), which says so and
            # offers the home page's forms, rather than a JSON body.
            page: Callable[[Request], Response] | None = getattr(
                request.app.state, "not_found_page", None
            )
            if page is not None:
                return page(request)
        code = _STATUS_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        response = error_response(exc.status_code, code, message)
        # The router's own headers: a 405's `Allow`, which RFC 9110 requires.
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error(
            "unhandled %s on %s %s",
            type(exc).__name__,
            request.method,
            # A client's path, quoted: no control byte or line break of theirs in the log.
            ascii(request.url.path[:200]),
        )
        return error_response(500, "internal", "internal error")
