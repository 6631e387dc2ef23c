"""Servers for the black-box tests: with test hooks (as the hidden tests run it) and without."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from e2e.harness import Harness, running_server, server_settings


@pytest.fixture
async def server() -> AsyncIterator[Harness]:
    async with running_server(server_settings()) as harness:
        yield harness
        assert harness.auditor.problems == []


@pytest.fixture
async def plain() -> AsyncIterator[Harness]:
    """A server without test hooks, as in production."""
    async with running_server(server_settings(uno_test_hooks=False)) as harness:
        yield harness
        assert harness.auditor.problems == []
