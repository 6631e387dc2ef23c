"""Rule 30: `challenge_seconds`: a victim who does not answer in time accepts."""

from __future__ import annotations

from .helpers import Table

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
