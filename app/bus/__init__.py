"""Room fan-out: every process holding sockets of a room receives that room's notices.

`MemoryBus` within one process (the default); `app.bus.redis.RedisBus` with REDIS_URL (the
application wires it with the Redis room store, app/main.py).
"""

from app.bus.base import Bus
from app.bus.memory import MemoryBus

__all__ = ["Bus", "MemoryBus", "create_bus"]


def create_bus(redis_url: str | None = None) -> Bus:
    """The in-process bus (the Redis bus needs the Redis room store: see app/main.py)."""
    return MemoryBus()
