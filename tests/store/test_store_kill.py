"""A round end is durable once `round_completed` returns, even for a process killed with
SIGKILL right after (no shutdown, no last flush): the round waits in the outbox file and is
stored in the database exactly once by the next process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from app.store.sql.migrate import REPO_ROOT
from app.store.sql.models import MatchScore, Round, RoundPlayer
from app.store.sql.records import record_to_json
from tests.ports import free_port

from .conftest import Database
from .helpers import count_rows, expected_body, match_rounds, wait_until_delivered

POINTS = [(30, 0, 0), (0, 12, 0)]

# The killed process: a recorder whose database is unreachable (so nothing can reach the
# database before the kill), one round completed, then SIGKILL from the process itself.
CHILD = """
import asyncio, json, os, signal, sys
from pathlib import Path
from app.store.sql.recorder import SqlRecorder
from app.store.sql.records import record_from_json

async def main() -> None:
    url, outbox, body = sys.argv[1:4]
    recorder = SqlRecorder(url, outbox_path=Path(outbox), write_timeout=0.2)
    await recorder.start()
    await recorder.round_completed(record_from_json(json.loads(body)))
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


def complete_then_die(outbox: Path, body: str) -> int:
    unreachable = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/test"
    child = subprocess.run(
        [sys.executable, "-c", CHILD, unreachable, str(outbox), body],
        cwd=REPO_ROOT,
        capture_output=True,
        timeout=60,
    )
    return child.returncode


async def test_a_round_completed_just_before_a_sigkill_is_stored_once_after_restart(
    database: Database,
) -> None:
    outbox = database.workdir / "outbox.sqlite3"
    records = match_rounds(POINTS)
    for r in records:
        body = json.dumps(record_to_json(r))
        assert await asyncio.to_thread(complete_then_die, outbox, body) == -9

    restarted = database.recorder(outbox_path=outbox)
    await restarted.start()
    assert restarted.outbox_size() == len(records)  # both survived the kills
    await wait_until_delivered(restarted)
    assert await count_rows(restarted, Round, "match-1") == len(records)
    assert await count_rows(restarted, RoundPlayer, "match-1") == 3 * len(records)
    assert await count_rows(restarted, MatchScore, "match-1") == 3
    await restarted.close()

    # another start finds nothing left to deliver, and reads the database alone
    again = database.recorder(outbox_path=database.workdir / "fresh-outbox.sqlite3")
    await again.start()
    assert await again.get_match("match-1") == expected_body(records, finished=False)
    assert await count_rows(again, Round, "match-1") == len(records)
