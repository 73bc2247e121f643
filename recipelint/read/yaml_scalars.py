"""Plain scalars resolved as js-yaml 4 resolves them (YAML 1.2 core schema plus timestamps), numbers as JavaScript doubles.

Upstream: docs/upstream-behaviour.md#js-yaml.
"""

from __future__ import annotations

import math
import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from recipelint.jsvalue import normalize_number

_FLOAT_PATTERN = re.compile(
    r"^(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN))$"
)


_DATE_PATTERN = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")


_TIMESTAMP_PATTERN = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]*))?"
    r"(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?$"
)


_NULLS = frozenset({"~", "null", "Null", "NULL", ""})


_TRUES = frozenset({"true", "True", "TRUE"})


_FALSES = frozenset({"false", "False", "FALSE"})


_DIGITS = {"b": "01", "o": "01234567", "x": "0123456789abcdefABCDEF"}


_BASES = {"b": 2, "o": 8, "x": 16}


NO_VALUE = object()


_NUMBER_STARTS = frozenset(".0123456789")


# The first characters of every plain scalar that resolves to something other than itself
# (null, booleans, numbers, dates; "" is the empty scalar): any other is a string as written.
MAY_RESOLVE = frozenset(["", "~", "n", "N", "t", "T", "f", "F", "+", "-", *_NUMBER_STARTS])


intern_string = sys.intern


def _resolve_int(text: str) -> int | float | object:
    body = text[1:] if text[:1] in "+-" else text
    negative = text[:1] == "-"
    if not body:
        return NO_VALUE
    if body == "0":
        return 0
    if body[0] == "0" and len(body) > 2 and body[1] in _BASES:
        digits = body[2:]
        if not all(ch in _DIGITS[body[1]] for ch in digits):
            return NO_VALUE
        number = float(int(digits, _BASES[body[1]]))
    elif body.isascii() and body.isdigit():
        number = float(int(body, 10)) if len(body) < 400 else math.inf
    else:
        return NO_VALUE
    if not math.isfinite(number):
        return NO_VALUE
    return normalize_number(-number if negative else number)


def _resolve_float(text: str) -> int | float | object:
    if not _FLOAT_PATTERN.match(text):
        return NO_VALUE
    lowered = text.lower().lstrip("+")
    if lowered in (".inf", "-.inf"):
        return -math.inf if lowered.startswith("-") else math.inf
    if lowered == ".nan":
        return math.nan
    value = float(text)
    return normalize_number(value) if math.isfinite(value) else NO_VALUE


def _js_utc_date(year: int, month0: int, day: int, millis_offset: float = 0.0) -> str | None:
    """Date.UTC semantics: months and days roll over, years 0-99 mean 1900-1999."""
    if 0 <= year <= 99:
        year += 1900
    year += month0 // 12
    month0 %= 12
    try:
        start = datetime(year, month0 + 1, 1, tzinfo=UTC)
        moment = start + timedelta(days=day - 1, milliseconds=millis_offset)
    except (OverflowError, ValueError):
        return None
    return moment.date().isoformat()


def _resolve_timestamp(text: str) -> str | object:
    match = _DATE_PATTERN.match(text)
    if match:
        year, month, day = (int(g) for g in match.groups())
        return _js_utc_date(year, month - 1, day) or NO_VALUE
    match = _TIMESTAMP_PATTERN.match(text)
    if not match:
        return NO_VALUE
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = int((match.group(7) or "")[:3].ljust(3, "0") or 0)
    millis = ((hour * 60 + minute) * 60 + second) * 1000 + fraction
    if match.group(9):
        delta = (int(match.group(10)) * 60 + int(match.group(11) or 0)) * 60000
        millis -= delta if match.group(9) == "+" else -delta
    return _js_utc_date(year, month - 1, day, millis) or NO_VALUE


def resolve_plain_scalar(text: str) -> Any:
    """The value js-yaml's default schema gives an untagged plain scalar (docs/upstream-behaviour.md#js-yaml)."""
    if text in _NULLS:
        return None
    if text in _TRUES:
        return True
    if text in _FALSES:
        return False
    first = text[0]
    # A number or a date starts with a digit or a dot, after at most one sign: this turns
    # away command-line flags ("--tensor-parallel-size") without trying every resolver.
    if first in "+-.0123456789" and (first not in "+-" or text[1:2] in _NUMBER_STARTS):
        for resolver in (_resolve_int, _resolve_float, _resolve_timestamp):
            value = resolver(text)
            if value is not NO_VALUE:
                return value
    return text


EXPLICIT_SCALAR_TAGS = {
    "null": lambda t: None if t in _NULLS else NO_VALUE,
    "bool": lambda t: True if t in _TRUES else (False if t in _FALSES else NO_VALUE),
    "int": _resolve_int,
    "float": lambda t: _resolve_float(t) if _FLOAT_PATTERN.match(t) else _resolve_int(t),
    "timestamp": _resolve_timestamp,
}
