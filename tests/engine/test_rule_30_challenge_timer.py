"""Rule 30: `challenge_seconds`: a victim who does not answer in time accepts."""

from __future__ import annotations

from app.engine.actions import Timeout

from .helpers import Table, dark_table

LEGAL = ["wild_draw4", "blue 3", "wild", "green 1", "green 2", "yellow 5", "yellow 6"]


def test_challenge_deadline_and_expiry_accepts() -> None:
    t = Table(3, hands={0: LEGAL}, first="red 3", challenge_seconds=7)
    t.play(0, "wild_draw4", color="blue")
    d = t.deadline("challenge")
    assert d.seat == 1
    assert d.at == t.now + 7000
    assert t.st["deadlines"]["challenge"] == {"seat": 1, "at": d.at}
    t.timeout("challenge")
    assert t.counts() == [6, 11, 7]
    assert t.turn == 2
    assert t.phase == "play"
    assert not t.has_deadline("challenge")


def test_flip_wild_draw_color_expiry_accepts() -> None:
    under = ["dark:orange 1", "dark:purple 2", "dark:teal 3"]
    t = dark_table(3, ["dark:wild_draw_color", "dark:teal 4"], under=under, challenge_seconds=3)
    t.play(1, "wild_draw_color", color="purple")
    d = t.deadline("challenge")
    assert d.seat == 2 and d.at == t.now + 3000
    t.timeout("challenge")
    assert t.count(2) == 7 + 2
    assert t.turn == 0


def test_stale_challenge_timeout_after_an_answer_is_ignored() -> None:
    t = Table(3, hands={0: LEGAL}, first="red 3")
    t.play(0, "wild_draw4", color="blue")
    d = t.deadline("challenge")
    t.accept(1)
    events = t.sys(Timeout(kind="challenge", set_at=d.set_at), at=d.at)
    assert events == []
    assert t.counts() == [6, 11, 7]
