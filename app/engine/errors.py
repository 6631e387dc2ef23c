"""The one exception the engine raises; `code` is a wire error code of PROTOCOL.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from app.engine.events import Event
    from app.engine.state import State


# Every error code that goes on the wire (PROTOCOL section 3 lists the contract's; the rest
# are extensions): clients switch on these, so they are a closed set mypy checks.
ErrorCode = Literal[
    "bad_frame",
    "unknown_type",
    "unauthorized",
    "not_host",
    "not_your_turn",
    "illegal_card",
    "need_color",
    "bad_target",
    "not_catchable",
    "wrong_phase",
    "stale",
    "bad_settings",
    "rate_limited",
    "too_large",
    # extensions
    "bad_command",
    "bad_request",
    "not_found",
    "already_started",
    "room_full",
    "full",
    "conflict",
    "unavailable",
    "internal",
    "not_enough_entrants",
    "unsupported_media_type",
    "forbidden_origin",
    "bad_name",
    "name_taken",
]


class EngineError(Exception):
    """A refused action. `code` is stable and goes on the wire; `message` is for humans.

    The message must never name a card that the acting seat may not see.

    Normally a refused action changes nothing (`state` is None). The one exception is a
    false UNO catch with `false_catch_penalty` > 0 (RULES 13): the catch is refused with
    `not_catchable` AND costs the catcher cards; then `state` and `events` hold the outcome,
    which the server commits and publishes before sending the error.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str = "",
        *,
        state: State | None = None,
        events: list[Event] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code: ErrorCode = code
        self.message = message or code.replace("_", " ")
        self.state = state
        self.events: list[Event] = events or []

    def __reduce__(self) -> tuple[Any, ...]:
        return (EngineError, (self.code, self.message))
