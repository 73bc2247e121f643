"""Format verdicts: whether a value is of a schema format, as jsonschema's format checker
says (its `date` rejects year 0000, the compiled validator's does not).

The formats the built-in schemas use are checked here, by jsonschema's own definition,
without importing jsonschema (which costs a check more than validating a tree's documents);
tests/test_schema_formats.py holds each to jsonschema's verdicts. Any other format (a tree's
overlay may name one) is asked of jsonschema's checker.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

# jsonschema's `date`: RFC 3339 full-date, four-two-two ASCII digits that make a real day.
_FULL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def is_date(value: Any) -> bool:
    if not isinstance(value, str):
        return True  # a format applies to strings only
    if _FULL_DATE.fullmatch(value) is None:
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


OWN_FORMATS: dict[str, Callable[[Any], bool]] = {"date": is_date}


def checked_by_jsonschema(name: str, value: Any) -> bool:
    # Imported when such a value is first checked: a schema naming a format need not import it.
    from jsonschema import Draft202012Validator

    return bool(Draft202012Validator.FORMAT_CHECKER.conforms(value, name))


def conforms(name: str, value: Any) -> bool:
    """Whether ``value`` is of format ``name``, as jsonschema's format checker says."""
    own = OWN_FORMATS.get(name)
    return own(value) if own is not None else checked_by_jsonschema(name, value)
