"""Rule 8: challenging a Wild Draw Four: guilty, innocent, who may challenge, what is shown."""

from __future__ import annotations

from app.engine.actions import Accept, Challenge, Draw

from .helpers import Table, card_ids_in

LEGAL = ["wild_draw4", "blue 3", "wild", "green 1", "green 2", "yellow 5", "yellow 6"]
BLUFF = ["wild_draw4", "red 7", "green 1", "green 2", "yellow 5", "yellow 6", "blue 1"]


def table(hand: list[str]) -> Table:
    t = Table(3, hands={0: hand}, first="red 3")
    t.play(0, "wild_draw4", color="green")
    return t


def test_guilty_offender_draws_four_challenger_plays_on_named_color() -> None:
    t = table(BLUFF)
    t.challenge(1)
    assert t.counts() == [10, 7, 7]
    assert t.turn == 1
    assert t.phase == "play"
    assert t.st["color"] == "green"


def test_innocent_challenger_draws_six_and_loses_the_turn() -> None:
    t = table(LEGAL)
    t.challenge(1)
    assert t.counts() == [6, 13, 7]
    assert t.turn == 2
    assert t.phase == "play"


def test_challenged_hand_is_shown_to_the_challenger_alone() -> None:
    t = table(BLUFF)
    hand0 = t.hand_ids_now(0)
    events = t.challenge(1)
    resolved = t.find("challenge_resolved", events)
    assert hand0 <= card_ids_in(t.seen(resolved, 1))
    assert not hand0 & card_ids_in(t.seen(resolved, 2))
    assert not hand0 & card_ids_in(t.seen(resolved, None))


def test_only_the_victim_may_challenge_or_accept() -> None:
    t = table(LEGAL)
    t.refuse(2, Challenge(), ("not_your_turn", "wrong_phase"))
    t.refuse(0, Challenge(), ("not_your_turn", "wrong_phase"))
    t.refuse(2, Accept(), ("not_your_turn", "wrong_phase"))


def test_no_challenge_after_accepting_or_without_a_wild_draw_four() -> None:
    t = table(LEGAL)
    t.accept(1)
    t.refuse(1, Challenge(), ("wrong_phase", "not_your_turn"))
    t2 = Table(3, first="red 3")
    t2.refuse(0, Challenge(), "wrong_phase")


def test_draw_from_the_victim_takes_the_penalty_as_accept_does() -> None:
    """PROTOCOL: `draw` with a draw penalty pending takes it; facing a Wild Draw Four that is
    `accept` (the same events), never a challenge and never an ordinary draw."""
    accepted, drawn = table(LEGAL), table(LEGAL)
    by_accept = [e.kind for e in accepted.accept(1)]
    assert drawn.view(1)["you"]["moves"]["draw"] is True
    by_draw = [e.kind for e in drawn.act(1, Draw())]
    assert by_draw == by_accept
    assert drawn.counts() == accepted.counts() == [6, 11, 7]
    assert drawn.turn == accepted.turn == 2
    drawn.refuse(2, Challenge(), ("wrong_phase", "not_your_turn"))  # the challenge is over
    t = table(LEGAL)
    t.refuse(2, Draw(), "not_your_turn")  # only the victim
