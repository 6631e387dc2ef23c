"""The player-name rule (app/rooms/names.py), the same as web/names.js."""

from __future__ import annotations

import pytest

from app.rooms.names import BadName, clean_name, free_name, grapheme_count, name_key


@pytest.mark.parametrize(
    ("name", "graphemes"),
    [
        ("مریم\u200cخانم", 8),  # Persian with the zero-width non-joiner
        ("👨\u200d👩\u200d👧", 1),  # a family joined with ZWJ
        ("👍🏽", 1),  # a skin tone
        ("🇫🇮🇹🇷", 2),  # two flags
        ("a\u0332" * 32, 32),  # combining marks
        ("Ayşe", 4),
        ("\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f Ann", 5),
    ],
)
def test_real_names_are_accepted_and_counted_as_people_see_them(name: str, graphemes: int) -> None:
    assert grapheme_count(name) == graphemes
    assert clean_name(name) == name


def test_white_space_collapses_and_the_name_is_nfc() -> None:
    assert clean_name("  Mi\u0301kko \t  Ö  ") == "Míkko Ö"


@pytest.mark.parametrize(
    "name",
    [
        "",
        "   ",
        "a" * 33,
        "👍🏽" * 33,
        "x\u202ey",
        "a\x00b",
        "a\u0085b\u0007",
        "\u200b",
        "e" + "\u0301" * 200,
        # Nothing that shows: blank letters and symbols, marks, joiners, tags alone.
        "\u2800",
        "\u115f\u1160",
        "\u3164 \uffa0",
        "\u0301\u0301",
        "\u200d\u200c",
        "\U000e0067",
        # Tags outside a flag's sequence draw nothing: "Bob" would pass for "Bob".
        "Bob\U000e0041\U000e0042",
        "Bob\U000e007f",
    ],
)
def test_refused_names_say_bad_name(name: str) -> None:
    with pytest.raises(BadName) as err:
        clean_name(name)
    assert err.value.code == "bad_name"


def test_thirty_two_family_emoji_fit() -> None:
    assert clean_name("👨\u200d👩\u200d👧" * 25)


@pytest.mark.parametrize("lookalike", ["Bob\ufe0f", "Bob\u034f", "BOB", "Bob\U000e0100"])
def test_a_name_that_looks_the_same_is_the_same_name(lookalike: str) -> None:
    taken = {name_key("Bob")}
    assert name_key(clean_name(lookalike)) in taken
    assert free_name(clean_name(lookalike), taken).endswith(" 2")
