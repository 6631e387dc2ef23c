"""Rule 13: declaring UNO, the catch window, `uno_penalty`, `false_catch_penalty`."""

from __future__ import annotations

import pytest

from app.engine import apply
from app.engine.actions import Catch
from app.engine.errors import EngineError

from .helpers import CHAIN, CHAIN_FIRST, Table, run_chain

HAND0 = [*CHAIN, "green 7", "yellow 7"]


def two_cards(**settings: object) -> Table:
    """Two players; seat 0 holds a green 7 and a yellow 7 and is in turn on a green Skip."""
    t = Table(2, hands={0: HAND0}, first=CHAIN_FIRST, pile=["blue 9"], **settings)
    run_chain(t)
    assert t.count(0) == 2
    return t


def test_declared_with_the_play_cannot_be_caught() -> None:
    t = two_cards()
    assert "uno_declared" in t.kinds(t.play(0, "green 7", uno=True))
    assert t.count(0) == 1
    assert t.view(None)["seats"][0]["uno"] is True
    assert t.moves(1)["catch"] == []
    t.refuse(1, Catch(seat=0), "not_catchable")


def test_undeclared_is_caught_and_draws_the_penalty() -> None:
    t = two_cards()
    t.play(0, "green 7")
    assert t.moves(1)["catch"] == [0]
    assert t.has_deadline("uno")
    events = t.catch(1, 0)
    assert "uno_caught" in t.kinds(events)
    assert t.count(0) == 3
    assert t.moves(1)["catch"] == []


def test_uno_penalty_setting_is_the_number_drawn() -> None:
    for penalty in (0, 4, 10):
        t = two_cards(uno_penalty=penalty)
        t.play(0, "green 7")
        t.catch(1, 0)
        assert t.count(0) == 1 + penalty


def test_declaring_right_after_the_play_counts() -> None:
    t = two_cards()
    t.play(0, "green 7")
    assert t.kinds(t.uno(0)) == ["uno_declared"]
    assert t.view(None)["seats"][0]["uno"] is True
    t.refuse(1, Catch(seat=0), "not_catchable")


def test_window_closes_when_the_player_in_turn_acts() -> None:
    t = two_cards()
    t.play(0, "green 7")
    t.draw(1)  # blue 9 on green 7: not playable, the turn passes back
    assert t.moves(1)["catch"] == []
    t.refuse(1, Catch(seat=0), "not_catchable")


def test_window_closes_after_uno_window_ms() -> None:
    t = two_cards(uno_window_ms=1500)
    t.play(0, "green 7")
    played_at = t.now
    d = t.deadline("uno")
    assert d.at == played_at + 1500
    assert d.seat == 0
    t.timeout("uno")
    assert not t.has_deadline("uno")
    assert t.moves(1)["catch"] == []
    t.refuse(1, Catch(seat=0), "not_catchable")


def test_catch_of_a_player_not_at_one_card_is_refused() -> None:
    t = two_cards()
    t.refuse(1, Catch(seat=0), "not_catchable")


def test_false_catch_penalty_costs_the_catcher() -> None:
    """The catch is refused with not_catchable, and the error carries the costed table."""
    t = two_cards(false_catch_penalty=3)
    t.play(0, "green 7", uno=True)
    before = t.count(1)
    with pytest.raises(EngineError) as info:
        apply(t.state, 1, Catch(seat=0), t.rng, t.now + 10)
    assert info.value.code == "not_catchable"
    assert info.value.state is not None
    assert info.value.events
    t.state = info.value.state
    assert t.count(1) == before + 3
    assert t.count(0) == 1


def test_false_catch_without_penalty_changes_nothing() -> None:
    t = two_cards(false_catch_penalty=0)
    t.play(0, "green 7", uno=True)
    err = t.refuse(1, Catch(seat=0), "not_catchable")
    assert err.state is None


