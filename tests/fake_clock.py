"""A clock the tests move by hand (ms since the epoch), for services that take `clock=`."""

from __future__ import annotations

T0 = 1_800_000_000_000


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now
