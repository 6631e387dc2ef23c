"""Rooms in Redis: any process applies any room's commands (docs/architecture.md, "Scale-out")."""

from app.store.redis.client import connect, load_functions
from app.store.redis.rooms import RedisRoomStore

__all__ = ["RedisRoomStore", "connect", "load_functions"]
