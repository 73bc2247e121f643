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
from collections.abc import Iterator
from typing import Any

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


@functools.cache
def _shape(kind: str) -> tuple[int, frozenset[Any] | None]:
    """How deep the recipe's places of ``kind`` go, and the keys that end one (None when a
    place ends in a wildcard, so that any key may)."""
    patterns = [p.pattern for p in PLACES if p.document == RECIPE and p.kind == kind]
    last = frozenset(pattern[-1] for pattern in patterns)
    return max(map(len, patterns), default=0), None if last & _WILDCARDS else last


def place_values(data: Any, kind: str = ARGS) -> Iterator[tuple[Pointer, Any]]:
    """(pointer, value) of every value other than null at a declared place of ``kind`` in a
    recipe, in document order; what a value holds is not searched for more places."""
    depth, last = _shape(kind)
    yield from _values(data, (), depth, last, kind)


def _values(
    value: Any, pointer: Pointer, depth: int, last: frozenset[Any] | None, kind: str
) -> Iterator[tuple[Pointer, Any]]:
    if type(value) is dict:
        items: Any = value.items()
    elif type(value) is list:
        items = enumerate(value)
    else:
        return
    for key, item in items:
        here = (*pointer, key)
        if (last is None or key in last) and is_list_place(RECIPE, here, kind):
            if item is not None:
                yield here, item
        elif depth > 1 and isinstance(item, (dict, list)):
            yield from _values(item, here, depth - 1, last, kind)
