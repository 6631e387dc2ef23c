"""Server frames (PROTOCOL v2 section 3), typed and encoded once.

An `events` frame carries every event of one commit and the recipient's view after the last
of them. What is the same for every recipient (the public events, the settings, the seats,
the table) is encoded once per commit and spliced into each recipient's frame as an
`orjson.Fragment`; only a seat's own part (its private event parts, its hand and moves) is
encoded per seat. Spectators share one encoded frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypedDict

import orjson

from app import engine
from app.engine.errors import ErrorCode
from app.engine.events import Event
from app.engine.state import State
from app.engine.view import View, flip_in_round, public_view, seats_view, you_view
from app.kept_json import dumps_kept, kept
from app.store.rooms import Commit

Role = Literal["player", "spectator"]

LOG_SIZE = 20  # recent public events carried in the welcome's `view.log`
PREPARED_MAX_AGE_MS = 250  # see commit_frames
CHAT_SIZE = 50  # recent chat messages carried in the welcome's `view.chat` (extension)
# The log is public and carries no card ids: an old entry must not name a card that has since
# moved into another hand (a swap, a reshuffle), and revealed hands stay in their event.
_LOG_DROPPED_KEYS = frozenset({"id", "hands", "hand", "cards"})


class You(TypedDict):
    seat: int | None
    player_id: str
    role: Role


class WelcomeFrame(TypedDict):
    type: Literal["welcome"]
    you: You
    version: int
    view: View


class EventsFrame(TypedDict):
    type: Literal["events"]
    version: int
    events: list[Any]  # event objects, or their pre-encoded fragments
    # The view; a commit's frames share its public parts as pre-encoded fragments.
    view: View | dict[str, Any]


class AckFrame(TypedDict):
    type: Literal["ack"]
    id: str
    version: int


class ErrorFrame(TypedDict, total=False):
    type: Literal["error"]
    id: str
    code: ErrorCode
    message: str


class PongFrame(TypedDict, total=False):
    type: Literal["pong"]
    id: str
    server_time: int


ServerFrame = WelcomeFrame | EventsFrame | AckFrame | ErrorFrame | PongFrame


def encode(frame: ServerFrame) -> bytes:
    """UTF-8 JSON, written to the socket as it is (a text message)."""
    return orjson.dumps(frame)


def ack(command_id: str, version: int) -> bytes:
    return encode(AckFrame(type="ack", id=command_id, version=version))


def error(code: ErrorCode, message: str, command_id: str | None = None) -> ErrorFrame:
    frame = ErrorFrame(type="error", code=code, message=message)
    if command_id is not None:
        frame["id"] = command_id
    return frame


def pong(server_time: int, command_id: str | None = None) -> PongFrame:
    frame = PongFrame(type="pong", server_time=server_time)
    if command_id is not None:
        frame["id"] = command_id
    return frame


def redacted(event: Event, seat: int | None) -> dict[str, Any]:
    """The event as `seat` sees it on the wire: its version, kind and visible fields."""
    return {"version": event.version, **engine.redact(event, seat)}


class CommitFrames:
    """The `events` frames of one commit, one per recipient seat, built on first request."""

    __slots__ = (
        "_by_seat",
        "_events",
        "_head",
        "_now",
        "_public",
        "_public_events",
        "_state",
        "ahead",
    )

    def __init__(self, events: Sequence[Event], state: State, now: int) -> None:
        self._events = events
        self._state = state
        self._now = now
        self._by_seat: dict[int | None, bytes] = {}
        self.ahead = False  # built before its commit won: see commit_frames
        self._public: dict[str, Any] | None = None
        self._public_events: list[orjson.Fragment] | None = None
        # The frame up to the view's `you`, encoded once: a seat's frame is this, its `you`,
        # and the two closing braces (when the seat sees the shared seats and events).
        self._head: bytes | None = None

    @property
    def now(self) -> int:
        return self._now

    def for_seat(self, seat: int | None) -> bytes:
        frame = self._by_seat.get(seat)
        if frame is None:
            frame = self._by_seat[seat] = self._build(seat)
        return frame

    def _build(self, seat: int | None) -> bytes:
        state = self._state
        if self._public is None:
            public: dict[str, Any] = dict(public_view(state, self._now))
            for key in ("settings", "seats", "state"):
                public[key] = orjson.Fragment(dumps_kept(public[key]))
            self._public = public
            self._public_events = [
                orjson.Fragment(dumps_kept(redacted(e, None))) for e in self._events
            ]
        assert self._public_events is not None
        if (
            seat is not None
            and 0 <= seat < len(state.seats)
            and not flip_in_round(state)
            and not any(seat in e.private for e in self._events)
        ):
            if self._head is None:
                shared = dict(self._public)
                del shared["you"]
                head = encode(
                    EventsFrame(
                        type="events",
                        version=state.version,
                        events=self._public_events,
                        view=shared,
                    )
                )
                assert head.endswith(b"}}")
                self._head = head[:-2] + b',"you":'
            return self._head + orjson.dumps(you_view(state, seat)) + b"}}"
        view = dict(self._public)
        events: list[Any] = self._public_events
        if seat is not None and 0 <= seat < len(state.seats):
            view["you"] = you_view(state, seat)
            if flip_in_round(state):  # a holder does not see its own backs
                view["seats"] = seats_view(state, seat)
            if any(seat in e.private for e in self._events):
                events = [
                    redacted(e, seat) if seat in e.private else public
                    for e, public in zip(self._events, self._public_events, strict=True)
                ]
        # Kept with the commit for its other sockets and the ones a little behind: copied out
        # of orjson's buffer (app/kept_json.py).
        return kept(
            encode(EventsFrame(type="events", version=state.version, events=events, view=view))
        )


def commit_frames(commit: Commit, now: int, *, ahead: bool = False) -> CommitFrames:
    """The commit's shared frame builder (kept on the commit while its state is kept);
    `ahead`: asked before the commit is known to have won."""
    cached = commit.cache
    if isinstance(cached, CommitFrames):
        if ahead or not cached.ahead:
            return cached
        # Built ahead (while the commit was on its way, `Hub.prepare`): their server time is
        # of then, kept unless the commit took long to be answered.
        if now - cached.now <= PREPARED_MAX_AGE_MS:
            cached.ahead = False
            return cached
    assert commit.state is not None, "frames are built only of commits whose state is kept"
    frames = CommitFrames(commit.events, commit.state, now)
    frames.ahead = ahead
    commit.cache = frames
    return frames


def merged_frame(
    events: Sequence[Event], state: State, seat: int | None, now: int, after: int
) -> bytes:
    """One frame for several commits (a client far behind, or a resume): the events after
    `after`, and the view of `state`, the end of the last of them."""
    items = [redacted(e, seat) for e in events if e.version > after]
    view = public_view(state, now, seat)
    if seat is not None and 0 <= seat < len(state.seats):
        view["you"] = you_view(state, seat)
    return encode(EventsFrame(type="events", version=state.version, events=items, view=view))


def welcome(state: State, seat: int | None, you: You, now: int, recent: Sequence[Event]) -> bytes:
    """`recent`: the events the history holds (or at least the last `LOG_SIZE`)."""
    view = engine.view(state, seat, now)
    held = [e for e in recent if e.version <= state.version]
    view["log"] = [log_entry(e) for e in held[-LOG_SIZE:]]
    # Extension: the room's recent chat, so a new tab or a reload shows the conversation
    # (the log's 20 events are mostly moves).
    view["chat"] = [log_entry(e) for e in held if e.kind == "chat"][-CHAT_SIZE:]
    return encode(WelcomeFrame(type="welcome", you=you, version=state.version, view=view))


def log_entry(event: Event) -> dict[str, Any]:
    """What everybody may read about `event`, without card ids or revealed hands."""
    entry = _scrub(engine.redact(event, None))
    assert isinstance(entry, dict)
    return {"version": event.version, **entry}


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _scrub(v)
            for k, v in value.items()
            if k not in _LOG_DROPPED_KEYS and not (k == "card" and isinstance(v, int))
        }
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value