@pytest.mark.parametrize("nobody", [2, 7, -1])
def test_a_catch_of_a_seat_nobody_holds_is_a_bad_target_and_costs_nothing(nobody: int) -> None:
    """A malformed command, not a wrong call: refused `bad_target`, with no false-catch penalty
    and no other change."""
    t = two_cards(false_catch_penalty=3)
    t.play(0, "green 7")  # exposed: a real catch would hit seat 0
    err = t.refuse(1, Catch(seat=nobody), "bad_target")
    assert err.state is None and not err.events


def test_a_catch_of_oneself_is_a_bad_target_and_costs_nothing() -> None:
    """RULES 13: "any other player may catch"; a player aiming a catch at their own seat (even
    exposed, inside the window) makes no catch: `bad_target`, no false-catch penalty."""
    t = two_cards(false_catch_penalty=3)
    t.play(0, "green 7")  # seat 0 is exposed: seat 1 could catch it
    err = t.refuse(0, Catch(seat=0), "bad_target")
    assert err.state is None and not err.events
    err = t.refuse(1, Catch(seat=1), "bad_target")
    assert err.state is None and not err.events
    t.catch(1, 0)  # the window is still open for a real catch
    assert t.count(0) == 3


def test_third_player_may_catch_inside_the_window() -> None:
    # Three players playing red numbers; seat 0 reaches one card on its sixth play.
    hands = {
        0: ["red 1", "red 1", "red 2", "red 2", "red 4", "red 4", "blue 9"],
        1: ["red 5", "red 5", "red 6", "red 6", "red 7", "green 1", "green 2"],
        2: ["red 8", "red 8", "red 9", "red 9", "red 0", "green 3", "green 4"],
    }
    t = Table(3, hands=hands, first="red 3")
    order = {0: ["red 1", "red 1", "red 2", "red 2", "red 4"], 1: hands[1][:5], 2: hands[2][:5]}
    for k in range(5):
        for seat in range(3):
            t.play(seat, order[seat][k])
    t.play(0, "red 4")
    assert t.count(0) == 1
    assert t.moves(1)["catch"] == [0] and t.moves(2)["catch"] == [0]
    t.catch(2, 0)
    assert t.count(0) == 3
    assert t.turn == 1


def test_declaring_at_two_cards_before_the_play_counts() -> None:
    t = two_cards()
    assert t.moves(0)["uno"] is True
    t.uno(0)
    t.play(0, "green 7")
    assert t.count(0) == 1
    t.refuse(1, Catch(seat=0), "not_catchable")


def test_penalty_draws_applied_by_the_server_do_not_close_the_window() -> None:
    hands = {
        0: ["red 1", "red 1", "red 2", "red 2", "red 4", "red draw2", "blue 9"],
        1: ["red 5", "red 5", "red 6", "red 6", "red 7", "green 1", "green 2"],
        2: ["red 8", "red 8", "red 9", "red 9", "red 0", "green 3", "green 4"],
    }
    t = Table(3, hands=hands, first="red 3")
    order = {0: hands[0][:5], 1: hands[1][:5], 2: hands[2][:5]}
    for k in range(5):
        for seat in range(3):
            t.play(seat, order[seat][k])
    t.play(0, "red draw2")  # seat 1 draws 2 by itself and is skipped; seat 2 is in turn
    assert t.count(1) == 4 and t.turn == 2
    assert t.moves(1)["catch"] == [0]
    t.catch(1, 0)
    assert t.count(0) == 3


def test_an_early_declaration_lapses_when_the_player_draws_instead() -> None:
    t = two_cards()
    t.uno(0)  # declared at two cards...
    t.draw(0)  # ...but drew instead of playing: three cards
    if t.phase == "after_draw":
        t.pass_(0)
    t.draw(1)
    if t.phase == "after_draw":
        t.pass_(1)
    t.play(0, "green 7")
    t.draw(1)
    if t.phase == "after_draw":
        t.pass_(1)
    t.play(0, "yellow 7")  # one card, not declared this time
    assert t.count(0) == 1
    assert t.moves(1)["catch"] == [0]


