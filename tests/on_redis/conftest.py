"""Fixtures on the real Redis at 127.0.0.1:6379 (override with TEST_REDIS_URL).

Each test gets its own key prefix, deleted afterwards, so tests never see each other's rooms.
Unreachable Redis: a skip locally, a failure when CI=true.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from app.store.redis import RedisRoomStore, connect, load_functions

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


async def redis_or_skip(name: str | None = None) -> Redis:
    client = connect(REDIS_URL, max_connections=16, timeout=2.0, name=name)
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        message = f"Redis unreachable at {REDIS_URL}: {type(exc).__name__}: {exc}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    await load_functions(client)
    return client


async def drop_prefix(client: Redis, prefix: str) -> None:
    async for key in client.scan_iter(match=f"{prefix}:*", count=500):
        await client.delete(key)


async def kill_pubsub(client: Redis, name: str) -> int:
    """CLIENT KILL TYPE pubsub, limited to the connections named `name` (other users of the
    same Redis keep theirs)."""
    listing = (await client.execute_command("CLIENT LIST TYPE pubsub")).decode()
    killed = 0
    for line in listing.splitlines():
        fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
        if fields.get("name") == name:
            killed += int(
                await client.execute_command("CLIENT KILL ID", fields["id"], "TYPE", "pubsub")
            )
    return killed


def count_calls(store: RedisRoomStore) -> list[str]:
    """The names of the Redis functions `store` calls from now on (appended as called)."""
    calls: list[str] = []
    real_call = store._call

    async def counted(name: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return await real_call(name, *args, **kwargs)

    store._call = counted  # type: ignore[method-assign]
    return calls


@pytest.fixture
def prefix() -> str:
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def redis_client(prefix: str) -> AsyncIterator[Redis]:
    client = await redis_or_skip(prefix)
    yield client
    await drop_prefix(client, prefix)
    await client.aclose()


@pytest.fixture
async def store(redis_client: Redis, prefix: str) -> AsyncIterator[RedisRoomStore]:
    yield RedisRoomStore(redis_client, prefix=prefix, history_limit=64)
