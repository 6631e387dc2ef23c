"""Rule 9 across variants: which All Wild and Flip draw cards stack under which setting."""

from __future__ import annotations

import pytest

from .helpers import Table, dark_table

AW = "all_wild"


def all_wild(hand0: list[str], hand1: list[str], **settings: object) -> Table:
    t = Table(3, hands={0: hand0, 1: hand1}, first="wild", variant=AW, **settings)
    if t.phase == "choose":
        t.choose(0, t.moves(0)["choose"][0])
    return t


def test_all_wild_stack_draw2_wild_draw_two_on_wild_draw_two() -> None:
    t = all_wild(["wild_draw2"], ["wild_draw2"], stack_draw2=True)
    t.play(0, "wild_draw2")
    assert t.phase == "penalty" and t.turn == 1
    t.play(1, "wild_draw2")
    assert t.turn == 2 and t.st["pending_draw"] == 4
    t.draw(2)
    assert t.count(2) == 11 and t.turn == 0


def test_all_wild_without_stacking_wild_draw_two_applies_at_once() -> None:
    t = all_wild(["wild_draw2"], ["wild_draw2"])
    t.play(0, "wild_draw2")
    assert t.counts() == [6, 9, 7] and t.turn == 2


def test_all_wild_stack_draw4_wild_draw_four_on_wild_draw_four() -> None:
    t = all_wild(["wild_draw4"], ["wild_draw4", "wild_draw2"], stack_draw4=True)
    t.play(0, "wild_draw4")
    assert t.phase == "penalty"
    assert {p["card"] for p in t.moves(1)["play"]} == {t.card(1, "wild_draw4")}
    t.play(1, "wild_draw4")
    assert t.st["pending_draw"] == 8


def test_all_wild_stack_draw4_on_draw2_wild_draw_four_answers_wild_draw_two() -> None:
    t = all_wild(["wild_draw2"], ["wild_draw4"], stack_draw4_on_draw2=True, stack_draw4=True)
    t.play(0, "wild_draw2")
    t.play(1, "wild_draw4")
    assert t.turn == 2 and t.st["pending_draw"] == 6


def test_all_wild_a_wild_draw_two_never_answers_a_wild_draw_four() -> None:
    t = all_wild(
        ["wild_draw4"],
        ["wild_draw2"],
        stack_draw2=True,
        stack_draw4=True,
        stack_draw4_on_draw2=True,
    )
    t.play(0, "wild_draw4")
    assert t.card(1, "wild_draw2") not in t.playable(1)


def flip_light(hand0: list[str], hand1: list[str], **settings: object) -> Table:
    return Table(3, hands={0: hand0, 1: hand1}, first="red 3", variant="flip", **settings)


NO_RED = ["green 1", "green 2", "yellow 5", "yellow 6", "blue 1", "blue 2"]


def test_flip_stack_draw2_draw_one_on_draw_one() -> None:
    t = flip_light(["red draw1"], ["blue draw1"], stack_draw2=True)
    t.play(0, "red draw1")
    assert t.phase == "penalty"
    t.play(1, "blue draw1")
    assert t.turn == 2 and t.st["pending_draw"] == 2


def test_flip_stack_draw4_wild_draw_two_on_wild_draw_two() -> None:
    t = flip_light(
        ["wild_draw2", *NO_RED], ["wild_draw2", *NO_RED], stack_draw4=True, bluffing=False
    )
    t.play(0, "wild_draw2", color="red")
    assert t.phase == "penalty"
    t.play(1, "wild_draw2", color="blue")
    assert t.turn == 2 and t.st["pending_draw"] == 4


def test_flip_stack_draw4_on_draw2_wild_draw_two_answers_draw_one() -> None:
    t = flip_light(
        ["red draw1"],
        ["wild_draw2", "blue 5"],
        stack_draw4_on_draw2=True,
        bluffing=False,
        avoid=["color=red"],
    )
    t.play(0, "red draw1")
    assert t.phase == "penalty"
    t.play(1, "wild_draw2", color="blue")
    # nothing may answer a Wild Draw Two without stack_draw4: the total applies at once
    assert t.count(2) == 7 + 3
    assert t.turn == 0


@pytest.mark.parametrize(
    "flags", [{"stack_draw2": True}, {"stack_draw4": True}, {"stack_draw4_on_draw2": True}]
)
def test_flip_draw_five_stacks_only_with_stack_draw2(flags: dict[str, bool]) -> None:
    # stack_draw4_on_draw2 lets Flip's Wild Draw Two answer a Draw One; the dark side has no
    # card that answers a Draw Five, so its victim is not asked: the five apply at once.
    t = dark_table(3, ["dark:pink draw5", "dark:teal draw5"], **flags)
    t.play(1, "pink draw5")
    if flags.get("stack_draw2"):
        assert t.phase == "penalty" and t.turn == 2
    else:
        assert t.count(2) == 7 + 5 and t.turn == 0


def test_flip_wild_draw_color_never_stacks() -> None:
    under = ["dark:pink 1", "dark:teal 2"]
    t = dark_table(
        3,
        ["dark:wild_draw_color", "dark:teal 3"],
        under=under,
        stack_draw2=True,
        stack_draw4=True,
        stack_draw4_on_draw2=True,
        bluffing=False,
    )
    t.play(1, "wild_draw_color", color="teal")
    assert t.phase == "play"
    assert t.count(2) == 7 + 2
    assert t.turn == 0
