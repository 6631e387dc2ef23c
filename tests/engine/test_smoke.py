"""Smoke: random legal play through whole matches, with the invariants every state must keep."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from app.engine import (
    Catch,
    Chat,
    DeclareUno,
    EngineError,
    Join,
    Play,
    Start,
    State,
    Timeout,
    apply,
    deadlines,
    legal_actions,
    new_table,
    parse_settings,
    redact,
    state_from_json,
    state_to_json,
    view,
)


def table(partial: dict[str, Any], players: int, rng: random.Random) -> State:
    st = new_table("ROOM", parse_settings(partial, test_hooks=True))
    for i in range(players):
        st, _ = apply(st, None, Join(f"P{i}", f"id{i}"), rng, 0)
    st, _ = apply(st, 0, Start(), rng, 1000)
    return st


def check(st: State, views: bool = True) -> None:
    cards = [c for h in st.hands for c in h] + st.draw_pile + st.discard
    assert sorted(cards) == list(range(st.deck.size)), "a card was lost or duplicated"
    if not views:
        return
    for seat in range(len(st.seats)):
        v = view(st, seat, 0)
        others = [c for s, h in enumerate(st.hands) if s != seat for c in h]
        text = json.dumps(v)
        assert all(f'"id": {c},' not in text for c in others if c not in st.discard[-1:]) or (
            st.status != "playing"
        ), "a view shows another hand"


def run(partial: dict[str, Any], seed: int, players: int = 4, steps: int = 3000) -> State:
    rng = random.Random(seed)
    st = table(partial, players, rng)
    now = 2000
    rounds = 0
    for step in range(steps):
        now += 100
        if st.status in ("round_over", "match_over"):
            rounds += 1
            if st.status == "match_over" or rounds > 3:
                break
            st, _ = apply(st, st.host, Start(), rng, now)
            continue
        if rng.random() < 0.05 and deadlines(st):
            d = deadlines(st)[0]
            st, _ = apply(st, None, Timeout(d.kind, d.set_at), rng, d.at)
            check(st)
            continue
        seat = st.turn if rng.random() < 0.9 else rng.randrange(players)
        acts = legal_actions(st, seat)
        if not acts:
            continue
        act = rng.choice(acts)
        before = state_to_json(st) if step % 10 == 0 else None
        st2, events = apply(st, seat, act, rng, now, trace=rng.random() < 0.2)
        assert before is None or state_to_json(st) == before, "apply mutated its input"
        assert [e.version for e in events] == list(range(st.version + 1, st2.version + 1))
        for e in events:
            assert redact(e, None)["kind"] == e.kind
        st = st2
        check(st, views=step % 25 == 0)
    assert state_from_json(json.loads(json.dumps(state_to_json(st)))).version == st.version
    return st


VARIANTS = [
    {},
    {"deck": "original", "draw": "until_playable", "max_draw": 0},
    {"stack_draw2": True, "stack_draw4": True, "stack_draw4_on_draw2": True, "jump_in": True},
    {"seven_zero": True, "bluffing": False, "forced_play": True, "no_voluntary_draw": True},
    {
        "custom_wilds": [
            {"effect": "swap_hands"},
            {"effect": "all_others_draw", "n": 2},
            {"effect": "discard_color"},
        ]
    },
    {
        "custom_wilds": [
            {"effect": "rotate_hands"},
            {"effect": "skip_next", "n": 2},
            {"effect": "next_draws", "n": 3},
        ],
        "scoring": "lowest_wins",
    },
    {"variant": "all_wild", "scoring": "none"},
    {"variant": "flip"},
    {"variant": "flip", "flip_discard": "top_card", "stack_draw2": True, "stack_draw4": True},
    {"first_card": "redraw_until_number", "uno_penalty": 0},
    {"first_card": "apply_actions_reshuffle_wilds", "false_catch_penalty": 2},
]


@pytest.mark.parametrize("partial", VARIANTS)
@pytest.mark.parametrize("players", [2, 3, 5])
def test_random_rounds_keep_invariants(partial: dict[str, Any], players: int) -> None:
    for seed in range(2):
        run(partial, seed * 31 + players, players)


def test_deck_order_and_dealer_hooks_deal_as_documented() -> None:
    order = [*list(range(108))[::-1], 108]
    rng = random.Random(1)
    st = table({"dealer": 1, "deck_order": order}, 3, rng)
    assert st.dealer == 1
    # seat 2 (left of the dealer) gets the first card
    assert st.hands[2][0] == order[0]
    assert st.hands[0][0] == order[1]
    assert st.discard[0] == order[21] or st.discard[0] in order[22:]


def test_uno_catch_and_declare() -> None:
    rng = random.Random(5)
    st = table({"dealer": 0}, 2, rng)
    # give seat 1 a two-card hand with a playable number
    top = st.discard[-1]
    faces = st.deck.light
    playable = next(c for c in st.draw_pile if faces[c].color == st.color and not faces[c].wild)
    st.draw_pile.remove(playable)
    spare = st.hands[1][1:]
    st.hands[1] = [st.hands[1][0], playable]
    st.draw_pile.extend(spare)
    st.phase = "play"
    st.turn = 1
    st2, ev = apply(st, 1, Play(playable), rng, 5000)
    assert st2.uno[1] == 2 and "uno" in st2.deadlines
    st3, ev = apply(st2, 0, Catch(1), rng, 5100)
    assert len(st3.hands[1]) == 3
    assert any(e.kind == "uno_caught" for e in ev)
    with pytest.raises(EngineError) as err:
        apply(st3, 0, Catch(1), rng, 5200)
    assert err.value.code == "not_catchable"
    st4, _ = apply(st2, 1, DeclareUno(), rng, 5100)
    with pytest.raises(EngineError):
        apply(st4, 0, Catch(1), rng, 5200)
    assert top in st.discard


def test_trace_after_is_the_state_after_each_event() -> None:
    rng = random.Random(7)
    st = new_table("ROOM", parse_settings({}))
    st, _ = apply(st, None, Join("A", "a"), rng, 0)
    st, events = apply(st, None, Join("B", "b"), rng, 0, trace=True)
    final, events = apply(st, 0, Start(), rng, 10, trace=True)
    assert [e.kind for e in events][:2] == ["dealer_chosen", "round_started"]
    for e in events:
        assert e.after is not None and e.after.version == e.version
    assert events[-1].after is final
    # the view after round_started already shows whose turn it is and their moves
    after = events[-1].after
    assert view(after, after.turn, 10)["you"]["moves"]["draw"] or after.phase != "play"


def test_false_catch_is_refused_but_costs_the_catcher() -> None:
    rng = random.Random(2)
    st = table({"false_catch_penalty": 2}, 3, rng)
    with pytest.raises(EngineError) as err:
        apply(st, 1, Catch(2), rng, 5000)
    assert err.value.code == "not_catchable"
    assert err.value.state is not None
    assert len(err.value.state.hands[1]) == len(st.hands[1]) + 2
    assert [e.kind for e in err.value.events] == ["false_catch", "card_drawn"]
    assert len(st.hands[1]) == 7  # the input state is untouched


def test_turn_timeouts_hand_the_seat_to_a_bot_until_its_player_acts() -> None:
    rng = random.Random(4)
    st = table({"afk_timeouts": 2, "dealer": 0}, 2, rng)
    seats_timed_out = []
    while not any(s.afk for s in st.seats):
        d = next(d for d in deadlines(st) if d.kind in ("turn", "challenge"))
        seats_timed_out.append(st.turn)
        st, events = apply(st, None, Timeout(d.kind, d.set_at), rng, d.at)
        assert events[0].kind == "timer_expired" and events[0].public["timer"] == d.kind
    afk = next(i for i, s in enumerate(st.seats) if s.afk)
    # a stale timeout changes nothing
    same, events = apply(st, None, Timeout("turn", -1), rng, 10**12)
    assert same is st and events == []
    # any action of the seat's own hands it back
    st, events = apply(st, afk, Chat("back"), rng, 10**12)
    assert events[0].kind == "player_returned" and not st.seats[afk].afk


def test_a_compiled_engine_is_never_older_than_its_sources() -> None:
    """`make native` builds mypyc modules that Python imports instead of the .py files; an
    engine source edited after the build would silently not run (rebuild: `make native`)."""
    engine = Path(__file__).resolve().parents[2] / "app" / "engine"
    for built in engine.glob("*.so"):
        source = engine / (built.name.split(".")[0] + ".py")
        assert source.exists()
        assert built.stat().st_mtime >= source.stat().st_mtime, f"{built.name} is stale"


def test_trace_snapshots_and_old_states_never_change_afterwards() -> None:
    """Copy-on-write: states share lists, yet no later apply may write into an older one."""
    rng = random.Random(11)
    st = table({"seven_zero": True, "jump_in": True, "stack_draw2": True}, 3, rng)
    kept: list[tuple[State, str]] = []
    for _ in range(300):
        if st.status != "playing":
            break
        acts = legal_actions(st, st.turn)
        st, events = apply(st, st.turn, rng.choice(acts), rng, 0, trace=True)
        for e in events:
            assert e.after is not None
            kept.append((e.after, json.dumps(state_to_json(e.after))))
    assert len(kept) > 100
    for old, text in kept:
        assert json.dumps(state_to_json(old)) == text


def test_back_hands_an_away_seat_back_at_once_and_is_a_no_op_otherwise() -> None:
    from app.engine.actions import Back

    rng = random.Random(4)
    st = table({"afk_timeouts": 1, "dealer": 0}, 2, rng)
    while not any(s.afk for s in st.seats):
        d = next(d for d in deadlines(st) if d.kind in ("turn", "challenge"))
        st, _ = apply(st, None, Timeout(d.kind, d.set_at), rng, d.at)
    afk = next(i for i, s in enumerate(st.seats) if s.afk)
    other = 1 - afk
    same, events = apply(st, other, Back(), rng, 10**12)
    assert same is st and events == []
    st, events = apply(st, afk, Back(), rng, 10**12)
    assert [e.kind for e in events] == ["player_returned"] and not st.seats[afk].afk


def test_a_bot_catches_in_the_later_part_of_the_uno_window() -> None:
    """Issue 12 defect 15: humans see the whole ring; a bot must not catch in its first half."""
    from app.engine.bot import catch_at
    from app.engine.state import Deadline

    rng = random.Random(5)
    st = table({"uno_window_ms": 3000}, 3, rng)
    assert catch_at(st, 0, rng) is None
    st.w_deadlines()["uno"] = Deadline("uno", 20_000, st.version, 1)
    opened = 17_000
    times = [catch_at(st, opened + 100, rng) for _ in range(200)]
    assert all(t is not None and opened + 1800 <= t <= opened + 2700 for t in times)
    assert catch_at(st, 19_900, rng) == 19_900  # already late: at once
