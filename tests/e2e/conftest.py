from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from e2e.harness import Harness, running_server, server_settings


@pytest.fixture
async def server() -> AsyncIterator[Harness]:
    async with running_server(server_settings()) as harness:
        yield harness
        # Every frame of every test went through the auditor: nothing may have leaked.
        assert harness.auditor.problems == []
