"""Free text players send to each other (chat): what may reach other screens.

Control characters (NUL, escapes, line breaks: Unicode category Cc) and the bidirectional
embeddings, overrides, isolates and marks are removed: an override makes a message display in
another order than it was written (a name or a card appears to say something else). Joiners
and variation selectors stay, emoji need them. Line and tab breaks become spaces.
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_SPACES = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85\u2028\u2029")


def clean_chat(text: str) -> str:
    """`text` without control and bidi-control characters, trimmed."""
    kept: list[str] = []
    for ch in text:
        if ch in _SPACES:
            kept.append(" ")
        elif ch in BIDI_CONTROLS or unicodedata.category(ch) == "Cc":
            continue
        else:
            kept.append(ch)
    return "".join(kept).strip()
