"""Rule 14: the last card: draws still happen and count; other effects do not; no challenge."""

from __future__ import annotations

from .helpers import CHAIN, CHAIN_FIRST, Table, run_chain

OTHER = ["red 9", "blue 5", "green 8", "yellow 6", "red 4", "blue 2", "green 1"]  # 35 points


def last_card(card: str, **settings: object) -> Table:
    """Seat 0 holds the chain, a green 7 and `card`; it is in turn with `card` alone."""
    hands = {0: [*CHAIN, "green 7", card], 1: OTHER}
    t = Table(2, hands=hands, first=CHAIN_FIRST, pile=["blue 9"], **settings)
    run_chain(t)
    t.play(0, "green 7", uno=True)
    t.draw(1)  # blue 9 on green 7: not playable, back to seat 0
    assert t.turn == 0 and t.count(0) == 1
    return t


def test_draw_two_as_last_card_still_draws_and_counts() -> None:
    t = last_card("green draw2")
    pile_top = t.st["draw_count"]
    events = t.play(0, "green draw2")
    assert t.status in ("round_over", "match_over")
    ended = t.find("round_ended", events)
    assert len(ended.public["hands"][1]) == 8 + 2
    assert t.st["draw_count"] == pile_top - 2
    assert ended.public["winner"] == 0
    assert ended.public["points"][0] == sum(
        c["value"] if c["kind"] == "number" else 20 if c["color"] else 50
        for c in ended.public["hands"][1]
    )


def test_wild_draw_four_as_last_card_draws_without_a_challenge() -> None:
    t = last_card("wild_draw4")
    events = t.play(0, "wild_draw4", color="red")
    assert "challenge_opened" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert len(ended.public["hands"][1]) == 8 + 4


def test_skip_as_last_card_has_no_effect_but_ends_the_round() -> None:
    t = last_card("green skip")
    events = t.play(0, "green skip")
    assert "turn_skipped" not in t.kinds(events)
    assert t.find("round_ended", events).public["winner"] == 0


def test_reverse_as_last_card_does_not_reverse() -> None:
    t = last_card("green reverse")
    events = t.play(0, "green reverse")
    assert "direction_changed" not in t.kinds(events)
    assert t.find("round_ended", events).public["winner"] == 0


def _custom_last(entry: dict[str, object], **settings: object) -> Table:
    return last_card("wild_custom", custom_wilds=[entry], **settings)


def test_customizable_next_draws_as_last_card_still_draws() -> None:
    t = _custom_last({"effect": "next_draws", "n": 3})
    events = t.play(0, "wild_custom", color="red")
    ended = t.find("round_ended", events)
    assert len(ended.public["hands"][1]) == 8 + 3


def test_customizable_all_others_draw_as_last_card_still_draws() -> None:
    t = _custom_last({"effect": "all_others_draw", "n": 2})
    events = t.play(0, "wild_custom", color="red")
    assert len(t.find("round_ended", events).public["hands"][1]) == 8 + 2


def test_customizable_swap_as_last_card_does_not_swap() -> None:
    t = _custom_last({"effect": "swap_hands"})
    other = t.hand_ids_now(1)
    events = t.play(0, "wild_custom", color="red", target=1)
    assert "hands_swapped" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert {c["id"] for c in ended.public["hands"][1]} == other


def test_seven_as_last_card_does_not_swap() -> None:
    hands = {0: [*CHAIN, "green 5", "green 7"], 1: OTHER}
    t = Table(2, hands=hands, first=CHAIN_FIRST, pile=["blue 9"], seven_zero=True)
    run_chain(t)
    t.play(0, "green 5", uno=True)
    t.draw(1)
    other = t.hand_ids_now(1)
    events = t.play(0, "green 7", target=1)
    assert "hands_swapped" not in t.kinds(events)
    ended = t.find("round_ended", events)
    assert ended.public["winner"] == 0
    assert {c["id"] for c in ended.public["hands"][1]} == other


def test_draw_two_as_last_card_with_stacking_is_not_answerable() -> None:
    t = last_card("green draw2", stack_draw2=True)
    events = t.play(0, "green draw2")
    ended = t.find("round_ended", events)
    assert len(ended.public["hands"][1]) == 8 + 2
    assert t.status != "playing"


# Three players: seat 0 plays a red card each turn while seats 1 and 2 draw cards they
# cannot play, until seat 0 holds only `card`.
RED_RUN = ["red 1", "red 2", "red 4", "red 5", "red 6", "red 8"]
UNPLAYABLE = ["blue 9", "green 9", "yellow 9", "blue 3", "green 3", "yellow 3"] * 2


def _three_players_last(card: str, **settings: object) -> Table:
    t = Table(3, hands={0: [*RED_RUN, card]}, first="red 9", pile=UNPLAYABLE, **settings)
    for k, spec in enumerate(RED_RUN):
        t.play(0, spec, uno=k == len(RED_RUN) - 1)
        t.draw(1)
        t.draw(2)
    assert t.turn == 0 and t.count(0) == 1
    return t


def test_seven_as_last_card_needs_no_target_with_three_players() -> None:
    t = _three_players_last("red 7", seven_zero=True)
    events = t.play(0, "red 7")  # no target: the swap of a last card does not happen
    assert "hands_swapped" not in t.kinds(events)
    assert t.find("round_ended", events).public["winner"] == 0


def test_customizable_swap_as_last_card_needs_no_target_with_three_players() -> None:
    t = _three_players_last("wild_custom", custom_wilds=[{"effect": "swap_hands"}])
    events = t.play(0, "wild_custom", color="red")
    assert "hands_swapped" not in t.kinds(events)
    assert t.find("round_ended", events).public["winner"] == 0
