"""Room fan-out: every process holding sockets of a room receives that room's messages."""

from app.bus.base import Bus
from app.bus.memory import MemoryBus

__all__ = ["Bus", "MemoryBus", "create_bus"]


def create_bus(redis_url: str | None) -> Bus:
    """The in-process bus; a Redis pub/sub bus will take `redis_url` (not built yet)."""
    del redis_url  # one process only until the Redis backend lands
    return MemoryBus()
