"""The rooms as the tournaments see them (app/tournaments/tables.py): a table is an ordinary
room, made and driven through the RoomService's own operations, so its socket, spectators,
timers, bots and match record work as for any room."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from app import engine
from app.engine import actions as act
from app.engine.events import Event
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomError, RoomService
from app.tournaments.tables import CommitListener, OpenedTable, TableSeat, TableState

# The command kinds of the host actions a tournament sends (for the Command's wire kind).
_KINDS: dict[type[act.Action], str] = {
    act.Start: "start",
    act.ChangeSettings: "settings",
    act.AddBot: "add_bot",
    act.RemoveBot: "remove_bot",
}


class RoomTables:
    def __init__(self, rooms: RoomService) -> None:
        self._rooms = rooms

    @property
    def test_hooks(self) -> bool:
        return self._rooms.config.uno_test_hooks

    @property
    def idle_seconds(self) -> int:
        return self._rooms.config.room_idle_seconds

    async def open_table(
        self, names: Sequence[str], settings: Mapping[str, Any], bots: int
    ) -> OpenedTable:
        first, *others = names
        # The seats' own tokens are dropped: an entrant reaches its seat with a token derived
        # from its entrant token (`grant_seat`), so no seat token is kept anywhere.
        created = await self._rooms.create_room(first, settings, organised=True)
        players = [created.player_id]
        for name in others:
            joined = await self._rooms.join(created.room, name)
            players.append(joined.player_id)
        for _ in range(bots):
            await self.as_host(created.room, act.AddBot())
        return OpenedTable(created.room, tuple(players))

    async def grant_seat(self, room: str, player_id: str, token: str) -> bool:
        try:
            return await self._rooms.grant(room, player_id, token)
        except RoomError as exc:
            if exc.code == "not_found":
                return False
            raise

    async def table(self, room: str) -> TableState | None:
        record = await self._rooms.restorer.load(room)
        if record is None:
            return None
        state = record.state
        return TableState(
            status=state.status,
            match_id=state.match_id,
            host=state.host,
            seats=tuple(TableSeat(s.player_id, s.bot, s.connected, s.left) for s in state.seats),
            settings=engine.settings_to_json(state.settings, secrets=True),
        )

    async def as_host(self, room: str, action: act.Action) -> str | None:
        record = await self._rooms.restorer.load(room)
        if record is None:
            return "not_found"
        host = record.state.host
        if host is None:
            return "not_host"
        who = Identity(record.state.seats[host].player_id, "player", host)
        command = Command(_KINDS[type(action)], "t_" + secrets.token_urlsafe(8), None, action)
        outcome = await self._rooms.submit(room, who, command)
        return outcome.code

    async def match_result(self, match_id: str) -> Mapping[str, Any] | None:
        return await self._rooms.recorder.get_match(match_id)

    def on_commit(self, listener: CommitListener) -> None:
        def observe(room: str, events: Sequence[Event]) -> None:
            listener(room, frozenset(e.kind for e in events))

        self._rooms.commit_observers.append(observe)
