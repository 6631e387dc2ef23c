"""The tournament's side of each table: seat a round, start a table's match once its entrants
are there (or the grace period is over), keep the lobby as the tournament planned it, and
read the table's result from the stored match when it is over.

Every function changes the record it is given and the rooms through the `Tables` interface;
the caller (app/tournaments/runner.py) holds the tournament's lease and saves the record with
compare-and-set afterwards, so each result and each new round is decided once.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping
from typing import Any

from app.engine import actions as act
from app.tournaments import core
from app.tournaments.records import (
    FINISHED,
    PLAYING,
    RUNNING,
    WAITING,
    TableRecord,
    TournamentRecord,
)
from app.tournaments.tables import Tables, TableState

log = logging.getLogger(__name__)

LOBBY_LOOK_MS = 5000  # a lobby that did not start is looked at again this soon
PLAYING_LOOK_MS = 10_000  # a playing table, in case its end was not heard (a process died)
RESULT_LOOK_MS = 500  # a match over whose record is not stored yet (the round stream)
LOST_LOOK_MS = 60_000  # a table whose room is gone (it may be restored)
ROUND_OVER_WAIT_MS = 10_000  # a tied match's next round, when the room deals none by itself


class Referee:
    def __init__(self, tables: Tables, rng: random.Random, clock: Callable[[], int]) -> None:
        self.tables = tables
        self.rng = rng
        self.clock = clock

    # --- rounds ---------------------------------------------------------------------------

    async def next_round(self, record: TournamentRecord) -> None:
        """Seat the next round (or finish the tournament)."""
        ids = list(record.entrants)
        rnd = core.next_round(
            record.format,
            ids,
            record.rounds,
            table_size=record.table_size,
            advance=record.advance,
            swiss_rounds=record.swiss_rounds,
            rng=self.rng,
        )
        if rnd is None:
            record.status = FINISHED
            record.winner = core.winner(record.format, ids, record.rounds)
            log.info("tournament finished after %d rounds", len(record.rounds))
            return
        record.rounds.append(rnd)
        for spec in rnd.tables:
            try:
                table = await self._open(record, spec.seats)
            except Exception as exc:  # stop this tournament, not the process
                log.exception("could not open a tournament table")
                record.error = f"a table could not be opened: {type(exc).__name__}"
                return
            spec.room = table.room
            record.tables[table.room] = table
        if not rnd.tables:  # only a bye: nothing to play
            await self.next_round(record)

    async def _open(self, record: TournamentRecord, seats: list[str]) -> TableRecord:
        bots = record.table_size - len(seats) if record.fill_with_bots else 0
        names = [record.entrants[e].name for e in seats]
        opened = await self.tables.open_table(names, record.settings, bots)
        table = TableRecord(room=opened.room, bots=bots)
        for entrant_id, player in zip(seats, opened.players, strict=True):
            table.players[entrant_id] = player
        table.start_by = self.clock() + int(record.grace_seconds * 1000)
        table.look_at = table.start_by
        return table

    async def advance(self, record: TournamentRecord) -> bool:
        """When every table of the current round has its result: the next round. True when
        the tournament moved on."""
        if record.status == RUNNING and record.rounds and record.rounds[-1].finished:
            await self.next_round(record)
            return True
        return False

    # --- one table ------------------------------------------------------------------------

    async def look(self, record: TournamentRecord, room: str) -> bool:
        """Look at one table of the current round and do what is due; True when the table
        got its result (or was reopened: a change the database must keep)."""
        table = record.tables.get(room)
        if table is None or table.status == FINISHED:
            return False
        now = self.clock()
        state = await self.tables.table(room)
        if state is None:
            log.warning("a tournament table's room is gone")
            record.error = "a table's room was lost"
            table.look_at = now + LOST_LOOK_MS
            return False
        if table.status == WAITING:
            if state.status == "lobby":
                await self._keep_lobby(record, table, state)
                humans = [s for s in state.seats if not s.bot]
                if now < table.start_by and not all(s.connected for s in humans):
                    table.look_at = table.start_by
                    return False
                refused = await self.tables.as_host(room, act.Start(organiser=True))
                after = await self.tables.table(room)
                if after is None:
                    table.look_at = now + LOBBY_LOOK_MS
                    return False
                state = after
                if refused is not None and state.status == "lobby":
                    # No match can be dealt: too few seats, no entrant left, or no host (the
                    # host seat left and nobody connected has taken the role).
                    if _deserted(table, state) or state.host is None:
                        self._forfeit(record, room, state)
                        return True
                    log.warning("a tournament table did not start: %s", refused)
                    table.look_at = now + LOBBY_LOOK_MS
                    return False
            if not _as_planned(record, table, state):
                # The host seat started a lobby it had changed before it could be put back:
                # that match does not count; the table starts over in a new room.
                log.warning("a tournament table was started changed; opening it again")
                await self._reopen(record, room)
                return True
            table.status = PLAYING
            table.match_id = state.match_id
        if table.match_id is None:
            table.look_at = now + LOBBY_LOOK_MS
            return False
        if state.status != "match_over" and state.match_id == table.match_id:
            table.look_at = now + PLAYING_LOOK_MS
            if state.status == "round_over" and not record.settings.get("next_round_seconds"):
                await self._deal_on(table, now)
            else:
                table.round_over_at = 0
            return False
        match = await self.tables.match_result(table.match_id)
        if match is None or match.get("status") != "finished":
            table.look_at = now + RESULT_LOOK_MS
            return False
        _finish(record, room, match)
        return True

    async def _deal_on(self, table: TableRecord, now: int) -> None:
        """A tied match plays on, and with `next_round_seconds` 0 only the host seat deals its
        next round: an entrant who is away would hold the table forever. The tournament deals
        it as the host seat once the round has been over for ROUND_OVER_WAIT_MS."""
        if not table.round_over_at:
            table.round_over_at = now
        if now - table.round_over_at < ROUND_OVER_WAIT_MS:
            table.look_at = table.round_over_at + ROUND_OVER_WAIT_MS
            return
        refused = await self.tables.as_host(table.room, act.Start(organiser=True))
        if refused is not None:
            log.warning("a tied tournament table's next round was not dealt: %s", refused)
        table.round_over_at = 0

    async def _reopen(self, record: TournamentRecord, room: str) -> None:
        spec = record.spec_of(room)
        # The next entrant holds the new room's host seat, so one cannot stall the table.
        seats = spec.seats[1:] + spec.seats[:1]
        table = await self._open(record, seats)  # raises: the old table stays as it was
        del record.tables[room]
        spec.seats = seats
        spec.room = table.room
        record.tables[table.room] = table

    def _forfeit(self, record: TournamentRecord, room: str, state: TableState) -> None:
        """A table without a match: the entrants still seated first (seat order), then those
        who left. The only result not read from a match record (there is none)."""
        table = record.tables[room]
        spec = record.spec_of(room)
        seated = [s.player_id for s in state.seats]
        stayed = [e for e in spec.seats if table.players.get(e) in seated]
        ranked = stayed + [e for e in spec.seats if e not in stayed]
        k = len(ranked)
        spec.result = [core.Placing(e, k - i - 1, i + 1) for i, e in enumerate(ranked)]
        table.status = FINISHED

    async def _keep_lobby(
        self, record: TournamentRecord, table: TableRecord, state: TableState
    ) -> None:
        """Undo what the table's host seat (an entrant) may have changed in the lobby: the
        settings and the number of bots are the tournament's."""
        if state.settings != record.settings:
            await self.tables.as_host(table.room, act.ChangeSettings(record.settings))
        bots = [i for i, s in enumerate(state.seats) if s.bot]
        for _ in range(table.bots - len(bots)):
            await self.tables.as_host(table.room, act.AddBot())
        for seat in reversed(bots[table.bots :]):
            await self.tables.as_host(table.room, act.RemoveBot(seat))


