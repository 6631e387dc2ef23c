"""Audit 3: HTTP API edge cases not covered elsewhere (in process, over ASGI).

- A tournament body nested deeper than Python's JSON decoder can recurse was a 500 with a
  traceback in the error log (the rooms' bodies, parsed by FastAPI, were already a 400).
- A 405 must name the allowed methods in `Allow` (RFC 9110 15.5.6); the error handler
  dropped the header the router sets.
- A 401 must say which scheme it wants in `WWW-Authenticate` (RFC 9110 11.6.1).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from app.main import create_app
from app.settings import AppSettings

BASE = "http://uno.example"
JSON = {"content-type": "application/json"}


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(AppSettings(database_url="memory://"))
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 40000))
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
        yield client


def _error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 30000 + b"]" * 30000,  # under the 64 KiB body limit, past the recursion limit
        b'{"a":' * 10000 + b"1" + b"}" * 10000,
        b'{"name": "Cup", "settings": ' + b"[" * 20000 + b"]" * 20000 + b"}",
    ],
)
async def test_a_deeply_nested_tournament_body_is_a_400_not_a_500(
    http: httpx.AsyncClient, body: bytes
) -> None:
    answer = await http.post("/api/tournaments", content=body, headers=JSON)
    _error(answer, 400, "bad_request")


async def test_a_deeply_nested_room_body_is_a_400(http: httpx.AsyncClient) -> None:
    body = b'{"name": "A", "x": ' + b"[" * 30000 + b"]" * 30000 + b"}"
    _error(await http.post("/api/rooms", content=body, headers=JSON), 400, "bad_request")


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/api/rooms", {"POST"}),
        ("DELETE", "/api/rooms", {"POST"}),
        ("POST", "/healthz", {"GET", "HEAD"}),
        ("PATCH", "/api/tournaments", {"POST"}),
    ],
)
async def test_a_405_names_the_allowed_methods(
    http: httpx.AsyncClient, method: str, path: str, allowed: set[str]
) -> None:
    answer = await http.request(method, path)
    _error(answer, 405, "method_not_allowed")
    named = {part.strip() for part in answer.headers.get("allow", "").split(",") if part}
    assert allowed <= named, answer.headers


async def test_a_tournament_body_that_is_not_an_object_is_a_400(http: httpx.AsyncClient) -> None:
    for body in (b"[]", b"null", b"1", b'"x"', b"\xff\xfe", b"{"):
        _error(await http.post("/api/tournaments", content=body, headers=JSON), 400, "bad_request")


async def test_a_401_names_the_bearer_scheme(http: httpx.AsyncClient) -> None:
    body = {"name": "Cup", "host_name": "Host", "table_size": 2, "format": "elimination"}
    created = await http.post("/api/tournaments", json=body)
    assert created.status_code == 201, created.text
    code = created.json()["tournament"]
    for answer in (
        await http.post(f"/api/tournaments/{code}/start"),
        await http.post(f"/api/tournaments/{code}/start", headers={"Authorization": "Basic x"}),
        await http.get(f"/api/tournaments/{code}/me", headers={"Authorization": "Bearer nope"}),
    ):
        _error(answer, 401, "unauthorized")
        assert answer.headers.get("www-authenticate", "").startswith("Bearer"), answer.headers


@pytest.mark.parametrize(
    "body", [b"", b"{}", b"null", b'{"name": null}', b'{"name": ""}', b'{"name": "   "}']
)
async def test_a_spectator_without_a_name_gets_the_default_one(
    http: httpx.AsyncClient, body: bytes
) -> None:
    """The spectator's name is optional (docs/protocol.md "Watch"): an absent body, an absent,
    empty or null name were accepted, but `null` was a 400 and a blank name a 400 bad_name."""
    room = (await http.post("/api/rooms", json={"name": "Host"})).json()["room"]
    headers = JSON if body else {}
    answer = await http.post(f"/api/rooms/{room}/spectators", content=body, headers=headers)
    assert answer.status_code == 201, answer.text
    assert set(answer.json()) >= {"token", "spectator_id"}


async def test_a_spectator_name_of_the_wrong_type_is_still_a_400(http: httpx.AsyncClient) -> None:
    room = (await http.post("/api/rooms", json={"name": "Host"})).json()["room"]
    for name in (5, ["a"], {"a": 1}, True):
        answer = await http.post(f"/api/rooms/{room}/spectators", json={"name": name})
        _error(answer, 400, "bad_request")
    _error(
        await http.post(f"/api/rooms/{room}/spectators", json={"name": "a\u202eb"}), 400, "bad_name"
    )
