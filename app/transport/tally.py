"""What this process has done, counted where it happens, for GET /metrics (app/api/metrics.py).

Each count is an integer or a dict increment on a path that does far more; nothing of a room
or a player is kept, only totals by kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from app.engine.events import Event


class Tally:
    def __init__(self) -> None:
        self.commits = 0
        self.events = 0
        self.rounds = 0  # rounds completed (their `round_ended` committed here)
        self.refused: Counter[str] = Counter()  # error frames sent, by code
        self.closed: Counter[str] = Counter()  # sockets closed for abuse, by reason
        # Requests and handshakes refused over `max_open_per_address`, by "http"/"websocket".
        self.over_open_cap: Counter[str] = Counter()

    def observe(self, room: str, events: Sequence[Event]) -> None:
        """A commit observer (RoomService.commit_observers): one call per commit won."""
        self.commits += 1
        self.events += len(events)
        for event in events:
            if event.kind == "round_ended":
                self.rounds += 1
