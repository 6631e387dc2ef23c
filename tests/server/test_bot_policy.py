"""The bot policy on exact deals: legal, sensible, and built on what the seat may see."""

from __future__ import annotations

import random
from typing import Any

from e2e.harness import deal_order

from app.engine import State, apply, deck_listing, legal_actions, new_table, parse_settings, view
from app.engine import actions as act
from app.engine.bot import bot_action

T0 = 1_764_453_000_000


def _table(hands: list[list[str]], top: str, **settings: Any) -> tuple[State, list[list[int]]]:
    rng = random.Random(7)
    state = new_table("r", parse_settings({"turn_seconds": 0, **settings}, test_hooks=True))
    for i in range(len(hands)):
        state, _ = apply(state, None, act.Join(f"P{i}", f"p{i}"), rng, T0)
    cards = deck_listing(state, test_hooks=True)["cards"]
    order, ids, _ = deal_order(cards, hands, top, dealer=len(hands) - 1)
    state, _ = apply(
        state, 0, act.ChangeSettings({"dealer": len(hands) - 1, "deck_order": order}), rng, T0
    )
    state, _ = apply(state, 0, act.Start(), rng, T0)
    return state, ids


def _act(state: State, seat: int, action: act.Action) -> State:
    state, events = apply(state, seat, action, random.Random(1), T0 + 10)
    assert events
    return state


def test_prefers_action_cards_and_high_numbers_over_wilds() -> None:
    state, ids = _table([["red 2", "red 9", "red skip", "wild", "blue 1"], ["green 1"]], "red 5")
    choice = bot_action(state, 0, random.Random(1))
    assert choice == act.Play(ids[0][2], None, None, False)  # the Skip
    state = _act(state, 0, act.Play(ids[0][2]))  # two players: Skip plays again
    assert bot_action(state, 0, random.Random(1)) == act.Play(ids[0][1], None, None, False)


def test_names_the_color_it_holds_most() -> None:
    state, ids = _table(
        [["wild", "blue 1", "blue 2", "green 3", "blue 4", "yellow 8", "yellow 9"], ["red 1"]],
        "red 5",
    )
    choice = bot_action(state, 0, random.Random(3))
    assert choice == act.Play(ids[0][0], "blue", None, False)


def test_declares_uno_with_the_play_that_leaves_one_card() -> None:
    state, _ids = _table(
        [["red 1", "red 2", "red 3", "red 4", "red 6", "red 7", "red 8"], ["green 1"]], "red 5"
    )
    rng = random.Random(5)
    for _ in range(5):
        state = _act(state, 0, bot_action(state, 0, rng) or act.Draw())
        state = _act(state, 1, act.Draw())
        if view(state, 1, T0)["you"]["moves"]["pass"]:
            state = _act(state, 1, act.Pass())
    choice = bot_action(state, 0, rng)
    assert isinstance(choice, act.Play) and choice.uno is True


def test_catches_a_player_who_forgot_uno() -> None:
    reds = ["red 1", "red 2", "red 3", "red 4", "red 6", "red 7", "red 8"]
    state, ids = _table([reds, ["green 1"]], "red 5")
    for card in ids[0][:5]:
        state = _act(state, 0, act.Play(card))
        state = _act(state, 1, act.Draw())
        if view(state, 1, T0)["you"]["moves"]["pass"]:
            state = _act(state, 1, act.Pass())
    state = _act(state, 0, act.Play(ids[0][5]))  # one card left, not declared
    assert act.Catch(0) in legal_actions(state, 1)
    assert bot_action(state, 1, random.Random(1)) == act.Catch(0)


def test_answers_a_wild_draw_four_by_challenge_or_accept() -> None:
    state, ids = _table([["wild_draw4", "red 1"], ["green 1"]], "red 5")
    state = _act(state, 0, act.Play(ids[0][0], "blue"))
    answers = {type(bot_action(state, 1, random.Random(seed))) for seed in range(40)}
    assert answers == {act.Challenge, act.Accept}


def test_draws_when_nothing_fits_then_passes_or_plays_the_drawn_card() -> None:
    state, _ = _table([["blue 1"], ["green 1"]], "red 5")
    assert bot_action(state, 0, random.Random(1)) == act.Draw()
    state = _act(state, 0, act.Draw())
    nxt = bot_action(state, 0, random.Random(1))
    assert nxt is None or isinstance(nxt, (act.Play, act.Pass))


def test_never_acts_in_the_lobby_nor_out_of_turn() -> None:
    lobby = new_table("r", parse_settings({}))
    lobby, _ = apply(lobby, None, act.Join("A", "a"), random.Random(1), T0)
    assert bot_action(lobby, 0, random.Random(1)) is None
    state, _ = _table([["blue 1"], ["green 1"]], "red 5")
    assert bot_action(state, 1, random.Random(1)) is None


def test_every_choice_is_legal_over_many_random_games() -> None:
    for seed in range(3):
        rng = random.Random(seed)
        state = new_table("r", parse_settings({"turn_seconds": 0, "seven_zero": True}))
        for i in range(4):
            state, _ = apply(state, None, act.Join(f"P{i}", f"p{i}"), rng, T0)
        state, _ = apply(state, 0, act.Start(), rng, T0)
        for _ in range(2000):
            if state.status != "playing":
                break
            moved = False
            for seat in range(4):
                choice = bot_action(state, seat, rng)
                if choice is not None:
                    assert choice in legal_actions(state, seat)
                    state, _ = apply(state, seat, choice, rng, T0)
                    moved = True
                    break
            assert moved, "somebody always has something to do"
        assert state.status != "playing", "a bot round ends"


def test_keeps_a_wild_draw_four_while_other_cards_fit() -> None:
    state, ids = _table([["wild_draw4", "red 2", "blue 9"], ["green 1"]], "red 5")
    for seed in range(10):
        assert bot_action(state, 0, random.Random(seed)) == act.Play(ids[0][1], None, None, False)
