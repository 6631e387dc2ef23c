"""Every cluster test ends with the leak audit of every frame its clients received."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import CREATED, leaks


@pytest.fixture(autouse=True)
def leak_audit() -> Iterator[None]:
    CREATED.clear()
    yield
    players = list(CREATED)
    CREATED.clear()
    problems = leaks(players)
    assert problems == [], problems[:10]