def _as_planned(record: TournamentRecord, table: TableRecord, state: TableState) -> bool:
    bots = sum(1 for s in state.seats if s.bot and not s.left)  # not players who left
    return state.settings == record.settings and bots == table.bots


def _deserted(table: TableRecord, state: TableState) -> bool:
    """Entrants left the lobby until no match can be dealt (under two seats, or no entrant
    left)."""
    seated = {s.player_id for s in state.seats}
    return len(state.seats) < 2 or not seated & set(table.players.values())


def _finish(record: TournamentRecord, room: str, match: Mapping[str, Any]) -> None:
    """The table's result from the match record: places among its entrants."""
    table = record.tables[room]
    spec = record.spec_of(room)
    by_player = {player: entrant for entrant, player in table.players.items()}
    scores = list(match.get("scores") or [])
    won: dict[int, int] = {}
    for r in match.get("rounds") or []:
        if isinstance(r.get("winner"), int):
            won[r["winner"]] = won.get(r["winner"], 0) + 1
    present = [
        core.SeatScore(
            by_player[p["player_id"]],
            int(p["seat"]),
            int(scores[p["seat"]]) if p["seat"] < len(scores) else 0,
            won.get(p["seat"], 0),
        )
        for p in match.get("players") or []
        if p.get("player_id") in by_player
    ]
    scoring = str((match.get("settings") or {}).get("scoring", "winner_collects"))
    ranked = [p.entrant_id for p in core.table_result(present, scoring, match.get("winner"))]
    ranked += [e for e in spec.seats if e not in ranked]  # left the lobby: last
    k = len(ranked)
    spec.result = [core.Placing(e, k - i - 1, i + 1) for i, e in enumerate(ranked)]
    table.status = FINISHED
