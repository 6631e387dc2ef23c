"""A database outage during play: round ends do not wait, and every round lands exactly once.

PostgreSQL sits behind a loopback TCP proxy that the test cuts (connections refused and the
open ones dropped) or stalls (a black hole), then restores.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.engine import make_url

from app.store.recorder import RecorderUnavailable
from app.store.sql.models import MatchScore, Round, RoundPlayer

from .conftest import Database
from .helpers import count_rows, expected_body, match_rounds, wait_until_delivered
from .proxy import TcpProxy

POINTS = [(30, 0, 0), (0, 12, 0), (0, 0, 9), (41, 0, 0), (0, 25, 0)]
WRITE_TIMEOUT = 0.5


async def _timed(work: object) -> float:
    loop = asyncio.get_running_loop()
    start = loop.time()
    await work  # type: ignore[misc]
    return loop.time() - start


async def test_rounds_completed_while_the_database_is_down_are_stored_once_after(
    postgres_only: Database,
) -> None:
    db = postgres_only
    proxy = TcpProxy(make_url(db.url).port or 5432)
    await proxy.open()
    recorder = db.recorder(db.url_via_port(proxy.port), write_timeout=WRITE_TIMEOUT)
    direct = db.recorder(outbox_path=db.workdir / "direct-outbox.sqlite3", migrate=False)
    try:
        await recorder.start()
        records = match_rounds(POINTS, finished=True)
        await recorder.round_completed(records[0])
        assert recorder.outbox_size() == 0

        await proxy.close()  # the outage
        for r in records[1:3]:
            assert await _timed(recorder.round_completed(r)) < WRITE_TIMEOUT + 0.5
        assert recorder.outbox_size() == 2
        assert await recorder.healthy() is False
        with pytest.raises(RecorderUnavailable):
            await recorder.get_match("match-1")
        # a room restored now still starts from its latest round (kept in the outbox)
        assert await recorder.latest_snapshot("ROOM1") == records[2].snapshot
        await asyncio.sleep(0.5)  # a few failed delivery attempts
        assert recorder.outbox_size() == 2

        await proxy.open()  # the database returns
        await recorder.round_completed(records[3])  # behind the outbox, in order
        await wait_until_delivered(recorder)
        await recorder.round_completed(records[4])  # straight to the database again
        assert recorder.outbox_size() == 0

        await direct.start()
        assert await count_rows(direct, Round, "match-1") == 5
        assert await count_rows(direct, RoundPlayer, "match-1") == 15
        assert await count_rows(direct, MatchScore, "match-1") == 3
        assert await direct.get_match("match-1") == expected_body(records, finished=True)
        assert await recorder.healthy() is True
    finally:
        await proxy.close()


async def test_a_stalled_database_does_not_stall_the_round_end(postgres_only: Database) -> None:
    db = postgres_only
    proxy = TcpProxy(make_url(db.url).port or 5432)
    await proxy.open()
    recorder = db.recorder(db.url_via_port(proxy.port), write_timeout=WRITE_TIMEOUT)
    try:
        await recorder.start()
        records = match_rounds(POINTS[:3])
        await recorder.round_completed(records[0])

        proxy.stall()  # connections stay open, nothing comes back
        for r in records[1:]:
            assert await _timed(recorder.round_completed(r)) < WRITE_TIMEOUT + 0.5
        assert recorder.outbox_size() == 2
        assert await _timed(recorder.healthy()) < WRITE_TIMEOUT + 0.5
        assert await recorder.healthy() is False
        with pytest.raises(RecorderUnavailable):
            await recorder.get_match("match-1")

        proxy.resume()
        recorder.wake_delivery()
        await wait_until_delivered(recorder)
        assert await count_rows(recorder, Round, "match-1") == 3
        assert await recorder.get_match("match-1") == expected_body(records, finished=False)
    finally:
        await proxy.close()
