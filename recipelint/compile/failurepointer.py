"""Which value a failed rendering is about: the one a synthesis message names.

A message such as `5 is not iterable` names a value, not where it is; the value is
searched for at the recipe's declared args or env places (resolve.layers.PLACES),
preferring the variant's own values, then those every variant shares, then the
strategy's overrides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from recipelint.compile.placevalues import place_values
from recipelint.jsvalue import JsonValue, js_string
from recipelint.resolve.layers import ARGS, ENV, Pointer

_NOT_ITERABLE = re.compile(r"^(?P<value>.*) is not iterable")
_NON_STRING = re.compile(r"^non-string argument (?P<value>.*) \(quote it")
_NOT_MAPPING = re.compile(r"^expected a mapping of environment variables, got (?P<value>.*)$")

# Pointers (relative to a value at a declared place) of what in it a message names.
Test = Callable[[JsonValue], Iterator[Pointer]]


def failing_value(data: object, variant: str, strategy: str, message: str) -> Pointer | None:
    """The pointer of the value a synthesis message names, or None when it names none."""
    found = _failure_test(message)
    if found is None:
        return None
    kind, test = found
    best: tuple[int, Pointer] | None = None
    for pointer in _matching_values(data, kind, test):
        rank = _scope_rank(pointer, variant, strategy)
        if best is None or rank < best[0]:
            best = (rank, pointer)
            if rank == 0:
                break
    return best[1] if best else None


def _failure_test(message: str) -> tuple[str, Test] | None:
    """The kind of place (args or env) ``message`` is about, and a test of the values there."""
    if found := _NOT_ITERABLE.match(message):
        text = found["value"]
        return (
            ARGS,
            lambda value: (
                iter([()])
                if type(value) not in (list, str) and js_string(value) == text
                else iter(())
            ),
        )
    if found := _NON_STRING.match(message):
        text = found["value"]
        return (
            ARGS,
            lambda value: (
                (
                    (i,)
                    for i, item in enumerate(value)
                    if type(item) is not str and repr(item) == text
                )
                if type(value) is list
                else iter(())
            ),
        )
    if found := _NOT_MAPPING.match(message):
        text = found["value"]
        return (
            ENV,
            lambda value: (
                iter([()]) if type(value) is not dict and js_string(value) == text else iter(())
            ),
        )
    return None


def _matching_values(data: object, kind: str, test: Test) -> Iterator[Pointer]:
    for pointer, value in place_values(data, kind):
        for below in test(value):
            yield (*pointer, *below)


def _scope_rank(pointer: Pointer, variant: str, strategy: str) -> int:
    """0: the variant's own value; 1: shared by every variant (or this strategy's); 2: another's."""
    if pointer[:2] == ("variants", variant):
        return 0
    if pointer[:1] not in (("variants",), ("strategy_overrides",)) or pointer[:2] == (
        "strategy_overrides",
        strategy,
    ):
        return 1
    return 2
