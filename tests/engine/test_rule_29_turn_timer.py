"""Rule 29: `turn_seconds`: the server acts for a player who runs out; `afk_timeouts` bots."""

from __future__ import annotations

import random

import pytest

from app.engine import apply, bot_seats
from app.engine.actions import Choose, Draw
from app.engine.errors import EngineError

from .helpers import LIGHT, Table

DRY = ["blue 1", "blue 2", "green 4", "green 5", "yellow 6", "yellow 8", "blue 9"]


def test_turn_deadline_is_turn_seconds_after_the_turn_began() -> None:
    t = Table(2, first="red 3", turn_seconds=20)
    d = t.deadline("turn")
    assert d.seat == 0
    assert d.at == t.now + 20_000
    assert t.view(0)["state"]["deadlines"]["turn"] == {"seat": 0, "at": d.at}


def test_untimed_table_has_no_turn_deadline() -> None:
    t = Table(2, first="red 3", turn_seconds=0)
    assert not t.has_deadline("turn")
    assert t.st["deadlines"]["turn"] is None


def test_expiry_draws_then_keeps_and_passes() -> None:
    t = Table(2, hands={0: DRY}, first="red 3", pile=["red 9"])  # a playable card is drawn
    events = t.timeout("turn")
    assert "timer_expired" in t.kinds(events)
    assert t.count(0) == 8
    assert t.draw_ids[0] in t.hand_ids_now(0)  # kept, not played
    assert t.top["id"] == t.first_id
    assert t.turn == 1


def test_a_pass_the_timer_makes_is_marked_auto() -> None:
    """Every turn_passed the server makes for the player carries `"auto": true`, like the
    pass after an unplayable drawn card and the timer's color choice; a player's own pass
    has no `auto`."""
    t = Table(2, hands={0: DRY}, first="red 3", pile=["red 9"])  # a playable card is drawn
    events = t.timeout("turn")
    assert t.find("turn_passed", events).public == {"seat": 0, "auto": True}
    t2 = Table(2, hands={0: DRY}, first="red 3", pile=["red 9"])
    t2.draw(0)
    events = t2.timeout("turn")  # expiry in after_draw
    assert t2.find("turn_passed", events).public == {"seat": 0, "auto": True}
    t3 = Table(2, hands={0: DRY}, first="red 3", pile=["red 9"])
    t3.draw(0)
    assert t3.find("turn_passed", t3.pass_(0)).public == {"seat": 0}


def test_expiry_after_a_draw_passes() -> None:
    t = Table(2, hands={0: DRY}, first="red 3", pile=["red 9"])
    t.draw(0)
    assert t.phase == "after_draw"
    t.timeout("turn")
    assert t.count(0) == 8
    assert t.turn == 1


def test_expiry_takes_a_pending_penalty() -> None:
    hand0 = ["red draw2", "blue 1", "blue 2", "green 1", "green 2", "yellow 1", "yellow 2"]
    t = Table(3, hands={0: hand0}, first="red 3", stack_draw2=True)
    t.play(0, "red draw2")
    assert t.phase == "penalty"
    t.timeout("turn")
    assert t.count(1) == 9
    assert t.turn == 2


def test_expiry_names_a_random_color_then_plays_the_turn_out() -> None:
    """One idle turn is one expiry: a color to name (first card a wild), then the draw and
    the pass, counted once towards `afk_timeouts` (with 2, no bot after a single idle turn)."""
    t = Table(3, dealer=0, first="wild", afk_timeouts=2)
    assert t.phase == "choose" and t.turn == 1
    events = t.timeout("turn")
    assert t.st["color"] in LIGHT
    kinds = t.kinds(events)
    assert kinds.index("color_chosen") < kinds.index("card_drawn") < kinds.index("turn_passed")
    assert t.find("color_chosen", events).public["auto"] is True
    assert t.turn == 2 and t.count(1) == 8
    assert "bot_took_over" not in kinds and 1 not in bot_seats(t.state)


