"""The browser client: `web/index.html` at /, /r/{room} and /t/{code}; `web/` at /assets."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

WEB_DIR = Path(__file__).resolve().parents[2] / "web"

# Served only while web/index.html does not exist yet, so `/` always answers.
_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>UNO</title>
<meta name="referrer" content="no-referrer"></head>
<body><h1>UNO</h1><p>The browser client is not installed. The API is at /api/rooms.</p></body>
</html>
"""


def _index() -> Response:
    index = WEB_DIR / "index.html"
    if index.is_file():
        response: Response = FileResponse(index, media_type="text/html")
    else:
        response = HTMLResponse(_PLACEHOLDER)
    # Private room links must not leak through the Referer header.
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-cache"
    return response


def mount(app: FastAPI) -> None:
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    async def home() -> Response:
        return _index()

    @router.get("/r/{room}", include_in_schema=False)
    async def room_page(room: str) -> Response:
        return _index()

    @router.get("/t/{code}", include_in_schema=False)
    async def tournament_page(code: str) -> Response:
        return _index()

    app.include_router(router)
    app.mount("/assets", StaticFiles(directory=WEB_DIR, check_dir=False), name="assets")
