"""The journal: the round end's durable step (a memory copy into a mapped file), its segments,
and what another process recovers from them."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import app.store.sql.recorder as recorder_module
from app.store.sql.journal import Journal, read_entries
from app.store.sql.migrate import REPO_ROOT
from app.store.sql.models import Round, RoundPlayer
from app.store.sql.outbox import encode
from app.store.sql.recorder import journal_directory
from app.store.sql.records import record_to_json

from .conftest import Database
from .helpers import count_rows, expected_body, match_rounds, wait_until_delivered
from .proxy import free_port

SMALL = 16 * 1024  # a few rounds per segment, so the tests rotate often


def segments(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.seg"))


async def test_entries_read_back_in_order_and_a_torn_tail_ends_the_segment(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "j", SMALL)
    await journal.open()
    payloads = [b'{"n":%d}' % i for i in range(5)]
    tickets = [journal.append(p) for p in payloads]
    assert all(t is not None for t in tickets)
    (active,) = [p for p in segments(tmp_path / "j") if p.read_bytes().strip(b"\0")]
    data = bytearray(active.read_bytes())
    assert len(data) == SMALL  # allocated in full up front
    assert read_entries(bytes(data)) == payloads

    # a crash in the middle of an entry: its header is still zero, or its CRC does not match
    end = tickets[3][1]
    torn = bytearray(data)
    torn[end : end + 8] = b"\0" * 8
    assert read_entries(bytes(torn)) == payloads[:4]
    torn = bytearray(data)
    torn[end + 8] ^= 0xFF  # the last payload's first byte
    assert read_entries(bytes(torn)) == payloads[:4]
    await journal.close(released=True)
    assert segments(tmp_path / "j") == []


async def test_a_live_journal_is_not_recovered_by_another_process_and_a_closed_one_is(
    tmp_path: Path,
) -> None:
    writer = Journal(tmp_path / "j", SMALL)
    await writer.open()
    assert writer.append(b"round-1") is not None
    reader = Journal(tmp_path / "j", SMALL)
    assert await reader.recover() == []  # flocked by a live writer
    await writer.close(released=False)  # as if it could not hand its rounds over
    orphans = await reader.recover()
    assert [o.payloads for o in orphans if o.payloads] == [[b"round-1"]]
    await reader.discard(orphans)
    assert segments(tmp_path / "j") == []


async def test_full_segments_rotate_to_the_spare_and_go_once_released(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j", SMALL)
    await journal.open()
    payload = b"x" * 3000  # five entries a segment
    tickets = []
    for _ in range(12):
        ticket = journal.append(payload)
        if ticket is None:  # the spare is still being made: the caller uses the outbox
            await asyncio.sleep(0.05)
            ticket = journal.append(payload)
        assert ticket is not None
        tickets.append(ticket)
        await asyncio.sleep(0.01)  # lets the spare be prepared in the background
    used = {t.segment for t in tickets}
    assert len(used) == 3
    assert len(segments(tmp_path / "j")) == 4  # three used (one active) and the spare
    await journal.release(tickets[-1])
    assert len(segments(tmp_path / "j")) == 2  # the retired ones are gone
    await journal.close(released=True)


async def test_a_round_end_falls_back_to_the_outbox_when_no_segment_is_ready(
    database: Database,
) -> None:
    records = match_rounds([(10 * (i + 1), 0, 0) for i in range(12)])
    recorder = database.recorder()
    await recorder.start()
    assert recorder.journal is not None
    recorder.journal.segment_bytes = 64  # smaller than any record: every append refuses
    for r in records:
        await recorder.round_completed(r)
    assert len(recorder.outbox) == len(records)  # durable in the outbox instead
    await wait_until_delivered(recorder)
    assert await count_rows(recorder, Round, "match-1") == len(records)
    assert await recorder.get_match("match-1") == expected_body(records, finished=False)


async def test_journaled_rounds_reach_the_database_once_and_the_segments_are_released(
    database: Database,
) -> None:
    records = match_rounds([(i % 7, 0, 0) for i in range(40)])
    recorder = database.recorder()
    recorder.journal = Journal(journal_directory(recorder.outbox.path), SMALL)
    await recorder.start()
    for r in records:
        await recorder.round_completed(r)
        await asyncio.sleep(0)  # the hand-over runs right behind each round end
    await wait_until_delivered(recorder)
    assert await count_rows(recorder, Round, "match-1") == len(records)
    assert await count_rows(recorder, RoundPlayer, "match-1") == 3 * len(records)
    assert await recorder.get_match("match-1") == expected_body(records, finished=False)
    # what the journal still keeps: the active segment and the spare, nothing retired
    assert len(segments(journal_directory(recorder.outbox.path))) <= 3
    await recorder.close()
    assert segments(journal_directory(recorder.outbox.path)) == []


CHILD = """
import asyncio, json, os, signal, sys
from pathlib import Path
from app.store.sql.recorder import SqlRecorder
from app.store.sql.records import record_from_json