def test_a_draw_does_not_buy_a_fresh_turn_period() -> None:
    """RULES 29: one deadline per turn ("draws if they have not, then keeps and passes"):
    drawing, or naming the turned-up wild's color, keeps the turn's deadline."""
    t = Table(2, hands={0: DRY}, first="red 3", pile=["red 9"], turn_seconds=30)
    at = t.deadline("turn").at
    t.now += 25_000
    t.draw(0)
    assert t.phase == "after_draw"
    assert t.deadline("turn").at == at
    t.pass_(0)
    assert t.deadline("turn").at == t.now + 30_000  # the next player's turn: a full period
    w = Table(3, dealer=0, first="wild", turn_seconds=30)
    at = w.deadline("turn").at
    w.now += 10_000
    w.act(1, Choose("red"))
    assert w.phase == "play" and w.deadline("turn").at == at


def test_afk_timeouts_in_a_row_hand_the_seat_to_a_bot_until_it_acts() -> None:
    t = Table(2, first="red 3", afk_timeouts=2, pile=["blue 9", "blue 8", "blue 7", "blue 6"])
    t.timeout("turn")  # seat 0: first expiry
    assert 0 not in bot_seats(t.state)
    t.draw(1)
    if t.phase == "after_draw":
        t.pass_(1)
    t.timeout("turn")  # seat 0: second in a row
    assert 0 in bot_seats(t.state)
    assert t.find("bot_took_over").public["seat"] == 0
    t.draw(1)
    if t.phase == "after_draw":
        t.pass_(1)
    t.act(0, Draw())  # the player is back
    assert 0 not in bot_seats(t.state)


def test_one_afk_timeout_is_enough_when_set_to_one() -> None:
    t = Table(2, first="red 3", afk_timeouts=1)
    t.timeout("turn")
    assert 0 in bot_seats(t.state)


def test_acting_in_between_resets_the_count() -> None:
    t = Table(2, first="red 3", afk_timeouts=2)
    t.timeout("turn")  # seat 0, first
    t.timeout("turn")  # seat 1, first
    t.draw(0)  # seat 0 acts itself
    if t.phase == "after_draw":
        t.pass_(0)
    t.timeout("turn")  # seat 1, second in a row
    assert 1 in bot_seats(t.state)
    assert 0 not in bot_seats(t.state)
    t.timeout("turn")  # seat 0: first again
    assert 0 not in bot_seats(t.state)


def test_expiry_with_forced_play_still_keeps_the_drawn_card() -> None:
    t = Table(2, hands={0: DRY}, first="red 3", pile=["red 9"], forced_play=True)
    t.timeout("turn")
    assert t.draw_ids[0] in t.hand_ids_now(0)
    assert t.top["id"] == t.first_id
    assert t.turn == 1


def test_a_refused_command_still_hands_the_seat_back() -> None:
    """ "Until the player sends any command": a command the rules refuse (not the seat's
    turn, say) is still the player's, so the bot stops; the refusal itself changes nothing
    else. The error carries the return (`player_returned`) to commit, like a false catch's
    penalty."""
    t = Table(2, first="red 3", afk_timeouts=1, pile=["blue 9", "blue 8", "blue 7", "blue 6"])
    t.timeout("turn")  # seat 0 is away
    assert 0 in bot_seats(t.state)
    hands = t.counts()
    with pytest.raises(EngineError) as info:
        apply(t.state, 0, Draw(), random.Random(0), t.now + 10)  # seat 1's turn
    err = info.value
    assert err.code == "not_your_turn"
    assert err.state is not None and [e.kind for e in err.events] == ["player_returned"]
    assert err.events[0].public == {"seat": 0}
    assert err.state.version == t.state.version + 1
    assert 0 not in bot_seats(err.state)
    assert [len(h) for h in err.state.hands] == hands and err.state.turn == t.state.turn


def test_a_refused_command_of_a_present_player_changes_nothing() -> None:
    t = Table(2, first="red 3", afk_timeouts=2)
    t.timeout("turn")  # one expiry of two: not away
    err = t.refuse(0, Draw(), "not_your_turn")
    assert err.state is None and err.events == []
