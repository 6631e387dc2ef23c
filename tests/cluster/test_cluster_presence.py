"""kill -9 of a process holding players' sockets: the other players see those seats go
`connected: false` within the presence lease and a margin, exactly once (two survivors race
to reap the dead process), and a seat whose player came back through another process before
the lease ran out is never marked disconnected."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from .harness import Player, cluster
from .test_cluster_play import QUIET

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

LEASE_MS = 1500
# A survivor looks every quarter lease; the lease runs out up to a lease after the last
# refresh; then the reap and its commit's fan-out.
MARGIN_S = 3.0


def _connected(player: Player, seat: int) -> bool:
    assert player.view is not None
    seats: list[dict[str, Any]] = player.view["seats"]
    return bool(seats[seat]["connected"])


def _marked(player: Player, kind: str, seat: int) -> int:
    return sum(1 for e in player.history.values() if e["kind"] == kind and e["seat"] == seat)


@pytest.mark.timeout(90)
async def test_a_killed_process_players_are_shown_disconnected(tmp_path: Path) -> None:
    env = {"REDIS_PRESENCE_LEASE_MS": str(LEASE_MS)}
    async with cluster(3, tmp_path, **env) as c:
        host_reply = await c.post(0, "/api/rooms", {"name": "Host", "settings": QUIET})
        room = host_reply["room"]
        joined = [
            await c.post(1, f"/api/rooms/{room}/players", {"name": name})
            for name in ("Guest", "Mover")
        ]
        host = Player(room, host_reply["token"])
        guest = Player(room, joined[0]["token"])
        mover = Player(room, joined[1]["token"])
        await host.connect(c.processes[0])  # dies with process 0
        await mover.connect(c.processes[0])  # comes back through process 2 at once
        await guest.connect(c.processes[1])  # watches from process 1
        await guest.until(lambda: all(_connected(guest, s) for s in (0, 1, 2)))

        c.processes[0].kill()
        killed_at = time.monotonic()
        await mover.until(lambda: not mover.connected, timeout=10)
        await mover.connect(c.processes[2])

        await guest.until(lambda: not _connected(guest, 0), timeout=LEASE_MS / 1000 + MARGIN_S)
        took = time.monotonic() - killed_at
        assert took <= LEASE_MS / 1000 + MARGIN_S
        # Another full lease for a second reaper to do it again, if it would.
        await asyncio.sleep(LEASE_MS / 1000 + 1.0)
        final = guest.version
        await mover.until(lambda: mover.version >= final)
        for player in (guest, mover):
            assert _marked(player, "disconnected", 0) == 1
            assert not _connected(player, 0)
            # The mover's seat stays connected: its socket is held by a live process.
            assert _marked(player, "disconnected", 2) == 0
            assert _connected(player, 2)
            assert _connected(player, 1)
        # The host comes back: connected again, and nobody takes it away.
        await host.connect(c.processes[1])
        await guest.until(lambda: _connected(guest, 0))
        await asyncio.sleep(LEASE_MS / 1000)
        assert _connected(guest, 0) and _marked(guest, "disconnected", 0) == 1
        for player in (host, guest, mover):
            await player.close()
