"""Free text players send to each other (chat): what may reach other screens.

Control characters (NUL, escapes, line breaks: Unicode category Cc) and the bidirectional
embeddings, overrides, isolates and marks are removed: an override makes a message display in
another order than it was written (a name or a card appears to say something else). Joiners
and variation selectors stay, emoji need them. Line and tab breaks become spaces. A run of
more than `MAX_MARKS` combining marks on one character is cut there (stacked "zalgo" marks
draw over the lines around), and a line with nothing that shows (only zero-width, format or
blank characters) is empty.
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_SPACES = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85\u2028\u2029")
# Vietnamese stacks two marks, pointed Hebrew and Arabic three or four: six is none of them.
MAX_MARKS = 6
# Letters and symbols that draw nothing (the Hangul fillers, the Braille blank).
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def clean_chat(text: str) -> str:
    """`text` without control and bidi-control characters nor marks past `MAX_MARKS` in a
    row, trimmed; "" when nothing of it shows."""
    kept: list[str] = []
    marks = 0
    shows = False
    for ch in text:
        if ch in _SPACES:
            kept.append(" ")
            marks = 0
            continue
        category = unicodedata.category(ch)
        if ch in BIDI_CONTROLS or category == "Cc":
            continue
        if category in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                continue
        else:
            marks = 0
            if category[0] not in "ZC" and ch not in _BLANKS:
                shows = True
        kept.append(ch)
    return "".join(kept).strip() if shows else ""
