"""Arbitrary values never crash the schema stage, and every finding is a well-formed RL1xx diagnostic."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_schema import RECIPE

from recipelint.read.load import parse_yaml
from recipelint.schema.builtin import CODES, SCHEMA_FILES
from recipelint.schema.check import schema_findings

KEYS = st.sampled_from(
    [
        "meta",
        "model",
        "variants",
        "default",
        "features",
        "modes",
        "args",
        "env",
        "tp",
        "docker_image",
        "nvidia",
        "hardware",
        "x",
        "precision",
        "date_added",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["0.20.0", "nightly", "2026-02-30", "fp8", "verified", "--x"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)
BASE = parse_yaml(RECIPE, kind="recipe").data


def well_formed(text: str, kind: str) -> None:
    doc = parse_yaml(text, kind=kind)
    if not doc.usable:
        return
    lines = text.count("\n") + 1
    for finding in schema_findings(doc):
        diagnostic = finding.diagnostic
        assert diagnostic.code in CODES
        assert diagnostic.message and "\n" not in diagnostic.message
        assert 1 <= diagnostic.span.line <= lines


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(KEYS, VALUES, max_size=6), st.sampled_from(sorted(SCHEMA_FILES)))
def test_random_documents(data: dict[str, Any], kind: str) -> None:
    well_formed(json.dumps(data), kind)


def _paths(data: Any, at: tuple = ()) -> list[tuple]:
    found = [at]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, at + (key,))
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_paths(BASE)[1:]), VALUES)
def test_random_subtree_in_a_valid_recipe(path: tuple, value: Any) -> None:
    data = json.loads(json.dumps(BASE))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    well_formed(json.dumps(data, indent=1), "recipe")
