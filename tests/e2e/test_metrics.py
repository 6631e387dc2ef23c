"""GET /metrics: off unless METRICS_TOKEN is set, a bearer token required, counts only (no room
code, name, card or token), and the counts follow what happened: sockets by role, commits,
rounds completed, error frames by code, sockets closed for abuse."""

from __future__ import annotations

import asyncio
import re

from e2e.harness import deal_order, running_server, server_settings

TOKEN = "scrape-secret-0123456789"


def _samples(text: str) -> dict[str, float]:
    values: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


async def test_there_is_no_metrics_endpoint_without_a_token() -> None:
    async with running_server(server_settings()) as server:
        response = await server.http.get("/metrics")
        assert response.status_code == 404
        assert "text/html" not in response.headers.get("content-type", "")  # not the page


async def test_a_scrape_needs_the_token() -> None:
    async with running_server(server_settings(metrics_token=TOKEN)) as server:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            response = await server.http.get("/metrics", headers=headers)
            assert response.status_code == 401, headers
            assert "uno_" not in response.text
        response = await server.http.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain; version=0.0.4")


async def test_the_counts_follow_the_play_and_name_nobody() -> None:
    async with running_server(server_settings(metrics_token=TOKEN)) as server:

        async def scrape() -> tuple[str, dict[str, float]]:
            response = await server.http.get(
                "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
            )
            assert response.status_code == 200
            return response.text, _samples(response.text)

        _, before = await scrape()
        assert before['uno_sockets{role="player"}'] == 0
        assert before["uno_commits_total"] == 0

        host = await server.create_room("Ayşe", {"turn_seconds": 0, "next_round_seconds": 0})
        room = host["room"]
        guest = await server.join(room, "Mikko")
        watcher = await server.spectate(room)
        deck = await server.deck(room)
        skips = ["red skip", "red skip", "green skip", "green skip", "blue skip", "blue skip"]
        order, ids, _ = deal_order(deck, [[*skips, "blue 1"], ["yellow 2"]], "red 5", dealer=1)
        a = await server.connect(room, host["token"])
        b = await server.connect(room, guest["token"])
        await server.connect(room, watcher)
        _, seated = await scrape()
        assert seated['uno_sockets{role="player"}'] == 2
        assert seated['uno_sockets{role="spectator"}'] == 1
        assert seated["uno_rooms_with_sockets"] == 1

        assert (await a.act("settings", settings={"dealer": 1, "deck_order": order}))[
            "type"
        ] == "ack"
        assert (await a.act("start"))["type"] == "ack"
        stranger = await server.open(room)  # a wrong token: refused before any seat
        await stranger.send({"type": "hello", "token": "not-a-token", "since": None})
        assert (await stranger.recv())["code"] == "unauthorized"
        refused = await b.act("play", card=ids[1][0])  # not the guest's turn
        assert refused["code"] == "not_your_turn"
        for n, card in enumerate(ids[0]):
            assert (await a.act("play", card=card, uno=(n == 5)))["type"] == "ack"

        text, after = await scrape()
        assert after["uno_commits_total"] >= before["uno_commits_total"] + 9
        assert after["uno_events_total"] >= after["uno_commits_total"]
        assert after["uno_rounds_completed_total"] == 1
        assert after['uno_errors_sent_total{code="not_your_turn"}'] == 1
        assert after['uno_errors_sent_total{code="unauthorized"}'] == 1
        assert after["process_resident_memory_bytes"] > 10_000_000
        assert after["process_cpu_seconds_total"] > 0
        # Counts only: nothing of the room or its people.
        for secret in (room, "Ayşe", "Mikko", host["token"], guest["token"], watcher):
            assert secret not in text
        assert re.search(r'"(red|blue|green|yellow)', text) is None


async def test_a_socket_closed_for_a_flood_is_counted_by_its_reason() -> None:
    settings = server_settings(
        metrics_token=TOKEN, rate_limit_per_second=1.0, rate_limit_burst=2,
        error_budget_per_second=0.1, error_budget_burst=1,
    )  # fmt: skip
    async with running_server(settings) as server:
        host = await server.create_room()
        client = await server.connect(host["room"], host["token"])
        for n in range(40):
            try:
                await client.send({"type": "ping", "id": f"p{n}"})
            except Exception:  # closed by the server mid-flood
                break
        await asyncio.wait_for(client.ws.wait_closed(), 5)
        response = await server.http.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        closed = _samples(response.text)
        assert closed['uno_sockets_closed_for_abuse_total{reason="rate limit"}'] == 1
        assert closed['uno_errors_sent_total{code="rate_limited"}'] == 1
