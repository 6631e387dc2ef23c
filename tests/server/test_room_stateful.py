"""A room under a random interleaving of everything that can happen to it (hypothesis
stateful): commands from three seats, legal or not, fresh or decided on an older version,
resent ids, and the clock jumping past turn, UNO-window, challenge and next-round deadlines
(the scheduler's wake-up), against RoomService with an injected clock and seeded randomness.

After every step: each command had exactly one outcome, and a resent id got the same ack
without being applied again; the history's versions are contiguous (every version once, in
order, ending at the room's); the cards are conserved (hands + draw pile + discard = the
deck); no one's view shows a card of the draw pile."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from e2e.harness import card_ids
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from app import engine
from app.bus.memory import MemoryBus
from app.engine import actions as act
from app.engine.state import State
from app.rooms.commands import Command
from app.rooms.service import Identity, Outcome, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.rooms import MemoryRoomStore
from tests.fake_clock import Clock

SETTINGS = {
    "turn_seconds": 5,
    "next_round_seconds": 3,
    "afk_timeouts": 1,  # a timed-out seat turns bot: rounds end within a run's steps
    "target_score": 150,
    "bot_delay_ms": 0,
    "dealer": 0,
}
SEATS = 3


class RoomMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.clock = Clock()
        self.service = RoomService(
            AppSettings(database_url="memory://", uno_test_hooks=True),
            MemoryRoomStore(),
            MemoryBus(),
            MemoryRecorder(),
            clock=self.clock,
            rng=random.Random(11),
        )
        self.people: list[Identity] = []
        self.acks: dict[tuple[int, str], int] = {}  # (seat, command id) → acked version
        self.serial = 0
        self.room = self._run(self._open())
        self.seen = 0  # the last version whose events were checked
        self._check_history()

    async def _open(self) -> str:
        host = await self.service.create_room("P0", SETTINGS)
        self.people.append(Identity(host.player_id, "player", 0))
        for i in range(1, SEATS):
            joined = await self.service.join(host.room, f"P{i}")
            self.people.append(Identity(joined.player_id, "player", i))
        started = await self.service.submit(
            host.room, self.people[0], Command("start", "start-0", None, act.Start())
        )
        assert started.version is not None
        return host.room

    def _run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    def teardown(self) -> None:
        self.loop.close()

    def _state(self) -> State:
        record = self._run(self.service.store.load(self.room))
        assert record is not None
        state: State = record.state
        return state

    def _submit(self, seat: int, command: Command) -> Outcome:
        outcome: Outcome = self._run(self.service.submit(self.room, self.people[seat], command))
        assert (outcome.version is None) != (outcome.code is None), outcome  # exactly one
        return outcome

    # --- what can happen ---------------------------------------------------------------

    @rule(
        seat=st.integers(0, SEATS - 1),
        pick=st.integers(0, 10_000),
        lag=st.sampled_from([0, 0, 0, 1, 4]),
        legal=st.booleans(),
    )
    def command(self, seat: int, pick: int, lag: int, legal: bool) -> None:
        state = self._state()
        choices: list[act.Action] = engine.legal_actions(state, seat) if legal else []
        if not choices:  # whatever a client might send: often refused
            choices = [act.Draw(), act.Pass(), act.DeclareUno(), act.Challenge(), act.Start()]
        action = choices[pick % len(choices)]
        self.serial += 1
        command_id = f"c{self.serial}"
        at = max(1, state.version - lag)
        outcome = self._submit(seat, Command(type(action).__name__, command_id, at, action))
        if outcome.version is not None:
            self.acks[(seat, command_id)] = outcome.version

    @rule(pick=st.integers(0, 10_000))
    def the_turn_plays(self, pick: int) -> None:
        """The seat to move makes a legal move, a card when it has one (rounds must end)."""
        state = self._state()
        choices = engine.legal_actions(state, state.turn)
        plays = [a for a in choices if isinstance(a, act.Play)]
        if not (plays or choices):
            return
        action = (plays or choices)[pick % len(plays or choices)]
        self.serial += 1
        command_id = f"c{self.serial}"
        command = Command(type(action).__name__, command_id, state.version, action)
        outcome = self._submit(state.turn, command)
        if outcome.version is not None:
            self.acks[(state.turn, command_id)] = outcome.version

    @rule(seat=st.integers(0, SEATS - 1), text=st.sampled_from(["gg", "a\x00b", "\u202eX"]))
    def chat(self, seat: int, text: str) -> None:
        self.serial += 1
        command_id = f"c{self.serial}"
        outcome = self._submit(seat, Command("chat", command_id, None, act.Chat(text)))
        if outcome.version is not None:
            self.acks[(seat, command_id)] = outcome.version

    @precondition(lambda self: bool(self.acks))
    @rule(pick=st.integers(0, 10_000))
    def resend(self, pick: int) -> None:
        (seat, command_id), version = sorted(self.acks.items())[pick % len(self.acks)]
        before = self._state().version
        action = act.Chat("resent: must not be applied")
        outcome = self._submit(seat, Command("chat", command_id, None, action))
        assert outcome == Outcome(version=version)
        events = self._run(self.service.store.events_since(self.room, before)) or []
        assert all(e.kind != "chat" or "resent" not in str(e.public) for e in events)

    @rule(ms=st.sampled_from([1, 400, 2_000, 3_001, 5_001, 12_000, 60_000]))
    def time_passes(self, ms: int) -> None:
        self.clock.now += ms
        self._run(self.service.wake(self.room))  # what the scheduler does at a deadline

    # --- what must always hold ------------------------------------------------------------

    def _check_history(self) -> None:
        state = self._state()
        events = self._run(self.service.store.events_since(self.room, self.seen))
        assert events is not None
        assert [e.version for e in events] == list(range(self.seen + 1, state.version + 1))
        self.seen = state.version

    @invariant()
    def versions_are_contiguous(self) -> None:
        self._check_history()

    @invariant()
    def cards_are_conserved(self) -> None:
        state = self._state()
        if state.status == "lobby":
            return
        held = [c for hand in state.hands for c in hand] + state.draw_pile + state.discard
        assert sorted(held) == list(range(state.deck.size))

    @invariant()
    def no_view_shows_the_draw_pile(self) -> None:
        state = self._state()
        hidden = set(state.draw_pile)
        for seat in (None, *range(SEATS)):
            assert not card_ids(engine.view(state, seat, self.clock.now)) & hidden, seat


TestRoomStateful = RoomMachine.TestCase
TestRoomStateful.settings = settings(max_examples=40, stateful_step_count=100, deadline=None)
