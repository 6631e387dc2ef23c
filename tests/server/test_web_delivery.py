"""Delivery of the browser client (app/api/web.py): versioned immutable asset URLs, gzip for
text, revalidation of the page and of unversioned URLs, no path outside web/."""

from __future__ import annotations

import re

import httpx
import pytest
from fastapi import FastAPI

from app.api import errors, web


@pytest.fixture
def client() -> httpx.AsyncClient:
    app = FastAPI()
    web.mount(app)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")


async def test_the_page_names_versioned_assets_that_cache_for_a_year(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/r/ROOM", headers={"accept-encoding": "gzip"})
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["content-encoding"] == "gzip"
    assert page.headers["referrer-policy"] == "no-referrer"
    version = web.tree_version(web.WEB_DIR)
    assert re.search(rf'src="/assets/{version}/app\.js"', page.text)
    assert f'href="/assets/{version}/style.css"' in page.text
    js = await client.get(f"/assets/{version}/app.js", headers={"accept-encoding": "gzip, br"})
    assert js.status_code == 200
    assert js.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert js.headers["content-encoding"] == "gzip"
    assert js.headers["content-type"].startswith("text/javascript")
    raw = (web.WEB_DIR / "app.js").read_bytes()
    assert js.content == raw  # httpx undoes the gzip
    assert int(js.headers["content-length"]) < len(raw) / 2


async def test_unversioned_and_old_versions_revalidate(client: httpx.AsyncClient) -> None:
    plain = await client.get("/assets/style.css", headers={"accept-encoding": "identity"})
    assert plain.headers["cache-control"] == "no-cache" and "content-encoding" not in plain.headers
    again = await client.get("/assets/style.css", headers={"if-none-match": plain.headers["etag"]})
    assert again.status_code == 304
    old = await client.get("/assets/v-000000000000/style.css")
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("path", ["../pyproject.toml", "v-1/../../README.md", "nope.js", ""])
async def test_nothing_outside_web_or_missing(path: str) -> None:
    app = FastAPI()
    errors.install(app)  # as in app/main.py: a path no route takes answers the same body
    web.mount(app)
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
    missing = await client.get(f"/assets/{path}")
    assert missing.status_code == 404
    # The error body of every other 404 (PROTOCOL 2), not an empty one; never cached for
    # long (the file may come with the next deploy).
    assert missing.headers["content-type"] == "application/json"
    assert missing.json()["error"]["code"] == "not_found"
    assert isinstance(missing.json()["error"]["message"], str)
    if path == "nope.js":  # (the others are no asset route at all once normalised)
        assert missing.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("path", ["/", "/r/ROOM", "/t/CODE", "/m/MATCH", "/assets/style.css"])
async def test_head_is_answered_like_get(client: httpx.AsyncClient, path: str) -> None:
    """HEAD (link checkers, uptime probes, `curl -I`) gets GET's status and headers, not 405
    (RFC 9110 9.3.2: a server that answers GET should answer HEAD)."""
    got = await client.get(path)
    head = await client.head(path)
    assert head.status_code == got.status_code == 200
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["etag"] == got.headers["etag"]


async def test_a_browser_on_a_mistyped_address_gets_the_page_with_a_404() -> None:
    """A person who mistypes an address sees the page (which says there is no such page and
    offers the home page's forms), still as a 404; an API client, a HEAD-less POST, an asset
    or an API path keeps the JSON error body."""
    from app.main import create_app
    from app.settings import AppSettings

    app = create_app(AppSettings(database_url=None, redis_url=None))
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
    html = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    for path in ("/zzz", "/r/", "/rooms/ABC", "/t"):
        page = await client.get(path, headers={**html, "if-none-match": "*"})
        assert page.status_code == 404, path
        assert page.headers["content-type"].startswith("text/html")
        assert page.headers["cache-control"] == "no-store"
        assert 'id="app"' in page.text
    for path, headers in (
        ("/zzz", {"accept": "application/json"}),
        ("/zzz", {}),
        ("/api/nope", html),
        ("/assets/nope.js", html),
        ("/ws/nope", html),
    ):
        missing = await client.get(path, headers=headers)
        assert missing.status_code == 404, path
        assert missing.json()["error"]["code"] == "not_found", path
    # Other statuses are left as they are: a GET of a POST-only API path is still a 405.
    assert (await client.get("/api/rooms", headers=html)).status_code == 405


@pytest.mark.parametrize("path", ["/assets/a%00b", "/assets/" + "x" * 300, "/assets/v-1/%00"])
async def test_a_path_the_file_system_refuses_is_a_404_not_a_500(
    client: httpx.AsyncClient, path: str
) -> None:
    response = await client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