async def main() -> None:
    url, outbox = sys.argv[1:3]
    recorder = SqlRecorder(url, outbox_path=Path(outbox), write_timeout=0.2)
    await recorder.start()
    for body in sys.stdin.read().splitlines():
        await recorder.round_completed(record_from_json(json.loads(body)))
    # no await after the last round end: the hand-over to the outbox never ran
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


async def test_rounds_in_the_journal_of_a_killed_process_are_recovered_and_stored_once(
    database: Database,
) -> None:
    outbox = database.workdir / "killed-outbox.sqlite3"
    records = match_rounds([(20, 0, 0), (0, 30, 0), (0, 0, 40)])
    bodies = "\n".join(json.dumps(record_to_json(r)) for r in records)
    unreachable = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/test"
    child = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", CHILD, unreachable, str(outbox)],
        input=bodies.encode(),
        cwd=REPO_ROOT,
        capture_output=True,
        timeout=60,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()[-2000:]
    # the rounds are in the journal only: the outbox never saw them
    with sqlite3.connect(outbox) as conn:
        assert conn.execute("SELECT count(*) FROM outbox").fetchone() == (0,)
    found = [
        read_entries(p.read_bytes())
        for p in segments(journal_directory(outbox))
        if p.stat().st_size
    ]
    assert sorted(e for entries in found for e in entries) == sorted(encode(r) for r in records)

    restarted = database.recorder(outbox_path=outbox)
    await restarted.start()
    assert len(restarted.outbox) == len(records)  # recovered into the outbox at start
    await wait_until_delivered(restarted)
    assert await count_rows(restarted, Round, "match-1") == len(records)
    assert await restarted.get_match("match-1") == expected_body(records, finished=False)
    await restarted.close()
    assert segments(journal_directory(outbox)) == []

    again = database.recorder(outbox_path=outbox)  # nothing is delivered twice
    await again.start()
    assert again.outbox_size() == 0
    assert await count_rows(again, Round, "match-1") == len(records)


def test_the_journal_files_are_private(tmp_path: Path) -> None:
    async def make() -> None:
        journal = Journal(tmp_path / "j", SMALL)
        await journal.open()
        for path in segments(tmp_path / "j"):
            assert os.stat(path).st_mode & 0o077 == 0  # rounds hold hands and the snapshot
        await journal.close(released=True)

    asyncio.run(make())


async def test_with_the_database_up_journaled_rounds_skip_the_outbox(database: Database) -> None:
    records = match_rounds([(5, 0, 0), (0, 6, 0), (0, 0, 7)])
    recorder = database.recorder()
    await recorder.start()
    for r in records:
        await recorder.round_completed(r)
    await wait_until_delivered(recorder)
    assert await count_rows(recorder, Round, "match-1") == len(records)
    with sqlite3.connect(recorder.outbox.path) as conn:  # AUTOINCREMENT remembers any insert
        used = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").fetchall()
    assert used == []


async def test_the_delivery_waits_until_the_round_ends_move_is_out(database: Database) -> None:
    """Woken at once, the delivery would run before the move's own events and ack went out."""
    (record,) = match_rounds([(9, 0, 0)])
    recorder = database.recorder()
    await recorder.start()
    await recorder.round_completed(record)
    for _ in range(20):  # what the room does next: commit, publish, the sockets' sends
        await asyncio.sleep(0)
    assert recorder.outbox_size() == 1  # still only in the journal
    await wait_until_delivered(recorder)
    assert await count_rows(recorder, Round, "match-1") == 1


async def test_a_running_process_adopts_the_journal_of_a_sibling_that_died(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder_module, "ORPHAN_SCAN_S", 0.1)
    records = match_rounds([(3, 0, 0), (0, 4, 0)])
    survivor = database.recorder()
    await survivor.start()
    # a sibling sharing the data folder journals two rounds, then dies before handing them on
    sibling = Journal(journal_directory(survivor.outbox.path), SMALL)
    await sibling.open()
    for r in records:
        assert sibling.append(encode(r)) is not None
    await sibling.close(released=False)  # its flock is gone, as when the process dies
    async with asyncio.timeout(10):
        while await count_rows(survivor, Round, "match-1") < len(records):
            await asyncio.sleep(0.05)
    assert await survivor.get_match("match-1") == expected_body(records, finished=False)
    assert not any(p.name.startswith(sibling.owner) for p in segments(sibling.directory))
