"""How the ASGI server (uvicorn) runs the app: the limits that keep one client from holding
the process's sockets or memory. `make run`, the container and `python -m app.main` all start
it through `uvicorn_options`, so the limits are set in one place.

- Request heads are read by h11 and limited to `MAX_HEAD_BYTES` (16 KiB, as our frames): a
  larger head is answered 400 and the connection closed, without reading the rest. That 400,
  and the one for any request h11 cannot parse, has the API's error body (`bad_request`).
- A connection that has not sent a whole request head `header_timeout_seconds` after it
  opened (or after its previous response) is closed: silent and trickling (slowloris)
  connections do not pile up. Idle keep-alive connections close after `KEEP_ALIVE_SECONDS`.
- WebSocket messages larger than `ws_max_bytes` (4 frames' worth) are refused from their
  header (close 1009) instead of being read whole; between 16 KiB and that size the socket
  answers `too_large` and stays open.
- At most `max_connections` connections and requests at once; past it, 503. And at most
  `max_open_per_address` TCP connections from one client address (IPv6 per /64; a trusted
  proxy's own address is not capped here, its clients are in app/api/open_cap.py): past it a
  new connection is dropped as it is accepted. Connections that never send a whole request
  count here too, where the app's cap (which sees requests only) cannot: without it one
  address holding a few thousand half-open connections took `max_connections` from everyone
  and every other client got 503.
- A response after which the server closes (`408` for a trickled body, `413`, any
  `Connection: close`) closes with a lingering close: the write side is shut, and what the
  client still sends is read and discarded for up to `LINGER_SECONDS`. Closing outright while
  the client is still sending makes the kernel reset the connection, and a reset can destroy
  the answer before the client has read it.
- While a WebSocket client has not read what is already waiting for it (the write buffer
  past its high-water mark), only its latest ping's pong is kept, and sent when the buffer
  drains: pongs to a client that pings without reading would otherwise pile up without
  bound (RFC 6455 lets a pong answer only the latest ping).
- A WebSocket closed for a broken limit (1008: flooding, refused frames, not reading) stops
  being read at once and is dropped `POLICY_CLOSE_GRACE_SECONDS` later, instead of the close
  handshake's 10 s during which uvicorn keeps parsing (and discarding) whatever the client
  sends: a flooding client costs nothing once it is closed.
- `X-Forwarded-For` is not applied by the server: app/api/limits.py reads it, and only from
  the configured `trusted_proxies`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http import h11_impl
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from app.api.limits import Network, client_key, error_response, parse_networks, within
from app.settings import AppSettings
from app.transport.connection import SEND_NOW_EXTENSION

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 16 * 1024
KEEP_ALIVE_SECONDS = 5
# As Apache's lingering close: enough for a client to stop sending and read the answer.
LINGER_SECONDS = 2.0
CLOSE_POLICY = 1008
CLOSE_INVALID_DATA = 1007  # a text message that is not UTF-8
PONG_HEAD = b"\x8a"  # the first byte of a server's pong frame: FIN and opcode 0xA
# Long enough for a reading client to get the close frame, short enough that a hostile one
# holds nothing: reading stops at once, only the socket itself waits out the grace.
POLICY_CLOSE_GRACE_SECONDS = 1.0


async def _busy(scope: Any, receive: Any, send: Any) -> None:
    """uvicorn's answer past `max_connections` (its `limit_concurrency`), in the API's error
    shape (docs/protocol.md) instead of its plain text, with a Retry-After."""
    await error_response(send, 503, "unavailable", "the server is busy, retry", 1, close=True)


# The h11 protocol looks this answer up by its module's global name on each request.
setattr(h11_impl, "service_unavailable", _busy)  # noqa: B010 (not exported)


class ConnectionsByAddress:
    """TCP connections open now per client address (see the module doc). A transport is
    counted once, from its first protocol's `connection_made` to the last one's
    `connection_lost` (a WebSocket's connection changes protocol on its upgrade)."""

    def __init__(self, cap: int, trusted: list[Network]) -> None:
        self.cap = cap
        self.trusted = trusted
        self.by_key: dict[str, int] = {}
        self._keys: dict[asyncio.BaseTransport, str] = {}
        self.refused = 0

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        if self.cap <= 0:
            return True
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else ""
        if not host:
            return True  # a Unix socket: nobody's address to count
        if within(host, self.trusted):
            return True  # a trusted proxy: its clients are counted by the app
        key = client_key(host, None, [])
        held = self.by_key.get(key, 0)
        if held >= self.cap:
            self.refused += 1
            return False
        self.by_key[key] = held + 1
        self._keys[transport] = key
        return True

    def release(self, transport: asyncio.BaseTransport) -> None:
        key = self._keys.pop(transport, None)
        if key is None:
            return
        held = self.by_key.get(key, 0) - 1
        if held > 0:
            self.by_key[key] = held
        else:
            self.by_key.pop(key, None)


_UNCAPPED = ConnectionsByAddress(0, [])


class _LingeringTransport:
    """The transport a request cycle writes to: the same, except that closing it lingers."""

    __slots__ = ("_protocol", "_transport")

    def __init__(self, protocol: GuardedH11Protocol, transport: asyncio.Transport) -> None:
        self._protocol = protocol
        self._transport = transport

    def write(self, data: bytes) -> None:
        self._transport.write(data)

    def is_closing(self) -> bool:
        return self._protocol.lingering or self._transport.is_closing()

    def close(self) -> None:
        self._protocol.linger()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request head and a lingering close
    (see the module doc)."""

    head_timeout: float = 10.0
    linger_seconds: float = LINGER_SECONDS
    by_address: ConnectionsByAddress = _UNCAPPED
    lingering = False
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.by_address.admit(transport):
            transport.abort()  # before a byte is read: the cheapest refusal there is
            return
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        self.by_address.release(self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.lingering:
            return  # the rest of what the client sends after its answer: discarded
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # a whole head arrived (or the peer is done)
            self._disarm_head_timer()

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        # A new request's cycle has not run yet: it closes through the lingering transport.
        if cycle is not None and not isinstance(cycle.transport, _LingeringTransport):
            cycle.transport = _LingeringTransport(self, self.transport)  # type: ignore[assignment]

    def linger(self) -> None:
        """Shut the write side now, close for good once the client has stopped sending (or
        `linger_seconds` later)."""
        if self.lingering or self.transport.is_closing():
            return
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self.lingering = True
        self._disarm_head_timer()
        self._unset_keepalive_if_required()
        self.transport.write_eof()
        self.transport.resume_reading()
        self.loop.call_later(self.linger_seconds, self.transport.close)

    def on_response_complete(self) -> None:
        if self.lingering:
            self.server_state.total_requests += 1
            return
        self._arm_head_timer()  # the next request's head has the same deadline ...
        super().on_response_complete()
        if self.conn.their_state is not h11.IDLE:  # ... unless a pipelined one came whole
            self._disarm_head_timer()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request h11 cannot parse (no Host, a bad byte or header, a
        head past `MAX_HEAD_BYTES`), in the API's error shape instead of plain text; the
        connection is closed after it, as upstream."""
        body = b'{"error":{"code":"bad_request","message":"invalid HTTP request"}}'
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        response = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
        for event in (response, h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return  # closed, or handed to the WebSocket protocol
        if self.conn.their_state is h11.IDLE:  # no whole head since the timer was armed
            self.transport.close()


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (the one it picks by default) with a hard policy close.

    uvicorn answers the app's close by sending the close frame, then reads on for up to 10 s
    waiting for the peer's reply, parsing and discarding every frame a flooding client keeps
    sending; and a close waits first for the write buffer to drain, which never happens for a
    client that does not read. For 1008 neither waits: the close frame is queued, reading
    stops, and the connection is dropped after a short grace.
    """

    policy_close_grace: float = POLICY_CLOSE_GRACE_SECONDS
    by_address: ConnectionsByAddress = _UNCAPPED
    pending_pong: bytes | None = None  # the latest ping's pong, while the client does not read

    def connection_lost(self, exc: Exception | None) -> None:
        self.by_address.release(self.transport)
        super().connection_lost(exc)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if self.handshake_complete:  # refused in the handshake: no scope was built
            return
        extensions: dict[str, Any] = self.scope["extensions"]
        extensions[SEND_NOW_EXTENSION] = self.send_now

    def send_receive_event_to_app(self) -> None:
        """uvicorn's, except for a text message that is not UTF-8: the same close (1007,
        RFC 6455 8.1) without the ERROR and traceback uvicorn logs for it, which any client
        could draw once per socket. Valid text is decoded once, as upstream does."""
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        if self.curr_msg_data_type != "text" or self.close_sent:
            super().send_receive_event_to_app()
            return
        self.frames = []
        try:
            text = bytes(data).decode()
        except UnicodeDecodeError:
            log.info("closed a socket that sent a text frame that is not UTF-8")
            self.conn.send_close(CLOSE_INVALID_DATA)
            self.handle_parser_exception()
            return
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def handle_ping(self) -> None:
        """uvicorn's, except while the client has not read what is already waiting for it
        (the write buffer is past its high-water mark): then only the latest ping's pong is
        kept, and sent once the buffer drains. RFC 6455 5.5.3 lets a pong answer only the
        latest ping; without this a client that sends pings and never reads made the server
        buffer a pong per ping, without bound (control frames reach none of the app's frame
        limits). A keepalive ping is still answered: its pong is late, never lost."""
        if not self.writable.is_set():
            kept: list[bytes] = []
            for chunk in self.conn.data_to_send():  # one chunk per frame
                if chunk[:1] == PONG_HEAD:
                    self.pending_pong = chunk  # replaces the one kept before
                else:
                    kept.append(chunk)  # a close frame's echo read in the same batch
            if kept:
                self.transport.write(b"".join(kept))
            return
        super().handle_ping()

    def resume_writing(self) -> None:
        super().resume_writing()
        pong, self.pending_pong = self.pending_pong, None
        if pong is not None and not self.transport.is_closing():
            self.transport.write(pong)

    def send_now(self, payloads: list[bytes]) -> bool:
        """Frame text messages and write them now, in one write, if the socket takes them
        without waiting (app/transport/connection.py SEND_NOW_EXTENSION); False: nothing was
        written, use the ASGI send."""
        if (
            self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or self.conn.state is not State.OPEN
            or self.transport.is_closing()
        ):
            return False
        if self.conn.extensions:  # permessage-deflate: websockets compresses the messages
            for payload in payloads:
                self.conn.send_text(payload)
            self.transport.write(b"".join(self.conn.data_to_send()))
            return True
        if len(payloads) == 1:
            self.transport.write(text_frame_head(len(payloads[0])) + payloads[0])
        else:
            self.transport.write(b"".join(text_frame_head(len(p)) + p for p in payloads))
        return True

    async def send(self, message: Any) -> None:
        if (
            message["type"] == "websocket.close"
            and message.get("code") == CLOSE_POLICY
            and self.handshake_complete
            and self.initial_response is None
            and not self.close_sent
            and not self.disconnected
        ):
            self._close_for_policy(message.get("reason") or "")
            return
        await super().send(message)

    def _close_for_policy(self, reason: str) -> None:
        self.close_sent = True
        disconnect = {"type": "websocket.disconnect", "code": CLOSE_POLICY, "reason": reason}
        self.queue.put_nowait(disconnect)  # type: ignore[arg-type]
        if self.transport.is_closing():
            return
        self.conn.send_close(CLOSE_POLICY, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.transport.pause_reading()
        # `receive` resumes reading when this flag is set and the app has drained the queue:
        # reading must stay stopped for good now.
        self.read_paused = False
        if self.close_timer is not None:
            self.close_timer.cancel()
        self.close_timer = self.loop.call_later(self.policy_close_grace, self.transport.abort)


def text_frame_head(size: int) -> bytes:
    """The header of a whole text message from a server: FIN and the text opcode, no mask,
    then the payload's length in 7, 16 or 64 bits (RFC 6455 5.2)."""
    if size < 126:
        return bytes((0x81, size))
    if size < 1 << 16:
        return b"\x81\x7e" + size.to_bytes(2, "big")
    return b"\x81\x7f" + size.to_bytes(8, "big")


def uvicorn_options(config: AppSettings) -> dict[str, Any]:
    """Keyword arguments for `uvicorn.run` / `uvicorn.Config` (besides the app)."""
    by_address = ConnectionsByAddress(
        config.max_open_per_address, parse_networks(config.trusted_proxies)
    )
    protocol = type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {"head_timeout": config.header_timeout_seconds, "by_address": by_address},
    )
    ws_protocol = type(
        "GuardedWebSocketProtocol", (GuardedWebSocketProtocol,), {"by_address": by_address}
    )
    return {
        "host": config.host,
        "port": config.port,
        "http": protocol,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "limit_concurrency": config.max_connections,
        "ws": ws_protocol,
        "ws_max_size": config.ws_max_bytes,
        "proxy_headers": False,
        "server_header": False,
    }
