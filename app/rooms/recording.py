"""Hands each completed round (and each newly dealt match) to the match recorder, before
the room publishes the events that announce them."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from app import engine
from app.engine.events import Event
from app.store.recorder import MatchRecorder, PlayerRecord, RoundRecord
from app.store.rooms import RoomRecord

log = logging.getLogger(__name__)


class RoundReporter:
    def __init__(self, recorder: MatchRecorder) -> None:
        self.recorder = recorder
        self._last: dict[str, RoundRecord] = {}  # room → its latest reported round

    async def report(self, record: RoomRecord, events: list[Event], now: int) -> None:
        for index, event in enumerate(events):
            if event.kind == "round_started" and event.after is not None:
                await self._match_started(record, event, now)
            elif event.kind == "round_ended":
                ended = next((e for e in events[index + 1 :] if e.kind == "match_ended"), None)
                await self._round_ended(record, event, ended)
            elif event.kind == "match_ended" and not any(
                e.kind == "round_ended" for e in events[:index]
            ):
                await self._late_match_end(record, event)

    async def _match_started(self, record: RoomRecord, event: Event, now: int) -> None:
        assert event.after is not None
        match_id = event.after.match_id
        if match_id is None or match_id == record.match_id:
            return
        record.match_id = match_id
        settings, players = _table(event)
        try:
            await self.recorder.match_started(match_id, record.code, settings, players, now)
        except Exception:  # best effort: the first round record creates the match too
            log.exception("could not record a match start")

    async def _round_ended(self, record: RoomRecord, event: Event, ended: Event | None) -> None:
        p = event.public
        settings, players = _table(event)
        round_record = RoundRecord(
            match_id=str(p.get("match_id") or record.match_id or ""),
            room=record.code,
            settings=settings,
            players=players,
            number=int(p.get("round", 0)),
            winner=p.get("winner"),
            reason=str(p.get("reason", "")),
            points=tuple(p.get("points", ())),
            scores=tuple(p.get("scores", ())),
            hands=tuple(tuple(hand) for hand in p.get("hands", ())),
            started_at=int(p.get("started_at", 0)),
            ended_at=int(p.get("ended_at", 0)),
            match_over=ended is not None,
            match_winner=ended.public.get("winner") if ended is not None else None,
            snapshot=engine.state_to_json(event.after) if event.after is not None else None,
        )
        self._last[record.code] = round_record
        await self._send(round_record)

    async def _late_match_end(self, record: RoomRecord, event: Event) -> None:
        last = self._last.get(record.code)
        if last is None or last.match_over:
            return
        final = replace(last, match_over=True, match_winner=event.public.get("winner"))
        self._last[record.code] = final
        await self._send(final)

    async def _send(self, round_record: RoundRecord) -> None:
        try:
            await self.recorder.round_completed(round_record)
        except Exception:
            # The recorder keeps its own outbox; if even that fails the game goes on.
            log.exception("could not record a completed round")


def _table(event: Event) -> tuple[dict[str, Any], tuple[PlayerRecord, ...]]:
    state = event.after
    if state is None:
        return {}, ()
    settings: dict[str, Any] = engine.settings_to_json(state.settings)
    players = tuple(
        PlayerRecord(seat=i, player_id=s.player_id, name=s.name, bot=s.bot)
        for i, s in enumerate(state.seats)
    )
    return settings, players
