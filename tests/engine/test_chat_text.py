"""Chat text reaches other screens without control or bidi-override characters (issue 11,
finding 13): the engine cleans it where the Chat action is applied."""

from __future__ import annotations

import random

import pytest

from app.engine import Chat, EngineError, Join, apply, new_table, parse_settings
from app.engine.text import clean_chat


def _said(text: str) -> str:
    rng = random.Random(1)
    st = new_table("ROOM", parse_settings({}))
    st, _ = apply(st, None, Join("A", "a"), rng, 0)
    _st, events = apply(st, 0, Chat(text), rng, 1)
    chat = [e for e in events if e.kind == "chat"]
    assert len(chat) == 1
    said = chat[0].public["text"]
    assert isinstance(said, str)
    return said


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("gg", "gg"),
        ("  gg wp  ", "gg wp"),
        ("a\x00b", "ab"),
        ("red\x1b[31m", "red[31m"),
        ("line\none\ttab", "line one tab"),
        ("pay \u202eusd01\u202c now", "pay usd01 now"),
        ("\u2066iso\u2069 \u200fmark\u200e \u061c", "iso mark"),
        ("del\x7f c1\x9b", "del c1"),
        ("family 👨\u200d👩\u200d👧 ❤\ufe0f", "family 👨\u200d👩\u200d👧 ❤\ufe0f"),  # joiners kept
        ("Ayşe: مرحبا", "Ayşe: مرحبا"),
    ],
)
def test_chat_is_cleaned_before_anyone_sees_it(sent: str, shown: str) -> None:
    assert _said(sent) == shown
    assert clean_chat(sent) == shown


@pytest.mark.parametrize(
    "sent",
    [
        "\x00",
        "\u202e\u202c",
        " \n\t ",
        "",
        "\u200b\u200b\u200b",
        "\U000e0041" * 100,
        "\u3164 \u2800",
    ],
)
def test_a_message_of_nothing_but_controls_is_refused(sent: str) -> None:
    with pytest.raises(EngineError) as refused:
        _said(sent)
    assert refused.value.code == "bad_command"


def test_stacked_marks_are_cut_and_real_diacritics_kept() -> None:
    zalgo = "a" + "\u0301" * 299
    assert clean_chat(zalgo) == "a" + "\u0301" * 6
    assert clean_chat("Tiếng Việt, שָׁלוֹם") == "Tiếng Việt, שָׁלוֹם"
    flag = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert clean_chat(f"go {flag}") == f"go {flag}"
