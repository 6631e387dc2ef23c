"""Through the real server (uvicorn, sockets, bots): a whole match lands in the database as the
`round_ended` events told it, and survives a server restart. Uses the e2e harness."""

from __future__ import annotations

from typing import Any

import pytest
from e2e.harness import running_server, server_settings

from app.store.sql.models import Round, RoundPlayer

from .conftest import Database
from .helpers import count_rows

SETTINGS = {
    "target_score": 50,
    "bot_delay_ms": 0,
    "turn_seconds": 0,
    "next_round_seconds": 1,
    "dealer": 0,
}


def wire_round(event: dict[str, Any]) -> dict[str, Any]:
    """The GET /api/matches round entry a round_ended event should give."""
    return {
        "number": event["round"],
        "winner": event["winner"],
        "points": event["points"],
        "ended_at": event["ended_at"],
    }


async def test_a_bot_match_through_the_server_is_stored_as_its_events_said(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server builds its recorder from DATABASE_URL; give it this test's database.
    monkeypatch.setattr("app.store.matches.create_recorder", lambda url: database.recorder(url))
    config = server_settings(database_url=database.url)
    async with running_server(config) as server:
        host = await server.create_room("Host", SETTINGS)
        seated = await server.connect(host["room"], host["token"])
        for _ in range(2):
            assert (await seated.act("add_bot"))["type"] == "ack"
        watcher = await server.connect(host["room"], await server.spectate(host["room"]))
        assert (await seated.act("start"))["type"] == "ack"
        assert (await seated.act("leave"))["type"] == "ack"  # a bot takes the seat over
        await seated.close()
        ended = await watcher.event("match_ended", timeout=40)
        match_id = ended.view["match_id"]
        round_ends: list[dict[str, Any]] = list(watcher.seen("round_ended"))
        live = (await server.http.get(f"/api/matches/{match_id}")).json()

    expected_rounds = [
        {
            "number": e["round"],
            "winner": e["winner"],
            "points": e["points"],
            "ended_at": e["ended_at"],
        }
        for e in round_ends
    ]
    assert live["status"] == "finished"
    assert live["winner"] == ended["winner"]
    assert live["scores"] == ended["scores"] == round_ends[-1]["scores"]
    assert live["rounds"] == expected_rounds

    # a new server process on the same database: the match is intact
    async with running_server(config) as server:
        again = (await server.http.get(f"/api/matches/{match_id}")).json()
    assert again == live
    counter = database.recorder(migrate=False)
    await counter.start()
    assert await count_rows(counter, Round, match_id) == len(round_ends)
    assert await count_rows(counter, RoundPlayer, match_id) == 3 * len(round_ends)
