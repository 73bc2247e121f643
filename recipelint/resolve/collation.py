"""A sort key approximating ICU root collation, which `localeCompare` uses upstream.

Upstream sorts the fallback default hardware by it (docs/upstream-behaviour.md#default-hardware).
"""

from __future__ import annotations

import unicodedata


def icu_root_key(
    text: str,
) -> tuple[tuple[tuple[int, int, str], ...], tuple[int, ...], str]:
    """Primary: punctuation < digits < letters (case-blind); tertiary: lower before upper.

    This matches ICU's root collation for the ASCII identifiers hardware ids are made
    of (`a_b` sorts before `a1`, `B` after `a`), which is all the compiler compares.
    """
    primary: list[tuple[int, int, str]] = []
    tertiary: list[int] = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.combining(char):
            continue
        if char.isdigit():
            primary.append((2, unicodedata.digit(char, 0), ""))
        elif char.isalpha():
            primary.append((3, 0, char.casefold()))
        else:
            primary.append((1, ord(char), ""))
        tertiary.append(0 if not char.isupper() else 1)
    return (tuple(primary), tuple(tertiary), text)
