"""A whole match to the target, played by bots through the engine: what the database keeps is
exactly what the `round_ended` events said, and a room restored from the latest snapshot after
a restart deals its next round."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from app.engine import (
    Join,
    Start,
    State,
    Timeout,
    apply,
    deadlines,
    new_table,
    parse_settings,
    state_from_json,
)
from app.engine.bot import bot_action
from app.engine.events import Event
from app.engine.state import state_to_json
from app.store.recorder import PlayerRecord, RoundRecord
from app.store.sql.models import Round, RoundPlayer

from .conftest import Database
from .helpers import count_rows, wait_until_delivered

NAMES = ("Ann", "Bob", "Cy")
SETTINGS = {"target_score": 200}
STEP_MS = 100
# GET /api/matches round field ← round_ended event field
WIRE_ROUND = {"number": "round", "winner": "winner", "points": "points", "ended_at": "ended_at"}


@dataclass
class PlayedMatch:
    records: list[RoundRecord]
    round_events: list[dict[str, Any]]
    match_ended: dict[str, Any]


def _record(state: State, event: Event, match_end: Event | None) -> RoundRecord:
    """A RoundRecord from a round_ended event, the way the room builds one."""
    p = event.public
    assert event.after is not None
    return RoundRecord(
        match_id=p["match_id"],
        room=state.room,
        settings=SETTINGS,
        players=tuple(
            PlayerRecord(seat=i, player_id=s.player_id, name=s.name, bot=s.bot)
            for i, s in enumerate(event.after.seats)
        ),
        number=p["round"],
        winner=p["winner"],
        reason=p["reason"],
        points=tuple(p["points"]),
        scores=tuple(p["scores"]),
        hands=tuple(tuple(h) for h in p["hands"]),
        started_at=p["started_at"],
        ended_at=p["ended_at"],
        match_over=match_end is not None,
        match_winner=match_end.public["winner"] if match_end is not None else None,
        snapshot=state_to_json(event.after),
    )


def play_match(seed: int) -> PlayedMatch:

    rng = random.Random(seed)
    st = new_table("FULL", parse_settings(SETTINGS))
    for i, name in enumerate(NAMES):
        st, _ = apply(st, None, Join(name, f"player-{i}"), rng, 0)
    now = 1_764_450_000_000
    st, _ = apply(st, 0, Start(), rng, now)
    records: list[RoundRecord] = []
    round_events: list[dict[str, Any]] = []
    match_ended: dict[str, Any] = {}
    for _ in range(50_000):
        if st.status == "match_over":
            break
        now += STEP_MS
        if st.status == "round_over":
            st, _ = apply(st, st.host, Start(), rng, now)
            continue
        seats = [st.turn, *(s for s in range(len(NAMES)) if s != st.turn)]
        moves = [(s, a) for s in seats if (a := bot_action(st, s, rng)) is not None]
        if moves:
            seat, action = moves[0]
            st, events = apply(st, seat, action, rng, now, trace=True)
        else:  # nobody may act: the earliest deadline passes
            due = min(deadlines(st), key=lambda d: d.at)
            now = max(now, due.at)
            st, events = apply(st, None, Timeout(due.kind, due.set_at), rng, now, trace=True)
        for index, event in enumerate(events):
            if event.kind == "round_ended":
                end = next((e for e in events[index + 1 :] if e.kind == "match_ended"), None)
                records.append(_record(st, event, end))
                round_events.append(dict(event.public))
            elif event.kind == "match_ended":
                match_ended = dict(event.public)
    assert st.status == "match_over", "the bots did not finish the match"
    return PlayedMatch(records, round_events, match_ended)


@pytest.fixture(scope="module")
def played() -> PlayedMatch:
    return play_match(seed=7)


async def test_stored_rounds_and_scores_equal_the_round_ended_events(
    database: Database, played: PlayedMatch
) -> None:
    assert len(played.records) >= 2, "pick a seed whose match lasts more than one round"
    match_id = played.records[0].match_id
    recorder = database.recorder()
    await recorder.start()
    await recorder.round_completed(played.records[0])
    await recorder.close()

    # a restart after round 1: the room comes back from the snapshot and deals round 2
    recorder = database.recorder()
    await recorder.start()
    snapshot = await recorder.latest_snapshot("FULL")
    assert snapshot == played.records[0].snapshot
    restored = state_from_json(snapshot)
    assert restored.round == 1 and restored.scores == list(played.round_events[0]["scores"])
    dealt, events = apply(restored, restored.host, Start(), random.Random(1), 1_800_000_000_000)
    assert dealt.round == 2 and dealt.match_id == match_id
    assert any(e.kind == "round_started" for e in events)

    for record in played.records[1:]:
        await recorder.round_completed(record)
    body = await recorder.get_match(match_id)
    assert body is not None
    assert body["status"] == "finished"
    assert body["winner"] == played.match_ended["winner"]
    assert body["scores"] == played.match_ended["scores"] == played.round_events[-1]["scores"]
    assert body["rounds"] == [
        {k: e[key] for k, key in WIRE_ROUND.items()} for e in played.round_events
    ]
    assert body["players"] == [
        {"seat": i, "player_id": f"player-{i}", "name": name} for i, name in enumerate(NAMES)
    ]
    assert max(body["scores"]) >= SETTINGS["target_score"]
    await wait_until_delivered(recorder)
    assert await recorder.get_match(match_id) == body  # the same from the database alone
    assert await count_rows(recorder, Round, match_id) == len(played.round_events)
    assert await count_rows(recorder, RoundPlayer, match_id) == len(NAMES) * len(
        played.round_events
    )
    assert await recorder.latest_snapshot("FULL") == played.records[-1].snapshot
