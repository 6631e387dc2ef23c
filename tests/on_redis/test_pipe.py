"""The shared connection of the rooms' hot path (app/store/redis/pipe.py) on the real Redis:
many callers' commands on one connection, each gets its own reply; errors, a caller that gives
up, a reply that does not come and a killed connection."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.store.redis.pipe import RedisPipe, _Link

pytestmark = pytest.mark.redis


def _pipe(redis_client: Redis, **overrides: float) -> RedisPipe:
    kwargs = dict(redis_client.connection_pool.connection_kwargs)
    kwargs.update(overrides)
    pipe = RedisPipe.like(kwargs)
    assert pipe is not None
    return pipe


async def test_concurrent_callers_get_their_own_replies_in_few_writes(
    redis_client: Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pipe = _pipe(redis_client)
    writes: list[int] = []
    flush = _Link._flush

    def counted(self: _Link) -> None:
        writes.append(len(self._out))
        flush(self)

    monkeypatch.setattr(_Link, "_flush", counted)
    try:
        key = f"{prefix}:n"
        replies = await asyncio.gather(
            *(pipe.execute("ECHO", f"m{i}") for i in range(300)),
            *(pipe.execute("INCR", key) for _ in range(50)),
        )
        assert replies[:300] == [f"m{i}".encode() for i in range(300)]
        assert sorted(replies[300:]) == list(range(1, 51))  # type: ignore[type-var]
        assert sum(writes) == 350 + 1  # and CLIENT SETNAME when it opened
        assert len(writes) <= 3  # written together, not a system call per command
    finally:
        await pipe.aclose()


async def test_an_error_reply_fails_its_caller_only(redis_client: Redis, prefix: str) -> None:
    pipe = _pipe(redis_client)
    try:
        await pipe.execute("SET", f"{prefix}:s", "text")
        results = await asyncio.gather(
            pipe.execute("INCR", f"{prefix}:s"),
            pipe.execute("GET", f"{prefix}:s"),
            return_exceptions=True,
        )
        assert isinstance(results[0], ResponseError) and "integer" in str(results[0])
        assert results[1] == b"text"
        with pytest.raises(ResponseError, match=r"(?i)function not found"):  # call_function's cue
            await pipe.execute("FCALL", "no_such_function", 0)
        assert await pipe.execute("ECHO", "still") == b"still"
    finally:
        await pipe.aclose()


async def test_a_caller_that_gives_up_does_not_shift_the_others(
    redis_client: Redis, prefix: str
) -> None:
    pipe = _pipe(redis_client)
    try:
        slow = asyncio.ensure_future(pipe.execute("BLPOP", f"{prefix}:empty", "0.3"))
        after = asyncio.ensure_future(pipe.execute("ECHO", "after"))
        await asyncio.sleep(0.05)
        slow.cancel()
        assert await after == b"after"  # answered once the blocked command's reply came
        assert await pipe.execute("ECHO", "next") == b"next"
    finally:
        await pipe.aclose()


async def test_no_reply_in_time_fails_every_waiting_command_and_reconnects(
    redis_client: Redis, prefix: str
) -> None:
    pipe = _pipe(redis_client, socket_timeout=0.3)
    try:
        blocked = pipe.execute("BLPOP", f"{prefix}:empty", "5")
        queued = pipe.execute("ECHO", "queued")
        results = await asyncio.gather(blocked, queued, return_exceptions=True)
        assert all(isinstance(r, RedisTimeoutError) for r in results), results
        # Their outcome is unknown to the caller; the next command opens a new connection.
        assert await pipe.execute("ECHO", "again") == b"again"
    finally:
        await pipe.aclose()


async def test_a_killed_connection_is_replaced(redis_client: Redis, prefix: str) -> None:
    pipe = _pipe(redis_client)
    try:
        assert await pipe.execute("CLIENT", "SETNAME", f"{prefix}-pipe") == b"OK"
        first = await pipe.execute("CLIENT", "ID")
        assert await _kill_named(redis_client, f"{prefix}-pipe") == 1
        again = first
        for _ in range(100):
            try:
                again = await pipe.execute("CLIENT", "ID")
            except RedisConnectionError:
                continue  # sent on the dead connection: failed, its outcome unknown
            if again != first:
                break
            await asyncio.sleep(0.02)
        assert again != first  # a new connection, opened by the next command
        assert await pipe.execute("ECHO", "back") == b"back"
    finally:
        await pipe.aclose()


async def _kill_named(client: Redis, name: str) -> int:
    killed = 0
    for listed in await client.client_list():
        if listed.get("name") == name:
            killed += int(await client.client_kill_filter(_id=listed["id"]))
    return killed
