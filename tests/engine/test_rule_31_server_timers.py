"""Rule 31: commands after their deadline are refused; a stale timer never fires."""

from __future__ import annotations

from app.engine import apply, state_to_json
from app.engine.actions import Catch, Challenge, Draw, Timeout

from .helpers import CHAIN, CHAIN_FIRST, Table, run_chain

# The room applies every timeout already due before a command (docs/architecture.md, "The
# path of one move"), so a late command meets the state after the expiry and is refused there.


def test_command_after_the_turn_deadline_is_refused() -> None:
    t = Table(2, first="red 3", turn_seconds=10)
    t.timeout("turn")
    assert t.turn == 1
    t.refuse(0, Draw(), "not_your_turn")


def test_answer_after_the_challenge_deadline_is_refused() -> None:
    hand0 = ["wild_draw4", "blue 3", "wild", "green 1", "green 2", "yellow 5", "yellow 6"]
    t = Table(3, hands={0: hand0}, first="red 3")
    t.play(0, "wild_draw4", color="blue")
    t.timeout("challenge")
    t.refuse(1, Challenge(), ("wrong_phase", "not_your_turn"))


def test_catch_after_the_uno_window_is_refused() -> None:
    t = Table(2, hands={0: [*CHAIN, "green 7", "yellow 7"]}, first=CHAIN_FIRST)
    run_chain(t)
    t.play(0, "green 7")
    t.timeout("uno")
    t.refuse(1, Catch(seat=0), "not_catchable")


def test_stale_timeout_is_ignored() -> None:
    t = Table(2, first="red 3", turn_seconds=10)
    old = t.deadline("turn")
    t.draw(0)
    if t.phase == "after_draw":
        t.pass_(0)
    assert t.turn == 1
    before = state_to_json(t.state)
    state, events = apply(t.state, None, Timeout(kind="turn", set_at=old.set_at), t.rng, old.at)
    assert events == []
    assert state_to_json(state) == before


def test_timeout_of_a_deadline_that_does_not_exist_is_ignored() -> None:
    t = Table(2, first="red 3")
    before = state_to_json(t.state)
    state, events = apply(t.state, None, Timeout(kind="challenge", set_at=1), t.rng, t.now)
    assert events == []
    assert state_to_json(state) == before
