"""Rules audit: rules and settings of RULES.md no other engine test pinned down.

Each test names the rule it holds the engine to. (Flip pairing, `flip_discard: top_card`
with a wild turned up, Flip first cards under `apply_actions_reshuffle_wilds`, the draws of a
last card in All Wild and Flip, 2-player Customizable effects.)
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from app.engine import deck_listing, parse_settings
from app.engine.actions import Play, Start
from app.engine.decks import FLIP_DARK, FLIP_LIGHT, deck_for

from .helpers import Table, dark_table, flip_listing, listing_cards, spec_matches

# --- Decks (Flip): which dark face backs which light face -----------------------------------

# Seat 0 empties its hand on the light side (2 players: every Skip and Reverse plays again).
LIGHT_RUN = ["red skip", "blue skip", "green skip", "yellow skip", "yellow reverse"]


def _light_round(**settings: Any) -> Table:
    hand0 = [*LIGHT_RUN, "green reverse", "green 5"]
    return Table(2, variant="flip", hands={0: hand0}, first="red 3", **settings)


def _win_light_round(t: Table) -> None:
    for spec in LIGHT_RUN:
        t.play(0, spec)
    t.play(0, "green reverse", uno=True)
    t.play(0, "green 5")
    assert t.status in ("round_over", "match_over")


def _pairs(t: Table) -> list[tuple[Any, Any]]:
    cards = listing_cards(deck_listing(t.state, test_hooks=True))
    return [(c["light"], c["dark"]) for c in cards]


def test_flip_pairing_is_kept_for_every_round_of_a_match() -> None:
    t = _light_round(target_score=10000)
    before = _pairs(t)
    _win_light_round(t)
    assert t.status == "round_over"
    t.act(0, Start())
    assert t.view(None)["round"] == 2
    assert _pairs(t) == before


def test_flip_pairing_is_shuffled_anew_for_a_new_match() -> None:
    t = _light_round(scoring="none")
    before = _pairs(t)
    _win_light_round(t)
    assert t.status == "match_over"
    t.act(0, Start())
    assert t.status == "playing"
    after = _pairs(t)
    assert after != before
    # the same 112 light and 112 dark faces, only paired otherwise
    assert sorted(str(p[0]) for p in after) == sorted(str(p[0]) for p in before)
    assert sorted(str(p[1]) for p in after) == sorted(str(p[1]) for p in before)


def test_flip_card_ids_tell_no_face() -> None:
    """PROTOCOL 1: a Flip card is sent with its id and the face in play. Were the light faces
    in a known id order, every dark face sent with its id would show the light face behind
    it: each match spreads the light faces over the ids anew, as it does the dark ones."""
    orders = []
    for seed in range(8):
        cards = sorted(listing_cards(flip_listing(2, seed)), key=lambda c: int(c["id"]))
        orders.append(tuple(str(c["light"]) for c in cards))
    assert len(set(orders)) == len(orders)
    assert tuple(str(face.to_json()) for face in FLIP_LIGHT) not in orders


def test_a_flip_pairing_stored_before_keeps_the_light_faces_in_list_order() -> None:
    """A state saved when only the dark faces were shuffled (a pairing of 112) loads as it was."""
    dark = tuple(reversed(range(len(FLIP_DARK))))
    deck = deck_for(parse_settings({"variant": "flip"}), dark)
    assert deck.light == FLIP_LIGHT
    assert deck.dark == tuple(FLIP_DARK[i] for i in dark)


# --- Rule 22: flip_discard top_card ----------------------------------------------------------


def _light_flip_backed_by(listing: dict[str, Any], dark: str) -> str:
    for color in ("red", "yellow", "green", "blue"):
        if any(spec_matches(c, f"{color} flip|{dark}") for c in listing_cards(listing)):
            return color
    raise AssertionError(f"no light Flip backed by {dark!r} with this seed")


def _seed_with_a_flip_backed_by(dark: str) -> tuple[int, str]:
    """A seed whose pairing backs a light Flip card with `dark` (pairings are random)."""
    for seed in range(7, 200):
        with contextlib.suppress(AssertionError):
            return seed, _light_flip_backed_by(flip_listing(3, seed), dark)
    raise AssertionError(f"no seed pairs a light Flip with {dark!r}")


def test_top_card_a_flip_backed_by_a_wild_lets_the_next_player_name_the_color() -> None:
    """With `top_card` the Flip card itself is the new top: its dark face may be a wild."""
    seed, color = _seed_with_a_flip_backed_by("kind=wild")
    t = Table(
        3,
        variant="flip",
        hands={0: [f"{color} flip|kind=wild"]},
        first=f"{color} 3",
        flip_discard="top_card",
        seed=seed,
    )
    flip = t.hand_ids[0][0]
    t.play(0, flip)
    assert t.st["side"] == "dark"
    assert t.top["id"] == flip and t.top["kind"] == "wild"
    assert t.phase == "choose" and t.turn == 1
    assert t.moves(1)["choose"] == ["pink", "teal", "orange", "purple"]
    t.choose(1, "orange")
    assert t.phase == "play" and t.turn == 1 and t.st["color"] == "orange"


def test_top_card_the_new_top_action_is_not_applied() -> None:
    listing = flip_listing(3)
    for dark in ("draw5", "skip_everyone", "reverse", "wild_draw_color"):
        try:
            color = _light_flip_backed_by(listing, f"kind={dark}")
        except AssertionError:
            continue
        break
    else:
        raise AssertionError("no light Flip backed by a dark action with this seed")
    t = Table(
        3,
        variant="flip",
        hands={0: [f"{color} flip|kind={dark}"]},
        first=f"{color} 3",
        flip_discard="top_card",
    )
    t.play(0, t.hand_ids[0][0])
    assert t.top["kind"] == dark
    assert t.counts() == [6, 7, 7]
    assert t.st["direction"] == 1
    assert t.turn == 1 and t.phase == ("choose" if dark == "wild_draw_color" else "play")


# --- Rule 24: Flip first card under the other first_card settings ---------------------------


def test_flip_apply_actions_reshuffle_wilds_puts_back_a_wild_draw_two() -> None:
    t = Table(
        3,
        variant="flip",
        first="wild_draw2",
        pile=["red 5"],
        first_card="apply_actions_reshuffle_wilds",
    )
    assert t.top["id"] != t.first_id
    assert t.top["kind"] == "number" and t.top["color"] == "red"
    assert t.phase == "play" and t.turn == 0


def test_flip_apply_actions_reshuffle_wilds_puts_back_a_wild() -> None:
    t = Table(
        3, variant="flip", first="wild", pile=["blue 4"], first_card="apply_actions_reshuffle_wilds"
    )
    assert t.top["kind"] == "number" and t.top["color"] == "blue"
    assert t.phase == "play"


def test_flip_apply_actions_reshuffle_wilds_applies_a_draw_one() -> None:
    t = Table(3, variant="flip", first="red draw1", first_card="apply_actions_reshuffle_wilds")
    assert t.top["kind"] == "draw1"
    assert t.counts() == [8, 7, 7]
    assert t.turn == 1


def test_flip_redraw_until_number_puts_back_a_draw_one() -> None:
    t = Table(
        3, variant="flip", first="red draw1", pile=["green 6"], first_card="redraw_until_number"
    )
    assert t.top["kind"] == "number" and t.top["color"] == "green"
    assert t.counts() == [7, 7, 7]
    assert t.turn == 0


# --- Rule 14 in All Wild and Flip: a last card's draws still happen --------------------------


def _all_wild_last(card: str, n: int = 3) -> Table:
    """All Wild: seat 0 is in turn holding only `card` (Wild Skip Two with 3 players, or
    Wild Skip with 2, lets it play on)."""
    again = "wild_skip2" if n == 3 else "wild_skip"
    t = Table(n, variant="all_wild", hands={0: [again] * 6 + [card]}, first="wild")
    for k in range(6):
        t.play(0, again, uno=k == 5)
    assert t.turn == 0 and t.count(0) == 1
    return t


def test_all_wild_targeted_draw_two_as_last_card_still_draws() -> None:
    t = _all_wild_last("wild_targeted_draw2")
    events = t.play(0, "wild_targeted_draw2", target=2)
    ended = t.find("round_ended", events)
    assert [len(h) for h in ended.public["hands"]] == [0, 7, 9]


def test_all_wild_draw_four_as_last_card_still_draws_and_scores() -> None:
    t = _all_wild_last("wild_draw4", n=2)
    events = t.play(0, "wild_draw4")
    ended = t.find("round_ended", events)
    hand = ended.public["hands"][1]
    assert len(hand) == 7 + 4
    assert ended.public["points"] == [sum(20 if c["kind"] == "wild" else 50 for c in hand), 0]


def test_all_wild_forced_swap_as_last_card_needs_no_swap_and_wins() -> None:
    t = _all_wild_last("wild_forced_swap")
    events = t.play(0, "wild_forced_swap", target=1)
    assert "hands_swapped" not in t.kinds(events)
    assert t.find("round_ended", events).public["winner"] == 0


def test_flip_draw_one_as_last_card_still_draws() -> None:
    t = Table(
        2, variant="flip", hands={0: [*LIGHT_RUN, "green reverse", "green draw1"]}, first="red 3"
    )
    for spec in LIGHT_RUN:
        t.play(0, spec)
    t.play(0, "green reverse", uno=True)
    events = t.play(0, "green draw1")
    ended = t.find("round_ended", events)
    assert len(ended.public["hands"][1]) == 7 + 1


DARK_RUN = [
    "dark:pink skip_everyone",
    "dark:teal skip_everyone",
    "dark:teal reverse",
    "dark:orange reverse",
    "dark:orange skip_everyone",
]


def _dark_last(card: str, under: list[str]) -> Table:
    """2 players on the dark side: seat 1 is in turn holding only `card`."""
    t = dark_table(2, [*DARK_RUN, "dark:purple skip_everyone", card], under=under)
    assert t.turn == 1
    for spec in DARK_RUN:
        t.play(1, spec)
    t.play(1, "dark:purple skip_everyone", uno=True)
    assert t.turn == 1 and t.count(1) == 1
    return t


def test_flip_wild_draw_color_as_last_card_draws_until_the_color_without_a_challenge() -> None:
    t = _dark_last("dark:wild_draw_color", ["dark:orange 1", "dark:wild", "dark:teal 2"])
    events = t.play(1, "wild_draw_color", color="teal")
    assert "challenge_opened" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 1
    hand0 = ended.public["hands"][0]
    assert len(hand0) == 6 + 3  # up to and including the teal 2; the wild does not count
    # scored on the dark side: the dark faces of seat 0's hand
    assert all(c["color"] in ("pink", "teal", "orange", "purple", None) for c in hand0)


def test_flip_draw_five_as_last_card_still_draws() -> None:
    t = _dark_last("dark:purple draw5", [])
    events = t.play(1, "purple draw5")
    ended = t.find("round_ended", events)
    assert len(ended.public["hands"][0]) == 6 + 5


# --- Rules 11 + 15: Customizable effects with two players ------------------------------------


def _custom2(entry: dict[str, Any]) -> Table:
    rest = ["red 7", "green 1", "green 2", "blue 1", "blue 2", "yellow 1"]
    return Table(
        2,
        hands={0: ["wild_custom", *rest]},
        first="red 3",
        custom_wilds=[entry],
        avoid=["kind=wild_custom"],
    )


def test_two_players_next_draws_returns_the_turn_to_the_player() -> None:
    t = _custom2({"effect": "next_draws", "n": 3})
    t.play(0, "wild_custom", color="green")
    assert t.counts() == [6, 10]
    assert t.turn == 0 and t.phase == "play"


def test_two_players_customizable_reverse_acts_as_skip() -> None:
    t = _custom2({"effect": "reverse"})
    t.play(0, "wild_custom", color="green")
    assert t.turn == 0


def test_two_players_all_others_draw_then_the_opponent_plays() -> None:
    t = _custom2({"effect": "all_others_draw", "n": 2})
    t.play(0, "wild_custom", color="green")
    assert t.counts() == [6, 9]
    assert t.turn == 1


# --- Rules 1, 2, 17: All Wild and the first-card and dealer rules -----------------------------


@pytest.mark.parametrize(
    "mode", ["official", "redraw_until_number", "apply_actions_reshuffle_wilds"]
)
@pytest.mark.parametrize("first", ["wild_draw4", "wild_skip", "wild_reverse", "wild_draw2"])
def test_all_wild_first_card_counts_as_a_plain_wild_in_every_first_card_mode(
    mode: str, first: str
) -> None:
    """RULES 17 over rule 2: no card is sent back (every card is a wild) and none acts."""
    t = Table(3, dealer=0, first=first, variant="all_wild", first_card=mode)
    assert t.top["id"] == t.first_id
    assert t.counts() == [7, 7, 7]
    assert t.turn == 1 and t.phase == "play" and t.st["direction"] == 1


def test_all_wild_dealer_is_drawn_at_random_without_numbers() -> None:
    """RULES 1 in All Wild: no card has a number, so the draw cannot decide: random seat."""
    dealers = set()
    for seed in range(12):
        t = Table(3, dealer=None, variant="all_wild", seed=seed)
        chosen = t.find("dealer_chosen")
        assert chosen.public["draws"] == []
        dealers.add(chosen.public["dealer"])
        assert t.turn == (chosen.public["dealer"] + 1) % 3
    assert dealers == {0, 1, 2}


def test_flip_dealer_draw_reads_the_light_faces() -> None:
    """RULES 1 in Flip: the draw for the deal shows light faces; the highest number deals."""
    t = Table(4, dealer=None, variant="flip", seed=5)
    chosen = t.find("dealer_chosen")
    last = chosen.public["draws"][-1]
    assert all(d["card"]["color"] in ("red", "yellow", "green", "blue", None) for d in last)
    values = {d["seat"]: d["card"]["value"] or 0 for d in last}
    assert values[chosen.public["dealer"]] == max(values.values())


def test_all_wild_forced_swap_as_last_card_needs_no_target_with_three_players() -> None:
    t = _all_wild_last("wild_forced_swap")
    events = t.play(0, "wild_forced_swap")  # no target: the swap of a last card does not happen
    assert "hands_swapped" not in t.kinds(events)
    assert t.find("round_ended", events).public["winner"] == 0


def test_all_wild_targeted_draw_two_as_last_card_still_needs_its_target() -> None:
    t = _all_wild_last("wild_targeted_draw2")
    t.refuse(0, Play(card=t.card(0, "wild_targeted_draw2")), "bad_target")