def test_a_draw_the_server_makes_on_expiry_does_not_close_the_window() -> None:
    t = two_cards(turn_seconds=5, uno_window_ms=10000)
    t.play(0, "green 7")
    t.timeout("turn")  # seat 1 did not act of its own will: the server drew for it
    assert t.moves(1)["catch"] == [0]
    t.catch(1, 0)
    assert t.count(0) == 3


def test_accepting_a_wild_draw_four_closes_the_window() -> None:
    hands = {
        0: ["red 1", "red 1", "red 2", "red 2", "red 4", "wild_draw4", "blue 9"],
        1: ["red 5", "red 5", "red 6", "red 6", "red 7", "green 1", "green 2"],
        2: ["red 8", "red 8", "red 9", "red 9", "red 0", "green 3", "green 4"],
    }
    t = Table(3, hands=hands, first="red 3")
    for k in range(5):
        for seat in range(3):
            t.play(seat, hands[seat][k])
    t.play(0, "wild_draw4", color="green")  # one card left, not declared
    assert t.phase == "challenge"
    assert t.moves(1)["catch"] == [0] and t.moves(2)["catch"] == [0]
    t.accept(1)  # the victim in turn acts of its own will
    assert t.moves(2)["catch"] == []
    t.refuse(2, Catch(seat=0), "not_catchable")


def test_nobody_catches_themselves() -> None:
    t = two_cards()
    t.play(0, "green 7")
    assert t.moves(0)["catch"] == []
    t.refuse(0, Catch(seat=0))


def test_a_catch_outside_the_window_also_costs_the_catcher() -> None:
    t = two_cards(false_catch_penalty=2)
    t.play(0, "green 7")
    t.timeout("uno")
    with pytest.raises(EngineError) as info:
        apply(t.state, 1, Catch(seat=0), t.rng, t.now + 10)
    assert info.value.code == "not_catchable"
    assert info.value.state is not None
    t.state = info.value.state
    assert t.counts() == [1, 7 + 2]


def test_an_early_declaration_lapses_when_the_player_passes_instead() -> None:
    # Seat 0 declares at two cards after drawing a playable card, then keeps it and passes:
    # the declaration was for a play that never came, so a later undeclared one is caught.
    t = Table(
        2,
        hands={0: [*CHAIN, "green 4", "yellow 9"], 1: ["green 7"]},
        first=CHAIN_FIRST,
        pile=["green 5", "yellow 2"],
        avoid=["color=green", "color=yellow", "kind=wild"],
    )
    run_chain(t)
    t.play(0, "green 4", uno=True)
    t.play(1, "green 7")
    t.draw(0)  # the green 5: playable, two cards
    assert t.phase == "after_draw"
    t.uno(0)
    t.pass_(0)
    t.draw(1)  # the yellow 2, not playable on the green 7: the turn ends by itself
    assert t.turn == 0 and t.count(0) == 2
    t.play(0, "green 5")  # one card, not declared on this turn
    assert t.view(None)["seats"][0]["uno"] is False
    assert t.moves(1)["catch"] == [0]


def test_an_early_declaration_lapses_when_a_jump_in_takes_the_turn() -> None:
    t = Table(
        2,
        hands={0: HAND0, 1: ["green skip", "green 1"]},
        first=CHAIN_FIRST,
        avoid=["color=green", "kind=wild"],
        jump_in=True,
    )
    run_chain(t)
    t.uno(0)  # declared at two cards, on the green Skip...
    t.play(1, "green skip")  # ...but seat 1 jumps in; two players: seat 1 plays again
    assert t.turn == 1
    t.play(1, "green 1")
    t.play(0, "green 7")  # one card, not declared on this turn
    assert t.moves(1)["catch"] == [0]
