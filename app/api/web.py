"""The browser client: `web/index.html` at /, /r/{room}, /t/{code} and /m/{match_id}; `web/`
at /assets.

Delivery: index.html names its assets under `/assets/v-{hash}/`, the hash of every file of
`web/` at start-up, so they can be cached for a year (`immutable`) and a deploy changes every
URL at once; ES module imports are relative, so a whole page loads under one version. Text
assets are sent gzip-compressed (compressed once, kept in memory). Unversioned `/assets/...`
URLs still work and are revalidated (`no-cache` with an ETag)."""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, Response

from app.api.errors import error_response

WEB_DIR = Path(__file__).resolve().parents[2] / "web"

# Served only while web/index.html does not exist yet, so `/` always answers.
_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>UNO</title>
<meta name="referrer" content="no-referrer"></head>
<body><h1>UNO</h1><p>The browser client is not installed. The API is at /api/rooms.</p></body>
</html>
"""

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_TEXT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".md": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".LICENSE": "text/plain; charset=utf-8",
}
_MIN_GZIP = 512


@dataclass(frozen=True, slots=True)
class _Asset:
    body: bytes
    gz: bytes | None
    etag: str
    media_type: str


def tree_version(root: Path) -> str:
    """A short hash of every file's path and content under `root`."""
    digest = hashlib.sha256()
    if root.is_dir():
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return "v-" + digest.hexdigest()[:12]


class AssetCache:
    """Files of `root` with their gzip form, read and compressed once per modification."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._entries: dict[Path, tuple[float, _Asset]] = {}

    def get(self, rel: str) -> _Asset | None:
        try:
            path = (self.root / rel).resolve()
            if not path.is_relative_to(self.root) or not path.is_file():
                return None
            mtime = path.stat().st_mtime
        except (OSError, ValueError):  # a NUL byte, a name too long for the file system
            return None
        hit = self._entries.get(path)
        if hit is not None and hit[0] == mtime:
            return hit[1]
        asset = self._build(path.read_bytes(), path)
        self._entries[path] = (mtime, asset)
        return asset

    @staticmethod
    def _build(body: bytes, path: Path) -> _Asset:
        media = _TEXT_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0]
        text = path.suffix in _TEXT_TYPES
        gz = gzip.compress(body, 9, mtime=0) if text and len(body) >= _MIN_GZIP else None
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        return _Asset(body, gz, etag, media or "application/octet-stream")


def _send(request: Request, asset: _Asset, cache: str) -> Response:
    headers = {"Cache-Control": cache, "ETag": asset.etag, "Vary": "Accept-Encoding"}
    if request.headers.get("if-none-match") == asset.etag:
        return Response(status_code=304, headers=headers)
    data = asset.body
    if asset.gz is not None and "gzip" in request.headers.get("accept-encoding", ""):
        headers["Content-Encoding"] = "gzip"
        data = asset.gz
    return Response(content=data, media_type=asset.media_type, headers=headers)


def mount(app: FastAPI) -> None:
    router = APIRouter()
    assets = AssetCache(WEB_DIR)
    version = tree_version(WEB_DIR)
    index_cache: dict[str, _Asset] = {}

    def index_asset() -> _Asset | None:
        raw = assets.get("index.html")
        if raw is None:
            return None
        hit = index_cache.get(raw.etag)
        if hit is None:
            html = raw.body.replace(b'"/assets/', f'"/assets/{version}/'.encode())
            hit = AssetCache._build(html, Path("index.html"))
            index_cache.clear()
            index_cache[raw.etag] = hit
        return hit

    def index(request: Request) -> Response:
        asset = index_asset()
        response = (
            _send(request, asset, REVALIDATE)
            if asset is not None
            else HTMLResponse(_PLACEHOLDER, headers={"Cache-Control": REVALIDATE})
        )
        # Private room links must not leak through the Referer header.
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    @router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def home(request: Request) -> Response:
        return index(request)

    @router.api_route("/r/{room}", methods=["GET", "HEAD"], include_in_schema=False)
    async def room_page(request: Request, room: str) -> Response:
        return index(request)

    @router.api_route("/t/{code}", methods=["GET", "HEAD"], include_in_schema=False)
    async def tournament_page(request: Request, code: str) -> Response:
        return index(request)

    @router.api_route("/m/{match_id}", methods=["GET", "HEAD"], include_in_schema=False)
    async def match_page(request: Request, match_id: str) -> Response:
        return index(request)

    @router.api_route("/assets/{path:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def asset(request: Request, path: str) -> Response:
        first, _, rest = path.partition("/")
        if first.startswith("v-") and rest:
            # Another deploy's version is served as today's file, but not cached for long.
            cache = IMMUTABLE if first == version else REVALIDATE
            path = rest
        else:
            cache = REVALIDATE
        found = assets.get(path)
        if found is None:
            # The error body of every other 404 (PROTOCOL 2), not an empty one.
            missing = error_response(404, "not_found", "no such file")
            missing.headers["Cache-Control"] = "no-store"
            return missing
        return _send(request, found, cache)

    app.include_router(router)

    def not_found_page(request: Request) -> Response:
        asset = index_asset()
        headers = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        if asset is None:
            return HTMLResponse(_PLACEHOLDER, status_code=404, headers=headers)
        data = asset.body
        if asset.gz is not None and "gzip" in request.headers.get("accept-encoding", ""):
            headers["Content-Encoding"] = "gzip"
            data = asset.gz
        # Never a 304: a cached copy of the home page's answer is not this one's.
        return Response(data, status_code=404, media_type=asset.media_type, headers=headers)

    app.state.not_found_page = not_found_page
