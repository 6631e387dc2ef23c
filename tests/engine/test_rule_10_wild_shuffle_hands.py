"""Rule 10: Wild Shuffle Hands: collect, shuffle, deal from the player's left, clockwise."""

from __future__ import annotations

from .helpers import CHAIN, CHAIN_FIRST, Table, run_chain


def _all_hand_ids(t: Table) -> set[int]:
    return set().union(*(t.hand_ids_now(s) for s in range(t.n)))


def test_hands_are_redealt_from_the_left_extras_first() -> None:
    hand0 = ["wild_shuffle", "red 7", "red 8", "blue 1", "blue 2", "green 1", "green 2"]
    t = Table(3, hands={0: hand0}, first="red 3")
    before = _all_hand_ids(t) - {t.hand_ids[0][0]}
    events = t.play(0, "wild_shuffle", color="green")
    assert "hands_shuffled" in t.kinds(events)
    assert _all_hand_ids(t) == before  # 20 cards: seats 1, 2 dealt first take the extras
    assert t.counts() == [6, 7, 7]
    assert t.st["color"] == "green"
    assert t.turn == 1


def test_dealing_is_clockwise_whatever_the_direction() -> None:
    # Reverse first: seat 2 (dealer) opens counter-clockwise; it draws (8), seat 1 and seat 0
    # play (6 each), then seat 2 shuffles: 7 + 6 + 6 = 19 cards, one extra, to seat 0 (its
    # left, clockwise), not to seat 1 (next in the direction of play).
    hands = {
        0: ["red 6", "blue 1", "blue 2", "green 1", "green 2", "yellow 1", "yellow 2"],
        1: ["red 5", "blue 3", "blue 4", "green 3", "green 4", "yellow 3", "yellow 4"],
        2: ["wild_shuffle", "blue 5", "blue 6", "green 5", "green 6", "yellow 5", "yellow 6"],
    }
    t = Table(3, dealer=2, hands=hands, first="red reverse", pile=["blue 9"])
    assert t.turn == 2 and t.st["direction"] == -1
    t.draw(2)  # blue 9: not playable on the red reverse, the turn ends
    t.play(1, "red 5")
    t.play(0, "red 6")
    assert t.turn == 2
    t.play(2, "wild_shuffle", color="yellow")
    assert t.counts() == [7, 6, 6]
    assert t.turn == 1  # play continues from the player in the current direction


def test_as_the_last_card_it_does_not_win() -> None:
    t = Table(2, hands={0: [*CHAIN, "green 5", "wild_shuffle"]}, first=CHAIN_FIRST)
    run_chain(t)
    t.play(0, "green 5", uno=True)  # two players: a number passes the turn
    t.draw(1)
    if t.phase == "after_draw":
        t.pass_(1)
    assert t.turn == 0 and t.count(0) == 1
    n1 = t.count(1)
    t.play(0, "wild_shuffle", color="red")
    assert t.status == "playing"
    total = n1
    assert sorted(t.counts()) == sorted([total // 2, total - total // 2])
    assert t.count(1) == total - total // 2  # seat 1, dealt first, takes the odd card
    assert "round_ended" not in t.kinds()


def test_as_the_last_card_with_every_other_hand_at_one_card_it_leaves_the_player_out() -> None:
    """The deal starts left of the player: when the others hold one card each, there are
    exactly as many cards as other players, so the player is dealt none. RULES 14 decides
    (the round ends when a hand is empty): the player's empty hand wins the round; play does
    not go on with a seat holding nothing."""
    t = Table(3, hands={0: ["wild_shuffle", "red 7"], 1: ["blue 1"], 2: ["green 1"]}, first="red 3")
    state = t.state.clone()
    hands = state.w_hands()
    keep = {0: [t.hand_ids[0][0]], 1: [t.hand_ids[1][0]], 2: [t.hand_ids[2][0]]}
    spare = [c for s in range(3) for c in hands[s] if c not in keep[s]]
    for s in range(3):
        hands[s] = list(keep[s])
    state.hands_moved()
    state.w_draw().extend(spare)  # cards conserved: the rest go under the draw pile
    t.state = state
    assert t.counts() == [1, 1, 1] and t.turn == 0
    events = t.play(0, "wild_shuffle", color="red")
    assert "hands_shuffled" in t.kinds(events)
    assert t.counts() == [0, 1, 1]
    assert t.status == "round_over"
    ended = [e for e in events if e.kind == "round_ended"]
    assert ended and ended[0].public["winner"] == 0
