"""The formats recipelint checks itself give jsonschema's verdicts (recipelint.schema.formats);
any other format is asked of jsonschema's checker."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from recipelint.schema.formats import OWN_FORMATS, conforms

CHECKER = Draft202012Validator.FORMAT_CHECKER
DATES = [
    "2026-01-15",
    "2024-02-29",
    "2023-02-29",
    "2026-02-30",
    "0000-01-01",
    "0001-01-01",
    "9999-12-31",
    "2026-13-01",
    "2026-1-01",
    "20260115",
    "2026-W03-4",
    "2026-01-15T10:00:00Z",
    "2026-01-15\n",
    " 2026-01-15",
    "２０２６-01-15",
    "",
    "x",
]
DATE_LIKE = st.from_regex(r"[0-9]{1,5}-[0-9]{1,3}-[0-9]{1,3}\n?", fullmatch=True)


@pytest.mark.parametrize("value", [*DATES, 20260115, None, 1.5, ["2026-01-15"]])
def test_own_date_is_jsonschemas_date(value: object) -> None:
    assert OWN_FORMATS["date"](value) == CHECKER.conforms(value, "date")


@given(st.text(max_size=14) | DATE_LIKE)
def test_own_date_agrees_on_any_text(value: str) -> None:
    assert OWN_FORMATS["date"](value) == CHECKER.conforms(value, "date")


def test_every_format_of_the_built_in_schemas_is_checked_without_jsonschema() -> None:
    from recipelint.schema.builtin import SCHEMA_FILES, load_schema
    from recipelint.schema.validators import _formats

    used = set().union(*(_formats(load_schema(kind)) for kind in SCHEMA_FILES))
    assert used and used <= set(OWN_FORMATS)


@pytest.mark.parametrize(
    ("name", "value"), [("email", "a@b.c"), ("email", "nobody"), ("ipv4", "1.2.3.999")]
)
def test_other_formats_are_asked_of_jsonschema(name: str, value: str) -> None:
    assert name not in OWN_FORMATS
    assert conforms(name, value) == CHECKER.conforms(value, name)
