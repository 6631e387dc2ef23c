"""The player-name rule, the same as the browser's (web/names.js): 1-32 user-perceived
characters (grapheme clusters) of letters, marks, digits, punctuation, symbols (emoji) and
spaces, with the zero-width joiner and non-joiner that Persian names and family emoji need;
no control or format characters otherwise (a bidi override would let a name spoof its
neighbours), runs of white space collapse to one space, and at least one character that
shows (not only marks, joiners or blank letters)."""

from __future__ import annotations

import unicodedata
from typing import Literal

NAME_MAX_GRAPHEMES = 32
# A bound on code points too, so 32 "characters" cannot each carry a thousand marks.
NAME_MAX_CODEPOINTS = 128

ZWNJ = "\u200c"
ZWJ = "\u200d"
# Emoji tag characters (subdivision flags such as England's) are format characters too; they
# are allowed only in a flag's tag sequence (after the black flag, U+1F3F4): anywhere else
# they draw nothing, and "Bob" followed by tags would pass for "Bob".
_TAGS = range(0xE0020, 0xE0080)
_BLACK_FLAG = "\U0001f3f4"
# Drawn as nothing after a letter: left out of the comparison that keeps names unique.
_IGNORABLE = frozenset("\u034f\u180b\u180c\u180d\u180f") | frozenset(
    chr(cp) for cp in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), *_TAGS)
)
_SKIN_TONES = range(0x1F3FB, 0x1F400)
_REGIONAL = range(0x1F1E6, 0x1F200)
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
# Letters and symbols that draw nothing (the Hangul fillers, the Braille blank): a name made
# of them, of marks, joiners and spaces alone would show as an empty seat.
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


class BadName(ValueError):
    """The name breaks the rule; `code` is the wire error code."""

    code: Literal["bad_name"] = "bad_name"


def _allowed(ch: str) -> bool:
    if ch in (ZWNJ, ZWJ) or ord(ch) in _TAGS:
        return True
    return unicodedata.category(ch) not in _REFUSED_CATEGORIES


def _visible(ch: str) -> bool:
    category = unicodedata.category(ch)
    return not (category[0] in "MZ" or ch in (ZWNJ, ZWJ) or ord(ch) in _TAGS or ch in _BLANKS)


def _tags_in_flags(text: str) -> bool:
    """Every tag character continues a black flag's tag sequence."""
    before = ""
    for ch in text:
        if ord(ch) in _TAGS and before != _BLACK_FLAG and ord(before or "\0") not in _TAGS:
            return False
        before = ch
    return True


def grapheme_count(text: str) -> int:
    """User-perceived characters, close to Intl.Segmenter's for names: a mark, a variation
    selector, a skin tone, a tag or a joiner extends the cluster before it, a ZWJ also glues
    the next character on, regional indicators pair into one flag."""
    count = 0
    glue = False
    regional_open = False
    for ch in text:
        cp = ord(ch)
        extends = (
            unicodedata.category(ch) in ("Mn", "Me", "Mc")
            or cp in _SKIN_TONES
            or cp in _TAGS
            or ch in (ZWNJ, ZWJ)
        )
        if cp in _REGIONAL:
            if regional_open:
                regional_open = False
                continue
            regional_open = True
        else:
            regional_open = False
        if extends and count:
            glue = ch == ZWJ
            continue
        if glue:
            glue = False
            continue
        count += 1
    return count


def clean_name(name: object) -> str:
    """The name as stored (white space collapsed, NFC), or BadName."""
    if not isinstance(name, str):
        raise BadName("the name must be text")
    cleaned = unicodedata.normalize("NFC", " ".join(name.split()))
    if not cleaned:
        raise BadName("the name is empty")
    if len(cleaned) > NAME_MAX_CODEPOINTS or grapheme_count(cleaned) > NAME_MAX_GRAPHEMES:
        raise BadName(f"the name is longer than {NAME_MAX_GRAPHEMES} characters")
    if not all(_allowed(ch) for ch in cleaned) or not _tags_in_flags(cleaned):
        raise BadName("the name has a control character")
    if not any(_visible(ch) for ch in cleaned):
        raise BadName("the name shows nothing")
    return cleaned


def name_key(name: str) -> str:
    """What makes two names the same in a room: case-insensitive, after NFC ("ALİ" and
    "Ali" differ, "Ayşe" typed with a combining cedilla and "Ayşe" do not), without the
    characters that draw nothing after a letter (variation selectors, the grapheme joiner,
    tags): "Bob" and "Bob" with a variation selector look the same, so they are the same."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
    return "".join(ch for ch in folded if ch not in _IGNORABLE)


def free_name(name: str, taken: set[str]) -> str:
    """`name` itself when its key is not in `taken`, else the first free "name 2", "name 3"…
    cut (by code points, then trailing spaces and joiners) to stay within the name rule."""
    if name_key(name) not in taken:
        return name
    k = 2
    while True:
        suffix = f" {k}"
        base = name
        while base and (
            len(base) + len(suffix) > NAME_MAX_CODEPOINTS
            or grapheme_count(base + suffix) > NAME_MAX_GRAPHEMES
        ):
            base = base[:-1].rstrip(" " + ZWJ + ZWNJ)
        candidate = unicodedata.normalize("NFC", base + suffix)
        if name_key(candidate) not in taken:
            return candidate
        k += 1
