"""The randomness the engine is handed: any object with these methods.

`random.Random(seed)` in tests and replays, `secrets.SystemRandom()` in production. The engine
never imports a random module itself, so no rule can reach for a global generator.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Rng(Protocol):
    def random(self) -> float: ...

    def getrandbits(self, k: int, /) -> int: ...

    def randrange(self, start: int, stop: int | None = None, step: int = 1, /) -> int: ...

    def choice(self, seq: Sequence[T], /) -> T: ...

    def shuffle(self, x: MutableSequence[Any], /) -> None: ...


def is_plain_random(rng: Rng) -> bool:
    """True for `random.Random` itself (not a subclass such as SystemRandom, which draws its
    numbers otherwise), whose shuffle the engine may reproduce call for call."""
    cls = type(rng)
    return (
        getattr(cls, "__module__", "") == "random" and getattr(cls, "__qualname__", "") == "Random"
    )
