"""The publish/subscribe interface the rooms and the connection hub share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Protocol


class Bus(Protocol):
    async def publish(self, room: str, message: bytes) -> None:
        """Deliver `message` to every current subscriber of `room` (in publish order)."""
        ...

    def subscribe(self, room: str) -> AbstractAsyncContextManager[AsyncIterator[bytes]]:
        """Messages of `room` published after entering the context, in order."""
        ...

    async def healthy(self) -> bool: ...

    async def close(self) -> None: ...
