"""A database outage during play: round ends do not wait, and every round lands exactly once.

PostgreSQL sits behind a loopback TCP proxy that the test cuts (connections refused and the
open ones dropped) or stalls (a black hole), then restores; SQLite is locked by another writer.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from app.store.recorder import RecorderUnavailable
from app.store.sql.models import MatchScore, Round, RoundPlayer

from .conftest import Database
from .helpers import count_rows, expected_body, match_rounds, wait_until_delivered
from .proxy import TcpProxy

POINTS = [(30, 0, 0), (0, 12, 0), (0, 0, 9), (41, 0, 0), (0, 25, 0)]
WRITE_TIMEOUT = 0.5
TIMEOUTS = {"write_timeout": WRITE_TIMEOUT, "read_timeout": WRITE_TIMEOUT}


async def _timed(work: object) -> float:
    loop = asyncio.get_running_loop()
    start = loop.time()
    await work  # type: ignore[misc]
    return loop.time() - start


class Outage:
    """Makes the test database unavailable and available again.

    PostgreSQL: the proxy is closed (connections refused, open ones dropped). SQLite: another
    connection holds the write lock (as another process or a stuck writer would), so writes
    wait on the busy timeout; reads still work there (WAL).
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self.proxy: TcpProxy | None = None
        self.locker: sqlite3.Connection | None = None
        self.down = False

    async def open(self) -> str:
        """The URL the recorder under test uses."""
        if self.db.kind == "postgresql":
            self.proxy = TcpProxy(make_url(self.db.url).port or 5432)
            await self.proxy.open()
            return self.db.url_via_port(self.proxy.port)
        return self.db.url

    async def cut(self) -> None:
        self.down = True
        if self.proxy is not None:
            await self.proxy.close()
        else:
            path = make_url(self.db.url).database
            assert path is not None
            self.locker = sqlite3.connect(path, isolation_level=None)
            self.locker.execute("BEGIN EXCLUSIVE")

    async def restore(self) -> None:
        if not self.down:
            return
        self.down = False
        if self.proxy is not None:
            await self.proxy.open()
        elif self.locker is not None:
            self.locker.execute("COMMIT")
            self.locker.close()
            self.locker = None

    async def close(self) -> None:
        await self.restore()
        if self.proxy is not None:
            await self.proxy.close()


async def test_rounds_completed_while_the_database_is_down_are_stored_once_after(
    database: Database,
) -> None:
    outage = Outage(database)
    url = await outage.open()
    recorder = database.recorder(url, **TIMEOUTS)
    direct = database.recorder(outbox_path=database.workdir / "direct.sqlite3", migrate=False)
    try:
        await recorder.start()
        records = match_rounds(POINTS, finished=True)
        await recorder.round_completed(records[0])
        await wait_until_delivered(recorder)  # delivered in the background

        await outage.cut()
        for r in records[1:3]:
            assert await _timed(recorder.round_completed(r)) < WRITE_TIMEOUT + 0.5
        assert recorder.outbox_size() == 2
        # a room restored now still starts from its latest round (kept in the outbox)
        assert await recorder.latest_snapshot("ROOM1") == records[2].snapshot
        if database.kind == "postgresql":
            assert await recorder.healthy() is False
            with pytest.raises(RecorderUnavailable):
                await recorder.get_match("match-1")
        else:  # still readable: the outboxed rounds are shown with the stored one
            assert await recorder.get_match("match-1") == expected_body(records[:3], finished=False)
        await asyncio.sleep(0.5)  # failed delivery attempts change nothing
        assert recorder.outbox_size() == 2

        await outage.restore()
        await recorder.round_completed(records[3])  # behind the outbox, in order
        recorder.wake_delivery()
        await wait_until_delivered(recorder)
        await recorder.round_completed(records[4])
        await wait_until_delivered(recorder)

        await direct.start()
        assert await count_rows(direct, Round, "match-1") == 5
        assert await count_rows(direct, RoundPlayer, "match-1") == 15
        assert await count_rows(direct, MatchScore, "match-1") == 3
        assert await direct.get_match("match-1") == expected_body(records, finished=True)
        assert await recorder.healthy() is True
    finally:
        await outage.close()


async def test_a_server_started_during_an_outage_migrates_and_delivers_when_it_ends(
    database: Database,
) -> None:
    outage = Outage(database)
    url = await outage.open()
    recorder = database.recorder(url, **TIMEOUTS)  # (creates the data folder)
    await outage.cut()
    try:
        await recorder.start()  # does not fail: the rounds wait in the outbox
        records = match_rounds(POINTS[:2])
        for r in records:
            assert await _timed(recorder.round_completed(r)) < WRITE_TIMEOUT + 0.5
        assert recorder.outbox_size() == 2
        await outage.restore()
        recorder.wake_delivery()
        await wait_until_delivered(recorder)
        assert await recorder.get_match("match-1") == expected_body(records, finished=False)
        assert await count_rows(recorder, Round, "match-1") == 2
    finally:
        await outage.close()


async def _read_after_healing(recorder: Any, match_id: str) -> Any:
    """`get_match` once the database is back: its read timeout is this test's 0.5 s, which a
    first read on a new connection can overrun on a loaded machine (seen in CI at load 10);
    a few tries, each still bounded by that timeout."""
    for _ in range(9):
        try:
            return await recorder.get_match(match_id)
        except RecorderUnavailable:
            await asyncio.sleep(0.2)
    return await recorder.get_match(match_id)


async def test_a_stalled_database_does_not_stall_the_round_end(postgres_only: Database) -> None:
    db = postgres_only
    proxy = TcpProxy(make_url(db.url).port or 5432)
    await proxy.open()
    recorder = db.recorder(db.url_via_port(proxy.port), **TIMEOUTS)
    try:
        await recorder.start()
        records = match_rounds(POINTS[:3])
        await recorder.round_completed(records[0])
        await wait_until_delivered(recorder)

        proxy.stall()  # connections stay open, nothing comes back
        for r in records[1:]:
            assert await _timed(recorder.round_completed(r)) < WRITE_TIMEOUT + 0.5
        assert recorder.outbox_size() == 2
        # a new match dealt now does not wait for the database at all
        start = recorder.match_started("match-2", "ROOM1", records[0].settings, (), 0)
        assert await _timed(start) < 0.1
        assert await _timed(recorder.healthy()) < WRITE_TIMEOUT + 0.5
        assert await recorder.healthy() is False
        with pytest.raises(RecorderUnavailable):
            await recorder.get_match("match-1")

        proxy.resume()
        recorder.wake_delivery()
        await wait_until_delivered(recorder)
        assert await count_rows(recorder, Round, "match-1") == 3
        assert await _read_after_healing(recorder, "match-1") == expected_body(
            records, finished=False
        )
    finally:
        await proxy.close()
