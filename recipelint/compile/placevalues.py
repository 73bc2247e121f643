"""Every value at a declared args or env place of a recipe, whatever its type.

:func:`recipelint.resolve.layers.lists` gives the lists a command is built from. A finding
about a value that is not a list (a string upstream spreads into single characters, a
number it cannot iterate, a list where a mapping of variables belongs) needs the other
values at those places too. The places are the ones :data:`~recipelint.resolve.layers.PLACES`
declares, so a new layer is seen here as soon as it is declared there; a key of the same
name anywhere else in a recipe is not a place upstream reads.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

from recipelint.cachesize import TEXT_KEYED_ENTRIES
from recipelint.jsvalue import JsonValue
from recipelint.resolve.layers import (
    ARGS,
    FEATURE,
    HARDWARE,
    KV,
    MODE,
    PLACES,
    RECIPE,
    ROLE,
    STRATEGY,
    TASK,
    VARIANT,
    Pointer,
    is_list_place,
)

_WILDCARDS = frozenset((VARIANT, HARDWARE, STRATEGY, ROLE, FEATURE, MODE, TASK, KV))


# A key no pattern names: it can only stand where a pattern has a wildcard.
_OTHER = "<other>"


@functools.cache
def _patterns(kind: str) -> tuple[tuple[str, ...], ...]:
    return tuple(p.pattern for p in PLACES if p.document == RECIPE and p.kind == kind)


@functools.cache
def _literals(kind: str) -> frozenset[str]:
    return frozenset(part for pattern in _patterns(kind) for part in pattern) - _WILDCARDS


@functools.lru_cache(maxsize=TEXT_KEYED_ENTRIES)
def _step(kind: str, alive: tuple[int, ...], depth: int, key: str) -> tuple[tuple[int, ...], bool]:
    """The patterns (by index) a pointer may still follow once ``key`` stands at ``depth``
    (a wildcard taking any key), and whether one of them ends there. A loose test: only
    is_list_place says whether a pointer is a place."""
    patterns = _patterns(kind)
    kept = tuple(
        index
        for index in alive
        if len(patterns[index]) > depth
        and (patterns[index][depth] in _WILDCARDS or patterns[index][depth] == key)
    )
    return kept, any(len(patterns[index]) == depth + 1 for index in kept)


@functools.lru_cache(maxsize=4096)
def _is_place(pointer: Pointer, kind: str) -> bool:
    """is_list_place in a recipe, remembered: recipes repeat their pointers (variant names)."""
    return is_list_place(RECIPE, pointer, kind)


def place_values(data: object, kind: str = ARGS) -> Iterator[tuple[Pointer, JsonValue]]:
    """(pointer, value) of every value other than null at a declared place of ``kind`` in a
    recipe, in document order; what a value holds is not searched for more places."""
    yield from _values(data, (), tuple(range(len(_patterns(kind)))), kind)


def _values(
    value: object, pointer: Pointer, alive: tuple[int, ...], kind: str
) -> Iterator[tuple[Pointer, JsonValue]]:
    items: Iterable[tuple[str | int, JsonValue]]
    if type(value) is dict:
        items = value.items()
    elif type(value) is list:
        items = enumerate(value)
    else:
        return
    depth, literals = len(pointer), _literals(kind)
    for key, item in items:
        kept, ends = _step(kind, alive, depth, key if key in literals else _OTHER)
        if not kept:
            continue
        here = (*pointer, key)
        if ends and _is_place(here, kind):
            if item is not None:
                yield here, item
        elif isinstance(item, (dict, list)):
            yield from _values(item, here, kept, kind)
