"""Events: what happened, with the parts only some seats may see kept apart.

`public` goes to everyone (players and spectators); `private[seat]` is merged on top for
that seat alone. Redaction is therefore one dictionary merge, and a new event kind cannot
leak by forgetting a rule: anything secret must be put in `private` to be sent at all.

The hot events (a card played, cards drawn) are recorded lazily: the rules store a builder
and its arguments, and the dictionaries are built the first time anyone reads `public` or
`private`. A benchmark or a bot that never reads them pays for neither the dictionaries nor
the copies of the cards' wire form; every reader sees exactly what an eager event held.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from app.engine.state import State

# PROTOCOL section 3 "Events", then this server's extensions (docs/protocol.md).
EventKind = Literal[
    "player_joined",
    "player_left",
    "connected",
    "disconnected",
    "settings_changed",
    "dealer_chosen",
    "round_started",
    "card_played",
    "card_drawn",
    "turn_passed",
    "turn_skipped",
    "direction_changed",
    "color_chosen",
    "uno_declared",
    "uno_caught",
    "challenge_opened",
    "challenge_resolved",
    "hands_shuffled",
    "hands_swapped",
    "hands_rotated",
    "side_flipped",
    "deck_reshuffled",
    "timer_expired",
    "bot_took_over",
    "host_changed",
    "round_ended",
    "match_ended",
    "chat",
    # extensions
    "player_returned",
    "false_catch",
    "cards_discarded",
    "spectator_joined",
    "spectator_left",
]
Public = dict[str, Any]
Private = dict[int, dict[str, Any]]
# Builds (public, private) from the arguments recorded with the event; the arguments are
# immutable values (or lists nobody changes afterwards), so building late builds the same.
Builder = Callable[[tuple[Any, ...]], tuple[Public, Private]]


class Event:
    # A plain class, not a dataclass: compiled (mypyc) its constructor is native, while a
    # dataclass's generated __init__ runs interpreted; one or two events are built per move.
    __slots__ = ("_args", "_build", "_private", "_public", "after", "kind", "version")
    kind: EventKind
    version: int
    # The table right after this event; filled only when apply(..., trace=True) so that the
    # server can send each recipient the view after every event of a multi-event command.
    after: State | None
    _public: Public | None
    _private: Private | None
    _build: Builder | None
    _args: tuple[Any, ...]

    def __init__(
        self,
        kind: EventKind,
        version: int,
        public: Public | None = None,
        private: Private | None = None,
        after: State | None = None,
        build: Builder | None = None,
        args: tuple[Any, ...] = (),
    ) -> None:
        """With `build`, the parts are `build(args)`, made the first time they are read."""
        self.kind = kind
        self.version = version
        self.after = after
        self._build = build
        self._args = args
        if build is None:
            self._public = public if public is not None else {}
            self._private = private if private is not None else {}
        else:
            self._public = None
            self._private = None

    def _materialise(self) -> None:
        build = self._build
        if build is not None:
            self._public, self._private = build(self._args)
            self._build = None
            self._args = ()

    @property
    def public(self) -> Public:
        if self._public is None:
            self._materialise()
        assert self._public is not None
        return self._public

    @public.setter
    def public(self, value: Public) -> None:
        self._materialise()
        self._public = value

    @property
    def private(self) -> Private:
        if self._private is None:
            self._materialise()
        assert self._private is not None
        return self._private

    @private.setter
    def private(self, value: Private) -> None:
        self._materialise()
        self._private = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.kind, self.version, self.public, self.private) == (
            other.kind,
            other.version,
            other.public,
            other.private,
        )

    def __repr__(self) -> str:
        return (
            f"Event(kind={self.kind!r}, version={self.version!r}, "
            f"public={self.public!r}, private={self.private!r})"
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (private keys become strings); `after` is not included."""
        return {
            "kind": self.kind,
            "version": self.version,
            "public": self.public,
            "private": {str(k): v for k, v in self.private.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        return cls(
            kind=data["kind"],
            version=data["version"],
            public=data["public"],
            private={int(k): v for k, v in data["private"].items()},
        )


def redact(event: Event, seat: int | None) -> dict[str, Any]:
    """The event as `seat` may see it (None = spectator). Always a dict: nobody misses a version."""
    out: dict[str, Any] = {"kind": event.kind, **event.public}
    if seat is not None:
        extra = event.private.get(seat)
        if extra:
            out.update(extra)
    return out
