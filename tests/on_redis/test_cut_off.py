"""A process cut off from Redis by the network (a TCP proxy between it and the real Redis),
while another process keeps Redis: during the outage the cut process acknowledges nothing
(commands answer the retryable `unavailable`, joins 503, nothing half-applied); a commit whose
reply was lost on the way back (it did run) is answered `unavailable` too, and its resend after
the network heals answers the version it was applied at, without applying it again; the
command refused during the outage applies once when resent; play goes on from both processes,
and the cut process's pub/sub comes back."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from store.proxy import TcpProxy

from app.bus import notices as notices_format
from app.bus.redis import RedisBus
from app.engine import actions as act
from app.rooms.commands import Command
from app.rooms.service import Identity, RoomError, RoomService
from app.settings import AppSettings
from app.store.recorder import MemoryRecorder
from app.store.redis import RedisRoomStore, connect

from .conftest import REDIS_URL

pytestmark = pytest.mark.redis


class ReplyLosingProxy(TcpProxy):
    """`lose_reply_to(marker)`: the next request holding `marker` still reaches Redis (it runs
    there), but no reply comes back until `close()` cuts the connections: a partition right
    after the request left, the case where a command's outcome is unknown to its sender."""

    def __init__(self, target_port: int) -> None:
        super().__init__(target_port)
        self._marker: bytes | None = None
        self._replying = asyncio.Event()
        self._replying.set()

    def lose_reply_to(self, marker: bytes) -> None:
        self._marker = marker

    async def open(self) -> None:
        self._replying.set()
        await super().open()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(*self.target)
        except OSError:
            client_w.close()
            return
        self._writers.update((client_w, server_w))
        for task in (
            asyncio.create_task(self._requests(client_r, server_w)),
            asyncio.create_task(self._pipe(server_r, client_w, self._replying)),
        ):
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _requests(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def forward(data: bytes) -> None:
            writer.write(data)
            await writer.drain()
            if self._marker is not None and self._marker in data:
                self._marker = None
                self._replying.clear()  # it ran; its reply (and every later one) is held

        await self._relay(reader, writer, forward)

    async def _pipe(  # type: ignore[override]
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, gate: asyncio.Event
    ) -> None:
        async def forward(data: bytes) -> None:
            await gate.wait()
            writer.write(data)
            await writer.drain()

        await self._relay(reader, writer, forward)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, forward):  # type: ignore[no-untyped-def]
        try:
            while data := await reader.read(65536):
                await forward(data)
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()
            self._writers.discard(writer)


def _service(client: Redis, prefix: str) -> RoomService:
    store = RedisRoomStore(client, prefix=prefix)
    service = RoomService(
        AppSettings(database_url="memory://"),
        store,
        RedisBus(client, store.channel, store.versions, check_seconds=0.3),
        MemoryRecorder(),
        rng=random.Random(1),
    )
    service.share(store)
    return service


@contextlib.asynccontextmanager
async def _proxied(prefix: str) -> AsyncIterator[tuple[ReplyLosingProxy, Redis]]:
    port = int(REDIS_URL.rsplit(":", 1)[1].split("/")[0])
    proxy = ReplyLosingProxy(port)
    await proxy.open()
    client = connect(f"redis://127.0.0.1:{proxy.port}/0", timeout=0.5, wait=0.5, name=prefix)
    try:
        yield proxy, client
    finally:
        await proxy.close()
        with contextlib.suppress(Exception):
            await client.aclose()


async def _chats(service: RoomService, room: str, since: int) -> list[str]:
    events = await service.store.events_since(room, since)
    assert events is not None
    return [str(e.public["text"]) for e in events if e.kind == "chat"]


def _chat(command_id: str) -> Command:
    return Command("chat", command_id, None, act.Chat(command_id))


@pytest.mark.timeout(60)
async def test_cut_off_process_acknowledges_nothing_and_resends_apply_once(
    redis_client: Redis, prefix: str
) -> None:
    live = _service(redis_client, prefix)
    host = await live.create_room("A", None)
    guest = await live.join(host.room, "B")
    hosts, guests = Identity(host.player_id, "player", 0), Identity(guest.player_id, "player", 1)
    start = await live.store.load(host.room)
    assert start is not None
    base = start.version

    async with _proxied(prefix) as (proxy, cut_client):
        cut = _service(cut_client, prefix)
        assert (await cut.submit(host.room, hosts, _chat("before"))).version == base + 1
        async with cut.bus.subscribe(host.room) as notices:
            # 1. A commit whose reply is lost: it ran in Redis, its sender cannot know.
            proxy.lose_reply_to(b"uno_commit")
            lost = await cut.submit(host.room, hosts, _chat("lost-reply"))
            assert lost.code == "unavailable" and lost.version is None
            assert await _chats(live, host.room, base) == ["before", "lost-reply"]
            applied_at = base + 2

            # 2. The network is down: nothing is acknowledged, nothing applied.
            await proxy.close()
            refused = await cut.submit(host.room, guests, _chat("during"))
            assert refused.code == "unavailable" and refused.version is None
            with pytest.raises(RoomError) as joining:
                await cut.join(host.room, "C")
            assert joining.value.status == 503 and joining.value.code == "unavailable"
            assert not await cut.store.healthy()
            # The other process plays on meanwhile.
            assert (await live.submit(host.room, guests, _chat("elsewhere"))).version == base + 3
            assert await _chats(live, host.room, base) == ["before", "lost-reply", "elsewhere"]

            # 3. Healed: the resends apply exactly once.
            await proxy.open()
            again = await cut.submit(host.room, hosts, _chat("lost-reply"))
            assert again.code is None and again.version == applied_at
            during = await cut.submit(host.room, guests, _chat("during"))
            assert during.version == base + 4
            assert (await cut.submit(host.room, guests, _chat("during"))).version == base + 4
            assert (await live.submit(host.room, guests, _chat("during"))).version == base + 4
            # Play goes on from both processes, each on the other's commits.
            assert (await cut.submit(host.room, hosts, _chat("after-1"))).version == base + 5
            assert (await live.submit(host.room, guests, _chat("after-2"))).version == base + 6
            assert await _chats(live, host.room, base) == [
                "before",
                "lost-reply",
                "elsewhere",
                "during",
                "after-1",
                "after-2",
            ]
            assert await cut.store.healthy()
            # The cut process's pub/sub came back: it hears the other process's commits.
            heard = 0
            async with asyncio.timeout(10):
                while heard < base + 6:
                    # A notice from another process carries its commit after the head
                    # (app/bus/notices.py): read it as the bus does.
                    parsed = notices_format.parse(await anext(notices))
                    assert parsed is not None
                    heard = max(heard, parsed[0])
        await cut.bus.close()
    await live.bus.close()
