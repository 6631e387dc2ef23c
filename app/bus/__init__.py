"""Room fan-out: every process holding sockets of a room receives that room's messages."""

import logging

from app.bus.base import Bus
from app.bus.memory import MemoryBus

__all__ = ["Bus", "MemoryBus", "create_bus"]


def create_bus(redis_url: str | None) -> Bus:
    """The in-process bus; a Redis pub/sub bus will take `redis_url` (not built yet)."""
    if redis_url:
        logging.getLogger(__name__).warning(
            "REDIS_URL is set but the Redis bus is not built yet: rooms stay in this process"
        )
    return MemoryBus()
