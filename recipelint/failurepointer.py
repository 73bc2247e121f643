"""Which value a failed rendering is about: the one a synthesis message names.

A message such as `5 is not iterable` names a value, not where it is; the value is
searched for in the recipe, preferring the variant's own values, then those every
variant shares, then the strategy's overrides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from recipelint.jsvalue import js_string
from recipelint.resolve.layers import ARG_KEYS, ENV_KEYS

_NOT_ITERABLE = re.compile(r"^(?P<value>.*) is not iterable")
_NON_STRING = re.compile(r"^non-string argument (?P<value>.*) \(quote it")
_NOT_MAPPING = re.compile(r"^expected a mapping of environment variables, got (?P<value>.*)$")


def failing_value(data: Any, variant: str, strategy: str, message: str) -> tuple[Any, ...] | None:
    """The pointer of the value a synthesis message names, or None when it names none."""
    wanted = _failure_test(message)
    if wanted is None:
        return None
    best: tuple[int, tuple[Any, ...]] | None = None
    for pointer in _matching_values(data, wanted):
        rank = _scope_rank(pointer, variant, strategy)
        if best is None or rank < best[0]:
            best = (rank, pointer)
            if rank == 0:
                break
    return best[1] if best else None


def _failure_test(message: str) -> Callable[[str, Any], Iterator[tuple[Any, ...]]] | None:
    """A function (key, value) -> pointers below that value (relative) that match ``message``."""
    if found := _NOT_ITERABLE.match(message):
        text = found["value"]
        return lambda key, value: (
            iter([()])
            if key in ARG_KEYS and type(value) not in (list, str) and js_string(value) == text
            else iter(())
        )
    if found := _NON_STRING.match(message):
        text = found["value"]
        return lambda key, value: (
            ((i,) for i, item in enumerate(value) if type(item) is not str and repr(item) == text)
            if key in ARG_KEYS and type(value) is list
            else iter(())
        )
    if found := _NOT_MAPPING.match(message):
        text = found["value"]
        return lambda key, value: (
            iter([()])
            if key in ENV_KEYS and type(value) is not dict and js_string(value) == text
            else iter(())
        )
    return None


def _matching_values(
    value: Any, test: Callable[[str, Any], Iterator[tuple[Any, ...]]], pointer: tuple[Any, ...] = ()
) -> Iterator[tuple[Any, ...]]:
    if type(value) is dict:
        for key, item in value.items():
            for below in test(key, item):
                yield (*pointer, key, *below)
            if isinstance(item, (dict, list)):
                yield from _matching_values(item, test, (*pointer, key))
    elif type(value) is list:
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                yield from _matching_values(item, test, (*pointer, index))


def _scope_rank(pointer: tuple[Any, ...], variant: str, strategy: str) -> int:
    """0: the variant's own value; 1: shared by every variant (or this strategy's); 2: another's."""
    if pointer[:2] == ("variants", variant):
        return 0
    if pointer[:1] not in (("variants",), ("strategy_overrides",)) or pointer[:2] == (
        "strategy_overrides",
        strategy,
    ):
        return 1
    return 2
