"""How close a suggestion must be to a misspelling before a hint proposes it.

difflib's ratio rates short names alike when they share a few letters (`--cc` and `--grpc`), and
long names alike when they share a long prefix (`VLLM_USE_TRITON_FLASH` and
`VLLM_USE_TRITON_AWQ`). A did-you-mean that names an unrelated option sends the reader the wrong
way, so a candidate is kept only when it is a typo away (a few edits, scaled to the name's length)
differs from the spelling by one whole word added or dropped, or only by a
word's tail written out or cut short.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recipelint.flags.catalog import Catalog

_WORD_SPLIT = re.compile(r"[-_.]+")


def edit_distance(left: str, right: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions of one character."""
    if len(left) < len(right):
        left, right = right, left
    previous = list(range(len(right) + 1))
    for i, a in enumerate(left, 1):
        current = [i]
        for j, b in enumerate(right, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def _words(name: str) -> list[str]:
    return [word for word in _WORD_SPLIT.split(name.lower()) if word]


def _one_word_apart(left: list[str], right: list[str]) -> bool:
    """True when the longer list is the shorter with exactly one word inserted somewhere."""
    if len(left) < len(right):
        left, right = right, left
    if len(left) != len(right) + 1 or not right:
        return False
    return any(left[:i] + left[i + 1 :] == right for i in range(len(left)))


def is_close(spelled: str, candidate: str) -> bool:
    """Whether ``candidate`` is a plausible intended spelling of ``spelled``."""
    a, b = spelled.lstrip("-").lower(), candidate.lstrip("-").lower()
    if edit_distance(a, b) <= max(2, len(a) // 6):
        return True
    shorter, longer = sorted((a, b), key=len)
    if len(shorter) >= 4 and longer.startswith(shorter) and len(longer) - len(shorter) <= 4:
        return True  # a word written out or cut short: `--max-model-length`
    return _one_word_apart(_words(a), _words(b))


def tight_matches(spelled: str, candidates: Iterable[str]) -> list[str]:
    """The candidates (in their given order) close enough to ``spelled`` to propose."""
    return [candidate for candidate in candidates if is_close(spelled, candidate)]


def close_flags(catalog: Catalog, spelled: str, limit: int = 3) -> list[str]:
    """A release's options close enough to a spelling no release knows to propose, closest
    first: difflib's candidates (a looser pass when the strict one finds none), then only
    those a typo, a word or a cut-short tail away."""
    from recipelint.flags.catalog import closest_flags

    key = catalog.option_key(spelled)
    found = closest_flags(catalog, spelled, limit)
    if not found:
        found = catalog.close_options(key, limit, 0.6)
    return tight_matches(key, found)
