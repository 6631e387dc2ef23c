"""Client frames, parsed once at the edge into a closed set of typed commands.

A frame that is not a JSON object, lacks a field or carries one of the wrong JSON type is a
`bad_frame`; an unknown `type` is `unknown_type`. Extra fields are ignored (clients may be
newer than the server). Booleans are never accepted where an integer is expected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from app.engine import actions as act
from app.engine.errors import ErrorCode
from app.rooms.commands import Command

MAX_ID_LENGTH = 64
MAX_CHAT_LENGTH = 300
MAX_TOKEN_LENGTH = 256


class FrameError(Exception):
    """A refused frame: `code` is `bad_frame` or `unknown_type`; `id` when one was readable."""

    def __init__(self, code: ErrorCode, message: str, command_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.command_id = command_id


@dataclass(frozen=True, slots=True)
class Hello:
    token: str
    since: int | None


@dataclass(frozen=True, slots=True)
class Ping:
    command_id: str | None = None


ClientFrame = Hello | Ping | Command


def decode(text: str) -> dict[str, Any]:
    try:
        data = orjson.loads(text)
    except (ValueError, RecursionError) as exc:  # orjson.JSONDecodeError is a ValueError
        raise FrameError("bad_frame", "frame is not valid JSON") from exc
    if not isinstance(data, dict):
        raise FrameError("bad_frame", "frame must be a JSON object")
    return data


def readable_id(data: dict[str, Any]) -> str | None:
    value = data.get("id")
    if isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH:
        return value
    return None


def parse(data: dict[str, Any]) -> ClientFrame:
    kind = data.get("type")
    if not isinstance(kind, str):
        raise FrameError("bad_frame", "frame needs a string `type`", readable_id(data))
    if kind == "hello":
        return _hello(data)
    if kind == "ping":
        return Ping(readable_id(data))
    builder = _BUILDERS.get(kind)
    if builder is None:
        raise FrameError("unknown_type", f"unknown frame type {kind[:32]!r}", readable_id(data))
    command_id = data.get("id")
    if not isinstance(command_id, str) or not 0 < len(command_id) <= MAX_ID_LENGTH:
        raise FrameError("bad_frame", f"`id` must be a string of 1-{MAX_ID_LENGTH} characters")
    at = data.get("at")
    if at is not None and not _is_int(at):
        raise FrameError("bad_frame", "`at` must be an integer version", command_id)
    try:
        action = builder(_Fields(data))
    except _FieldError as exc:
        raise FrameError("bad_frame", str(exc), command_id) from exc
    return Command(kind, command_id, at, action)


def _hello(data: dict[str, Any]) -> Hello:
    token = data.get("token")
    if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_LENGTH:
        raise FrameError("bad_frame", "`hello` needs a string `token`")
    since = data.get("since")
    if since is not None and not _is_int(since):
        raise FrameError("bad_frame", "`since` must be an integer version or null")
    return Hello(token, since)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _FieldError(Exception):
    pass


class _Fields:
    """Typed access to a frame's fields; every failure names the field."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def integer(self, name: str) -> int:
        value = self._data.get(name)
        if not _is_int(value):
            raise _FieldError(f"`{name}` must be an integer")
        assert isinstance(value, int)
        return value

    def opt_integer(self, name: str) -> int | None:
        value = self._data.get(name)
        if value is None:
            return None
        return self.integer(name)

    def text(self, name: str, max_length: int = 64) -> str:
        value = self._data.get(name)
        if not isinstance(value, str) or len(value) > max_length:
            raise _FieldError(f"`{name}` must be a string of at most {max_length} characters")
        return value

    def opt_text(self, name: str) -> str | None:
        if self._data.get(name) is None:
            return None
        return self.text(name)

    def flag(self, name: str, default: bool) -> bool:
        value = self._data.get(name, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise _FieldError(f"`{name}` must be true or false")
        return value

    def mapping(self, name: str) -> dict[str, Any]:
        value = self._data.get(name)
        if not isinstance(value, dict):
            raise _FieldError(f"`{name}` must be an object")
        return value


def _play(f: _Fields) -> act.Action:
    return act.Play(
        card=f.integer("card"),
        color=f.opt_text("color"),
        target=f.opt_integer("target"),
        uno=f.flag("uno", False),
    )


_BUILDERS: dict[str, Callable[[_Fields], act.Action]] = {
    "start": lambda f: act.Start(),
    "choose": lambda f: act.Choose(f.text("color")),
    "settings": lambda f: act.ChangeSettings(f.mapping("settings")),
    "add_bot": lambda f: act.AddBot(),
    "remove_bot": lambda f: act.RemoveBot(f.integer("seat")),
    # Extension: the host frees any other seat in the lobby (a player who went away).
    "remove_seat": lambda f: act.RemoveBot(f.integer("seat"), any_seat=True),
    "play": _play,
    "draw": lambda f: act.Draw(),
    "pass": lambda f: act.Pass(),
    "uno": lambda f: act.DeclareUno(),
    "catch": lambda f: act.Catch(f.integer("seat")),
    "challenge": lambda f: act.Challenge(),
    "accept": lambda f: act.Accept(),
    "chat": lambda f: act.Chat(f.text("text", MAX_CHAT_LENGTH)),
    # Extension: leave the room (a bot keeps the seat of a running game).
    "leave": lambda f: act.Leave(),
    # Extension: "I'm back" ends the away (AFK) state of the own seat at once.
    "back": lambda f: act.Back(),
}

COMMAND_TYPES = frozenset(_BUILDERS)
