"""Events: what happened, with the parts only some seats may see kept apart.

`public` goes to everyone (players and spectators); `private[seat]` is merged on top for
that seat alone. Redaction is therefore one dictionary merge, and a new event kind cannot
leak by forgetting a rule: anything secret must be put in `private` to be sent at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.engine.state import State


@dataclass(slots=True)
class Event:
    kind: str
    version: int
    public: dict[str, Any] = field(default_factory=dict)
    private: dict[int, dict[str, Any]] = field(default_factory=dict)
    # The table right after this event; filled only when apply(..., trace=True) so that the
    # server can send each recipient the view after every event of a multi-event command.
    after: State | None = field(default=None, repr=False, compare=False)

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
