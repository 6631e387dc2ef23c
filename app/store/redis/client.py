"""The Redis connection pool and the function library every process loads at start-up."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError, ResponseError

from app.store.redis.pipe import RedisPipe
from app.store.shared import StoreUnavailable

log = logging.getLogger(__name__)

LIBRARY = Path(__file__).with_name("uno.lua")


def connect(
    url: str,
    *,
    max_connections: int = 32,
    timeout: float = 2.0,
    wait: float = 2.0,
    name: str | None = None,
) -> Redis:
    """A client on a bounded pool: a caller waits at most `wait` s for a free connection,
    a command at most `timeout` s (then it fails: its outcome is unknown)."""
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=wait,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        health_check_interval=15,
        client_name=name,  # CLIENT LIST tells this deployment's connections apart
    )
    # No command is retried by the client: a commit whose reply was lost may have run, and
    # re-running it blindly could apply a join twice. Callers decide (a command is resent by
    # its client with the same id, which the commit function deduplicates).
    return Redis(connection_pool=pool, retry=Retry(NoBackoff(), 0))


async def load_functions(client: Redis) -> None:
    """FUNCTION LOAD REPLACE: functions persist in Redis (AOF, replicas), unlike scripts."""
    await client.function_load(LIBRARY.read_text(), replace=True)


async def guard(awaitable: Awaitable[Any]) -> Any:
    """Await a Redis call; an unreachable or failing Redis becomes `StoreUnavailable`."""
    try:
        return await awaitable
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc


async def call_function(
    client: Redis,
    name: str,
    keys: Sequence[str],
    args: Sequence[Any],
    load: Callable[[], Awaitable[None]],
    *,
    read_only: bool = False,
    pipe: RedisPipe | None = None,
) -> Any:
    """FCALL (or FCALL_RO) `name`, on `pipe` when given (the hot path, app/store/redis/
    pipe.py). If Redis has not the library (never loaded, restarted without its AOF,
    FUNCTION FLUSH), nothing ran: `load` it and call once more."""
    command = "FCALL_RO" if read_only else "FCALL"
    fcall = client.fcall_ro if read_only else client.fcall
    try:
        if pipe is not None:
            return await pipe.execute(command, name, len(keys), *keys, *args)
        return await fcall(name, len(keys), *keys, *args)
    except ResponseError as exc:
        if "function not found" not in str(exc).lower():
            raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
    log.warning("the Redis function %s was missing; loading its library", name)
    await guard(load())
    if pipe is not None:
        return await guard(pipe.execute(command, name, len(keys), *keys, *args))
    return await guard(fcall(name, len(keys), *keys, *args))
