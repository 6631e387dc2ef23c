"""Hosted tournaments over HTTP (PROTOCOL section 6, docs/tournaments.md): create, register,
remove, start, the public answer, an entrant's /me, and the page's pushed updates.

Tables are ordinary rooms reached through the narrow `Tables` interface
(app/tournaments/tables.py). The record lives in a `TournamentStore` (memory, or Redis shared
by every process, with a database copy at each result); any process answers any request and
any process may advance a tournament (app/tournaments/runner.py). After every save a notice
"tournament T is at version V" goes out on the bus, which feeds the page's event stream.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import logging
import random
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from app.bus.base import Bus
from app.bus.memory import MemoryBus
from app.rooms.names import free_name, name_key
from app.rooms.scheduler import wall_ms
from app.rooms.service import RoomError
from app.store.rooms import token_digest
from app.tournaments import validation, views
from app.tournaments.records import REGISTERING, RUNNING, EntrantRecord, TournamentRecord
from app.tournaments.referee import Referee
from app.tournaments.runner import Runner
from app.tournaments.store import TournamentStore
from app.tournaments.tables import Tables

log = logging.getLogger(__name__)

SWEEP_EVERY_MS = 600_000
STREAM_CHECK_SECONDS = 5.0  # a stream looks at the record this often even without a notice
STREAM_MAX_SECONDS = 25.0  # then it ends and the page opens another (bounded server shutdown)


@dataclass(frozen=True, slots=True)
class CreatedTournament:
    code: str
    token: str


@dataclass(frozen=True, slots=True)
class Registered:
    entrant_id: str
    token: str
    name: str  # as registered: a free variant when an entrant had the name already


def channel(code: str) -> str:
    """The bus channel of a tournament's notices (beside the rooms' channels)."""
    return f"t:{code}"


class TournamentService:
    def __init__(
        self,
        tables: Tables,
        store: TournamentStore,
        *,
        bus: Bus | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], int] = wall_ms,
        scan_seconds: float = 2.0,
    ) -> None:
        self.tables = tables
        self.store = store
        self.bus: Bus = bus if bus is not None else MemoryBus()
        self.clock = clock
        rng = rng if rng is not None else secrets.SystemRandom()
        self.referee = Referee(tables, rng, clock)
        self.runner = Runner(store, self.referee, clock, self._notify, scan_seconds=scan_seconds)
        tables.on_commit(self.runner.heard)
        self._swept_at = 0

    async def watch(self) -> None:
        """Watch the running tournaments (the scan); until then only this process's own
        changes move tables."""
        await self.store.start()
        self.runner.start()

    async def stop(self) -> None:
        await self.runner.stop()

    async def _notify(self, record: TournamentRecord) -> None:
        message = orjson.dumps({"tournament": record.code, "version": record.version})
        try:
            await self.bus.publish(channel(record.code), message)
        except Exception as exc:  # the page's stream also looks every few seconds
            log.warning("tournament notice not sent: %s", type(exc).__name__)

    # --- HTTP -------------------------------------------------------------------------------

    async def sweep(self) -> int:
        """Forget tournaments not running (registering or finished) that nothing has changed
        for the rooms' idle time. Running ones stay while their tables play."""
        cutoff = self.clock() - self.tables.idle_seconds * 1000
        forgotten = 0
        for code in await self.store.codes():
            record = await self.store.load(code)
            if record is None or record.status == RUNNING:
                continue
            if max(record.touched_at, record.created_at) < cutoff:
                await self.store.delete(code)
                self.runner.forget(code)
                forgotten += 1
        if forgotten:
            log.info("forgot %d idle tournaments", forgotten)
        return forgotten

    async def create(self, body: dict[str, Any]) -> CreatedTournament:
        if self.clock() - self._swept_at >= SWEEP_EVERY_MS:  # now and then, on the way
            self._swept_at = self.clock()
            await self.sweep()
        plan = validation.plan(body, test_hooks=self.tables.test_hooks)
        token = secrets.token_urlsafe(32)
        while True:
            code = secrets.token_urlsafe(16)
            record = TournamentRecord(
                code=code,
                name=plan.name,
                host_name=plan.host_name,
                host_hash=token_digest(token),
                format=plan.format,
                table_size=plan.table_size,
                advance=plan.advance,
                swiss_rounds=plan.swiss_rounds,
                match=plan.match,
                fill_with_bots=plan.fill_with_bots,
                settings=plan.settings,
                grace_seconds=plan.grace_seconds,
                created_at=self.clock(),
            )
            if await self.store.create(record):
                break
        log.info("tournament created (%s, tables of %d)", plan.format, plan.table_size)
        return CreatedTournament(code, token)

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
        name = validation.entrant_name(name)
        await self._load(code)  # an unknown code: 404 before anything is leased
        token = secrets.token_urlsafe(32)
        entrant_id = "e_" + secrets.token_urlsafe(9)
        names: list[str] = []  # the name `add` registered (it may run again on a conflict)

        async def add(record: TournamentRecord) -> None:
            if record.status != REGISTERING:
                raise RoomError("already_started", "the tournament has started", 409)
            if len(record.entrants) >= validation.MAX_ENTRANTS:
                raise RoomError("full", f"at most {validation.MAX_ENTRANTS} entrants", 409)
            # Two entrants of one name could not be told apart in the standings (and their
            # table would seat one as "Ana 2"). PROTOCOL 6 answers a registration 201 until
            # the start, so the newcomer is registered under a free variant ("Ana 2"),
            # which the answer names.
            taken = {name_key(e.name) for e in record.entrants.values()}
            chosen = free_name(name, taken)
            names.append(chosen)
            record.entrants[entrant_id] = EntrantRecord(entrant_id, chosen, token_digest(token))

        await self.runner.change(code, self._load, add)
        return Registered(entrant_id, token, names[-1])

    async def remove(self, code: str, entrant_id: str, authorization: str | None) -> None:
        async def drop(record: TournamentRecord) -> None:
            self._host(record, authorization)
            if entrant_id not in record.entrants:
                raise RoomError("not_found", "no such entrant", 404)
            if record.status != REGISTERING:
                raise RoomError("already_started", "the tournament has started", 409)
            del record.entrants[entrant_id]

        await self._load(code)
        await self.runner.change(code, self._load, drop)

    async def start(self, code: str, authorization: str | None) -> dict[str, Any]:
        async def begin(record: TournamentRecord) -> TournamentRecord:
            self._host(record, authorization)
            if record.status != REGISTERING:
                raise RoomError("already_started", "the tournament has started", 409)
            if len(record.entrants) < 2:
                raise RoomError("not_enough_entrants", "at least 2 entrants are needed", 409)
            record.status = RUNNING
            await self.referee.next_round(record)
            return record

        await self._load(code)
        record = await self.runner.change(code, self._load, begin, durable=True)
        return views.public(record)

    async def public(self, code: str) -> dict[str, Any]:
        return views.public(await self._load(code))

    async def me(self, code: str, authorization: str | None) -> dict[str, Any]:
        record = await self._load(code)
        bearer = self._bearer(authorization)
        digest = token_digest(bearer)
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
            "status": views.entrant_status(record, entrant.entrant_id),
        }
        if record.rounds:
            for spec in record.rounds[-1].tables:
                table = record.tables.get(spec.room)
                if entrant.entrant_id in spec.seats and table is not None:
                    out["room"] = spec.room
                    out["player_id"] = player = table.players.get(entrant.entrant_id)
                    if player is not None:
                        seat_token = _seat_token(bearer, code, spec.room)
                        if await self.tables.grant_seat(spec.room, player, seat_token):
                            out["token"] = seat_token
                    state = await self.tables.table(spec.room)
                    seat = None
                    if state is not None and player is not None:
                        seat = state.seat_of(player)
                    out["seat"] = seat  # None: the entrant left the table's lobby
                    out["table_status"] = table.status
        return out

    # --- the page's pushed updates ----------------------------------------------------------

    async def updates(self, code: str) -> AsyncIterator[bytes]:
        """Server-sent events for the tournament page: the public answer now, then again each
        time it changes (woken by the bus's notices; a look every few seconds covers a lost
        notice). The stream ends after STREAM_MAX_SECONDS or when the tournament is finished;
        the page opens a new one (docs/protocol.md "Tournament updates")."""
        loop = asyncio.get_running_loop()
        ends = loop.time() + STREAM_MAX_SECONDS
        async with self.bus.subscribe(channel(code)) as notices:
            wake = asyncio.Event()

            async def pump() -> None:
                async for _ in notices:
                    wake.set()

            pumping = asyncio.create_task(pump())
            try:
                sent: bytes | None = None
                while True:
                    wake.clear()
                    record = await self.store.load(code)
                    if record is None:
                        return
                    body = orjson.dumps(views.public(record))
                    if body != sent:
                        sent = body
                        yield b"event: tournament\ndata: " + body + b"\n\n"
                    if record.status not in (REGISTERING, RUNNING):
                        return
                    left = ends - loop.time()
                    if left <= 0:
                        return
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wake.wait(), min(left, STREAM_CHECK_SECONDS))
            finally:
                pumping.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pumping


def _seat_token(entrant_token: str, tournament: str, room: str) -> str:
    """The entrant's seat token at one table: derived from its entrant token, so the server
    keeps neither (only digests) and can hand it out from any process."""
    mac = hmac.new(entrant_token.encode(), f"seat|{tournament}|{room}".encode(), "sha256")
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()
