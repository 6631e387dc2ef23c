"""The one exception the engine raises; `code` is a wire error code of PROTOCOL.md."""

from __future__ import annotations


class EngineError(Exception):
    """A refused action. `code` is stable and goes on the wire; `message` is for humans.

    The message must never name a card that the acting seat may not see.
    """

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message or code.replace("_", " ")
