"""The soak, reduced for CI (issue 11): a few rooms, a low target score, one SIGKILL, a
database cut of a few seconds and (two processes) a Redis restart; nothing may be lost,
duplicated or leaked, and every match finishes. `make soak` runs it at full size.

PostgreSQL and Redis (redis-server for the private one) missing: a skip locally, a failure
when CI=true (tests/cluster/harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .soak import Options, run_mode

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.mark.timeout(90)
@pytest.mark.parametrize("mode", ["embedded", pytest.param("cluster", marks=pytest.mark.redis)])
async def test_the_reduced_soak_loses_nothing(mode: str, tmp_path: Path) -> None:
    options = Options(
        mode=mode,
        rooms=6,
        target=100,
        outage_seconds=3.0,
        drop_every_s=3.0,
        max_seconds=45.0,
        workdir=tmp_path,
    )
    report = await run_mode(options)
    print("\n" + "\n".join(report.lines()))
    assert len(report.faults) == (2 if mode == "embedded" else 3), report.faults
    assert report.violations == []
    assert report.leaks == []
    assert report.lost_rounds == [] and report.duplicated_rounds == []
    assert report.matches_started >= report.rooms == 6
    assert report.matches_finished == report.matches_started
    assert report.matches_finished_stored == report.matches_started
    assert report.rounds_seen > 0 and report.frames_audited > 1000
    assert report.clean
