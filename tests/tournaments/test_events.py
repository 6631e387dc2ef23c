"""The tournament page's pushed updates (GET /api/tournaments/{t}/events, server-sent events,
docs/protocol.md "Tournament updates") on a real server: the public answer at once, then again
as soon as it changes, without polling; an unknown tournament is a 404 with the error shape;
the stream ends by itself once the tournament is finished."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
from e2e.harness import running_server, server_settings

from .test_http import bearer, create, play_entrant, register


async def events(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    buffer = ""
    async for chunk in response.aiter_text():
        buffer += chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            lines = block.split("\n")
            assert lines[0] == "event: tournament"
            yield json.loads("".join(line[len("data: ") :] for line in lines[1:]))


async def test_changes_are_pushed_as_they_happen() -> None:
    async with running_server(server_settings()) as h:
        created = await create(h, grace_seconds=0, table_size=3, fill_with_bots=True)
        code = created["tournament"]
        missing = await h.http.get("/api/tournaments/nope/events")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not_found"
        async with h.http.stream("GET", f"/api/tournaments/{code}/events") as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            assert response.headers["cache-control"] == "no-cache"
            stream = events(response)
            first = await anext(stream)
            assert first == (await h.http.get(f"/api/tournaments/{code}")).json()
            assert first["entrants"] == []
            for name in ("Ana", "Bo"):
                asked = time.monotonic()
                await register(h, code, name)
                pushed = await asyncio.wait_for(anext(stream), 2)
                # Pushed as it happened: well under the page's old 3 s poll.
                assert time.monotonic() - asked < 1.0
                assert pushed["entrants"][-1]["name"] == name
            start = f"/api/tournaments/{code}/start"
            assert (await h.http.post(start, headers=bearer(created["token"]))).is_success
            pushed = await asyncio.wait_for(anext(stream), 2)
            assert pushed["status"] == "running" and len(pushed["rounds"]) == 1
            assert created["token"] not in json.dumps(pushed)


async def test_a_finished_tournament_ends_its_stream() -> None:
    async with running_server(server_settings()) as h:
        created = await create(h, grace_seconds=5)
        code = created["tournament"]
        entrants = [await register(h, code, name) for name in ("Ana", "Bo")]
        async with h.http.stream("GET", f"/api/tournaments/{code}/events") as response:
            stream = events(response)
            assert (await anext(stream))["status"] == "registering"
            start = f"/api/tournaments/{code}/start"
            assert (await h.http.post(start, headers=bearer(created["token"]))).is_success
            reading = asyncio.create_task(asyncio.wait_for(_all(stream), 30))
            await asyncio.wait_for(
                asyncio.gather(*(play_entrant(h, code, e["token"]) for e in entrants)), 30
            )
            seen = await reading  # the stream ended by itself
        assert seen[-1]["status"] == "finished"
        assert [b["status"] for b in seen].count("finished") == 1
        assert seen[-1] == (await h.http.get(f"/api/tournaments/{code}")).json()
        assert seen[-1]["winner"] in {e["entrant_id"] for e in entrants}
        assert h.auditor.problems == []


async def _all(stream: AsyncIterator[dict[str, Any]]) -> list[dict[str, Any]]:
    return [body async for body in stream]
