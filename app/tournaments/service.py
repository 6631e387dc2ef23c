"""Runs tournaments on ordinary rooms (PROTOCOL section 6, docs/tournaments.md).

Each table is a room made through the RoomService (create, join, add_bot, start are the
room's own commands, sent as the table's host seat), so its summary, socket, spectators,
timers, bots and match record all work as for any room. One watcher task per table listens
to the room's bus channel ("room R is at version V"): it starts the table's match once every
entrant has connected or the grace period is over, and when the room's first match is over
it reads the result from the match recorder (`get_match`), the server's own record, never
from a client. When every table of a round has its result, the next round is seated.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app import engine
from app.engine import actions as act
from app.engine.errors import EngineError
from app.engine.state import State
from app.rooms.commands import Command
from app.rooms.names import BadName, clean_name
from app.rooms.scheduler import wall_ms
from app.rooms.service import Identity, RoomError, RoomService
from app.store.rooms import token_digest
from app.tournaments import core
from app.tournaments.store import (
    EntrantRecord,
    TableRecord,
    TournamentRecord,
    TournamentStore,
)

log = logging.getLogger(__name__)

NAME_MAX = 60
ENTRANT_NAME_MAX = 32
MAX_ENTRANTS = 256
MAX_SWISS_ROUNDS = 20
MAX_MATCH_ROUNDS = 100
DEFAULT_GRACE_SECONDS = 60.0
MAX_GRACE_SECONDS = 600.0
POLL_SECONDS = 5.0  # a watcher looks at its room at least this often, notices or not
RESULT_SCORE = 10000  # the target under match: {"rounds": N}, so that the rounds decide
SWEEP_EVERY_MS = 600_000


@dataclass(frozen=True, slots=True)
class CreatedTournament:
    code: str
    token: str


@dataclass(frozen=True, slots=True)
class Registered:
    entrant_id: str
    token: str


def _clean(name: Any, limit: int, what: str) -> str:
    if limit == ENTRANT_NAME_MAX:
        # A player's name: the rooms' rule (graphemes, ZWNJ/ZWJ, emoji).
        try:
            return clean_name(name)
        except BadName as exc:
            raise RoomError(exc.code, f"{what}: {exc}", 400) from exc
    cleaned = " ".join(name.split()) if isinstance(name, str) else ""
    if not cleaned or len(cleaned) > limit or not cleaned.isprintable():
        raise RoomError("bad_request", f"{what} must be 1-{limit} printable characters", 400)
    return cleaned


def _int(value: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RoomError("bad_request", f"{what} must be an integer between {lo} and {hi}", 400)
    return value


class TournamentService:
    def __init__(
        self,
        rooms: RoomService,
        store: TournamentStore,
        *,
        rng: random.Random | None = None,
        clock: Callable[[], int] = wall_ms,
    ) -> None:
        self.rooms = rooms
        self.store = store
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self.clock = clock
        self._locks: dict[str, asyncio.Lock] = {}
        self._watchers: set[asyncio.Task[None]] = set()
        self._swept_at = 0

    async def stop(self) -> None:
        tasks = list(self._watchers)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._watchers.clear()

    def _lock(self, code: str) -> asyncio.Lock:
        lock = self._locks.get(code)
        if lock is None:
            lock = self._locks[code] = asyncio.Lock()
        return lock

    # --- HTTP -------------------------------------------------------------------------------

    async def sweep(self) -> int:
        """Forget tournaments not running (registering or finished) that nothing has changed
        for the rooms' `room_idle_seconds`. Running ones stay while their tables play."""
        cutoff = self.clock() - self.rooms.config.room_idle_seconds * 1000
        forgotten = 0
        for code in await self.store.codes():
            async with self._lock(code):
                record = await self.store.load(code)
                if record is None or record.status == "running":
                    continue
                if max(record.touched_at, record.created_at) < cutoff:
                    await self.store.delete(code)
                    self._locks.pop(code, None)
                    forgotten += 1
        if forgotten:
            log.info("forgot %d idle tournaments", forgotten)
        return forgotten

    async def create(self, body: Mapping[str, Any]) -> CreatedTournament:
        if self.clock() - self._swept_at >= SWEEP_EVERY_MS:  # now and then, on the way
            self._swept_at = self.clock()
            await self.sweep()
        name = _clean(body.get("name"), NAME_MAX, "name")
        host_name = _clean(body.get("host_name"), ENTRANT_NAME_MAX, "host_name")
        table_size = _int(body.get("table_size"), 2, 10, "table_size")
        fmt = body.get("format")
        if fmt not in core.FORMATS:
            raise RoomError("bad_request", "format must be elimination or swiss", 400)
        advance = 1
        if body.get("advance") is not None:
            advance = _int(body.get("advance"), 1, table_size - 1, "advance")
        swiss_rounds = 3
        if body.get("rounds") is not None:
            swiss_rounds = _int(body.get("rounds"), 1, MAX_SWISS_ROUNDS, "rounds")
        fill = body.get("fill_with_bots", False)
        if not isinstance(fill, bool):
            raise RoomError("bad_request", "fill_with_bots must be true or false", 400)
        grace = body.get("grace_seconds", DEFAULT_GRACE_SECONDS)
        if (
            isinstance(grace, bool)
            or not isinstance(grace, int | float)
            or not 0 <= grace <= MAX_GRACE_SECONDS
        ):
            raise RoomError(
                "bad_request", f"grace_seconds must be between 0 and {MAX_GRACE_SECONDS:g}", 400
            )
        settings = body.get("settings") or {}
        if not isinstance(settings, Mapping):
            raise RoomError("bad_settings", "settings must be an object", 400)
        match, table_settings = self._match(body.get("match"), dict(settings))
        table_settings["max_players"] = table_size
        try:
            parsed = engine.parse_settings(
                table_settings, test_hooks=self.rooms.config.uno_test_hooks
            )
        except EngineError as exc:
            raise RoomError(exc.code, exc.message, 400) from exc
        token = secrets.token_urlsafe(32)
        while True:
            code = secrets.token_urlsafe(16)
            record = TournamentRecord(
                code=code,
                name=name,
                host_name=host_name,
                host_hash=token_digest(token),
                format=fmt,
                table_size=table_size,
                advance=advance,
                swiss_rounds=swiss_rounds,
                match=match,
                fill_with_bots=fill,
                settings=engine.settings_to_json(parsed, secrets=True),
                grace_seconds=float(grace),
                created_at=self.clock(),
            )
            if await self.store.create(record):
                break
        log.info("tournament created (%s, tables of %d)", fmt, table_size)
        return CreatedTournament(code, token)

    @staticmethod
    def _match(value: Any, settings: dict[str, Any]) -> tuple[dict[str, int], dict[str, Any]]:
        """`match`: {"target_score": N} or {"rounds": N} (or absent: the settings decide)."""
        if value is None:
            return {}, settings
        if not isinstance(value, Mapping) or len(value) != 1:
            raise RoomError(
                "bad_request", 'match must be {"target_score": N} or {"rounds": N}', 400
            )
        if "target_score" in value:
            target = _int(value["target_score"], 50, RESULT_SCORE, "match.target_score")
            settings["target_score"] = target
            return {"target_score": target}, settings
        if "rounds" in value:
            rounds = _int(value["rounds"], 1, MAX_MATCH_ROUNDS, "match.rounds")
            settings["match_rounds"] = rounds
            settings["target_score"] = RESULT_SCORE
            return {"rounds": rounds}, settings
        raise RoomError("bad_request", 'match must be {"target_score": N} or {"rounds": N}', 400)

    async def _save(self, record: TournamentRecord) -> None:
        record.touched_at = self.clock()
        await self.store.save(record)

    async def _load(self, code: str) -> TournamentRecord:
        record = await self.store.load(code) if 0 < len(code) <= 64 else None
        if record is None:
            raise RoomError("not_found", "no such tournament", 404)
        return record

    @staticmethod
    def _bearer(authorization: str | None) -> str:
        if authorization is None:
            raise RoomError("unauthorized", "send Authorization: Bearer TOKEN", 401)
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > 256:
            raise RoomError("unauthorized", "send Authorization: Bearer TOKEN", 401)
        return token

    def _host(self, record: TournamentRecord, authorization: str | None) -> None:
        token = self._bearer(authorization)
        if not secrets.compare_digest(token_digest(token), record.host_hash):
            raise RoomError("not_host", "only the tournament's host may do this", 403)

    async def register(self, code: str, name: str) -> Registered:
        name = _clean(name, ENTRANT_NAME_MAX, "name")
        async with self._lock(code):
            record = await self._load(code)
            if record.status != "registering":
                raise RoomError("already_started", "the tournament has started", 409)
            if len(record.entrants) >= MAX_ENTRANTS:
                raise RoomError("full", f"at most {MAX_ENTRANTS} entrants", 409)
            token = secrets.token_urlsafe(32)
            entrant_id = "e_" + secrets.token_urlsafe(9)
            record.entrants[entrant_id] = EntrantRecord(entrant_id, name, token_digest(token))
            await self._save(record)
        return Registered(entrant_id, token)

    async def remove(self, code: str, entrant_id: str, authorization: str | None) -> None:
        async with self._lock(code):
            record = await self._load(code)
            self._host(record, authorization)
            if entrant_id not in record.entrants:
                raise RoomError("not_found", "no such entrant", 404)
            if record.status != "registering":
                raise RoomError("already_started", "the tournament has started", 409)
            del record.entrants[entrant_id]
            await self._save(record)

    async def start(self, code: str, authorization: str | None) -> dict[str, Any]:
        async with self._lock(code):
            record = await self._load(code)
            self._host(record, authorization)
            if record.status != "registering":
                raise RoomError("already_started", "the tournament has started", 409)
            if len(record.entrants) < 2:
                raise RoomError("not_enough_entrants", "at least 2 entrants are needed", 409)
            record.status = "running"
            await self._next_round(record)
            await self._save(record)
            return self._public(record)

    async def public(self, code: str) -> dict[str, Any]:
        return self._public(await self._load(code))

    async def me(self, code: str, authorization: str | None) -> dict[str, Any]:
        record = await self._load(code)
        token = self._bearer(authorization)
        digest = token_digest(token)
        entrant = next(
            (e for e in record.entrants.values() if secrets.compare_digest(e.token_hash, digest)),
            None,
        )
        if entrant is None:
            raise RoomError("unauthorized", "no entrant of this tournament holds that token", 401)
        out: dict[str, Any] = {
            "entrant_id": entrant.entrant_id,
            "room": None,
            "token": None,
            "status": self._entrant_status(record, entrant.entrant_id),
        }
        if record.rounds:
            current = record.rounds[-1]
            for spec in current.tables:
                table = record.tables.get(spec.room)
                if entrant.entrant_id in spec.seats and table is not None:
                    out["room"] = spec.room
                    out["token"] = table.seat_tokens.get(entrant.entrant_id)
                    out["player_id"] = player = table.players.get(entrant.entrant_id)
                    loaded = await self.rooms.store.load(spec.room)
                    seat = None
                    if loaded is not None and player is not None:
                        seat = engine.seat_of(loaded.state, player)
                    out["seat"] = seat  # None: the entrant left the table's lobby
                    out["table_status"] = table.status
        return out

    @staticmethod
    def _entrant_status(record: TournamentRecord, entrant_id: str) -> str:
        """registered | playing (seated at a table not finished) | waiting (bye, or the
        round's other tables are still playing) | eliminated | finished."""
        if record.status == "registering":
            return "registered"
        if record.status == "finished":
            return "finished"
        current = record.rounds[-1]
        for spec in current.tables:
            if entrant_id in spec.seats:
                return "playing" if spec.result is None else "waiting"
        if entrant_id in current.byes:
            return "waiting"
        return "eliminated"

    def _public(self, record: TournamentRecord) -> dict[str, Any]:
        ids = list(record.entrants)
        names = {e.entrant_id: e.name for e in record.entrants.values()}
        rounds = []
        for rnd in record.rounds:
            tables = []
            for spec in rnd.tables:
                table = record.tables.get(spec.room)
                tables.append(
                    {
                        "room": spec.room or None,  # None while the room is being made
                        "seats": list(spec.seats),
                        "bots": table.bots if table is not None else 0,
                        "status": table.status if table is not None else "waiting",
                        "match_id": table.match_id if table is not None else None,
                        "result": [
                            {"entrant_id": p.entrant_id, "points": p.points, "place": p.place}
                            for p in spec.result or []
                        ],
                    }
                )
            rounds.append({"number": rnd.number, "tables": tables, "byes": list(rnd.byes)})
        standings = [
            {
                "entrant_id": s.entrant_id,
                "name": names[s.entrant_id],
                "points": s.points,
                "wins": s.wins,
                "place": s.place,
            }
            for s in core.standings(record.format, ids, record.rounds)
        ]
        public_settings = engine.settings_to_json(
            engine.parse_settings(record.settings, test_hooks=True)
        )
        return {
            "tournament": record.code,
            "url": f"/t/{record.code}",
            "name": record.name,
            "host": record.host_name,
            "status": record.status,
            "format": record.format,
            "table_size": record.table_size,
            "advance": record.advance if record.format == "elimination" else None,
            "rounds_planned": record.swiss_rounds if record.format == "swiss" else None,
            "match": dict(record.match),
            "fill_with_bots": record.fill_with_bots,
            "grace_seconds": record.grace_seconds,
            "settings": public_settings,
            "entrants": [{"entrant_id": e, "name": names[e]} for e in ids],
            "rounds": rounds,
            "standings": standings,
            "winner": record.winner,
            "error": record.error,
        }

    # --- rounds and tables -----------------------------------------------------------------

    async def _next_round(self, record: TournamentRecord) -> None:
        """Seat the next round (or finish the tournament); the caller holds the lock."""
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
            record.status = "finished"
            record.winner = core.winner(record.format, ids, record.rounds)
            log.info("tournament finished after %d rounds", len(record.rounds))
            return
        record.rounds.append(rnd)
        for spec in rnd.tables:
            try:
                table = await self._open_table(record, spec.seats)
            except Exception as exc:  # stop this tournament, not the process
                log.exception("could not open a tournament table")
                record.error = f"a table could not be opened: {type(exc).__name__}"
                return
            self._open_watched(record, spec, table)
        if not rnd.tables:  # only a bye: nothing to play
            await self._next_round(record)

    async def _open_table(self, record: TournamentRecord, seats: list[str]) -> TableRecord:
        first, *others = seats
        created = await self.rooms.create_room(record.entrants[first].name, record.settings)
        table = TableRecord(room=created.room)
        table.players[first] = created.player_id
        table.seat_tokens[first] = created.token
        for entrant_id in others:
            joined = await self.rooms.join(created.room, record.entrants[entrant_id].name)
            table.players[entrant_id] = joined.player_id
            table.seat_tokens[entrant_id] = joined.token
        table.bots = record.table_size - len(seats) if record.fill_with_bots else 0
        for _ in range(table.bots):
            await self._as_host(created.room, "add_bot", act.AddBot())
        table.start_by = self.clock() + int(record.grace_seconds * 1000)
        return table

    async def _as_host(self, room: str, kind: str, action: act.Action) -> str | None:
        """Send a host command to a table's room as its host seat; the error code or None."""
        loaded = await self.rooms.store.load(room)
        if loaded is None:
            return "not_found"
        state = loaded.state
        host = state.host
        if host is None:
            return "not_host"
        who = Identity(state.seats[host].player_id, "player", host)
        command = Command(kind, "t_" + secrets.token_urlsafe(8), None, action)
        outcome = await self.rooms.submit(room, who, command)
        return outcome.code

    async def _watch(self, code: str, room: str) -> None:
        """One table: start its match, then wait for its result (see the module docstring)."""
        try:
            async with self.rooms.bus.subscribe(room) as notices:
                wake = asyncio.Event()

                async def pump() -> None:
                    async for _ in notices:
                        wake.set()

                pumping = asyncio.create_task(pump())
                try:
                    while True:
                        wake.clear()
                        try:
                            wait = await self._step(code, room)
                        except Exception:  # a database outage, a bug: look again later
                            log.exception("tournament table step failed")
                            wait = POLL_SECONDS
                        if wait is None:
                            return
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(wake.wait(), wait)
                finally:
                    pumping.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await pumping
        except asyncio.CancelledError:
            raise
        except Exception:  # the subscription itself failed
            log.exception("tournament table watcher failed")

    async def _step(self, code: str, room: str) -> float | None:
        """Look at one table's room; seconds to wait for the next look, or None when done."""
        async with self._lock(code):
            record = await self.store.load(code)
            table = record.tables.get(room) if record is not None else None
            if record is None or table is None or table.status == "finished":
                return None
            loaded = await self.rooms.store.load(room)
            if loaded is None:
                log.warning("a tournament table's room is gone")
                record.error = "a table's room was lost"
                await self._save(record)
                return None
            state = loaded.state
            now = self.clock()
            if table.status == "waiting":
                if state.status == "lobby":
                    humans = [s for s in state.seats if not s.bot]
                    if now < table.start_by and not all(s.connected for s in humans):
                        await self._keep_lobby(record, table)
                        return max(0.0, (table.start_by - now) / 1000)
                    await self._keep_lobby(record, table)
                    code_ = await self._as_host(room, "start", act.Start())
                    loaded = await self.rooms.store.load(room)
                    if loaded is None:
                        return POLL_SECONDS
                    state = loaded.state
                    if code_ is not None and state.status == "lobby":
                        # No match can be dealt: too few seats, no entrant left, or no host
                        # (the host seat left and nobody connected has taken the role).
                        if self._deserted(table, state) or state.host is None:
                            await self._forfeit(record, room, state)
                            return None
                        log.warning("a tournament table did not start: %s", code_)
                        return POLL_SECONDS
                if not self._as_planned(record, table, state):
                    # The host seat started a lobby it had changed before it could be put
                    # back: that match does not count; the table starts over in a new room.
                    log.warning("a tournament table was started changed; opening it again")
                    await self._reopen(record, room)
                    await self._save(record)
                    return None
                table.status = "playing"
                table.match_id = state.match_id
                await self._save(record)
            if table.match_id is None:
                return POLL_SECONDS
            if state.status != "match_over" and state.match_id == table.match_id:
                return POLL_SECONDS
            match = await self.rooms.recorder.get_match(table.match_id)
            if match is None or match.get("status") != "finished":
                return POLL_SECONDS
            self._finish_table(record, room, match)
            if record.status == "running" and record.rounds[-1].finished:
                await self._next_round(record)
            await self._save(record)
            return None

    @staticmethod
    def _as_planned(record: TournamentRecord, table: TableRecord, state: State) -> bool:
        settings = engine.settings_to_json(state.settings, secrets=True)
        bots = sum(1 for s in state.seats if s.bot and not s.left)  # not players who left
        return bool(settings == record.settings and bots == table.bots)

    async def _reopen(self, record: TournamentRecord, room: str) -> None:
        spec = next(s for rnd in record.rounds for s in rnd.tables if s.room == room)
        # The next entrant holds the new room's host seat, so one cannot stall the table.
        seats = spec.seats[1:] + spec.seats[:1]
        table = await self._open_table(record, seats)  # raises: the old table stays watched
        del record.tables[room]
        spec.seats = seats
        self._open_watched(record, spec, table)

    def _open_watched(
        self, record: TournamentRecord, spec: core.TableSpec, table: TableRecord
    ) -> None:
        spec.room = table.room
        record.tables[table.room] = table
        task = asyncio.create_task(
            self._watch(record.code, table.room), name=f"tournament-table-{table.room[:6]}"
        )
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    @staticmethod
    def _deserted(table: TableRecord, state: State) -> bool:
        """Entrants left the lobby until no match can be dealt (under two seats, or no
        entrant left)."""
        seated = {s.player_id for s in state.seats}
        return len(state.seats) < 2 or not seated & set(table.players.values())

    async def _forfeit(self, record: TournamentRecord, room: str, state: State) -> None:
        """A table without a match: the entrants still seated first (seat order), then
        those who left. The only result not read from a match record (there is none)."""
        table = record.tables[room]
        spec = next(s for rnd in record.rounds for s in rnd.tables if s.room == room)
        seated = [s.player_id for s in state.seats]
        stayed = [e for e in spec.seats if table.players.get(e) in seated]
        ranked = stayed + [e for e in spec.seats if e not in stayed]
        k = len(ranked)
        spec.result = [core.Placing(e, k - i - 1, i + 1) for i, e in enumerate(ranked)]
        table.status = "finished"
        if record.status == "running" and record.rounds[-1].finished:
            await self._next_round(record)
        await self._save(record)

    async def _keep_lobby(self, record: TournamentRecord, table: TableRecord) -> None:
        """Undo what the table's host seat (an entrant) may have changed in the lobby: the
        settings and the number of bots are the tournament's."""
        loaded = await self.rooms.store.load(table.room)
        if loaded is None or loaded.state.status != "lobby":
            return
        state = loaded.state
        if engine.settings_to_json(state.settings, secrets=True) != record.settings:
            await self._as_host(table.room, "settings", act.ChangeSettings(record.settings))
        bots = [i for i, s in enumerate(state.seats) if s.bot]
        for _ in range(table.bots - len(bots)):
            await self._as_host(table.room, "add_bot", act.AddBot())
        for seat in reversed(bots[table.bots :]):
            await self._as_host(table.room, "remove_bot", act.RemoveBot(seat))

    def _finish_table(self, record: TournamentRecord, room: str, match: Mapping[str, Any]) -> None:
        """The table's result from the match record: places among its entrants."""
        table = record.tables[room]
        spec = next(s for rnd in record.rounds for s in rnd.tables if s.room == room)
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
        table.status = "finished"
