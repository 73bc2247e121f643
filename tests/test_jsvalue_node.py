"""recipelint.jsvalue against real JavaScript: node computes ``String(x)`` for generated values.

Each test starts one node process and sends it one batch of values per generated
example (a JSON line in, a JSON line of ``String(x)`` results out). JSON has no
undefined, NaN, Infinity or -0 and cannot carry a double exactly through every
parser, so values travel tagged: numbers as their decimal text, which node reads
back with ``Number(text)`` exactly as it reads a numeric literal.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from recipelint.jsvalue import MAX_SAFE_INTEGER, UNDEFINED, js_number_string, js_string

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not installed: no JavaScript to compare String(x) against"
)

LONG = os.environ.get("RECIPELINT_PROPERTIES") == "long"
PROFILE = settings(
    max_examples=int(os.environ.get("RECIPELINT_PROPERTY_EXAMPLES", "20000" if LONG else "150")),
    derandomize=not LONG,
    deadline=None,
    database=None,
    # The node process is stateless between lines, so one per test serves every example.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ORACLE = r"""
const decode = (value) => {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== "object") return value;
  if ("number" in value) return Number(value.number);
  if ("undefined" in value) return undefined;
  return Object.fromEntries(Object.entries(value.object).map(([k, v]) => [k, decode(v)]));
};
require("readline")
  .createInterface({ input: process.stdin })
  .on("line", (line) => {
    const strings = JSON.parse(line).map((value) => String(decode(value)));
    process.stdout.write(JSON.stringify(strings) + "\n");
  });
"""

JsString = Callable[[list[Any]], list[str]]


def number_text(number: int | float) -> str:
    """Decimal text node's Number() reads as the same double Python holds (or rounds an int to)."""
    if isinstance(number, int):
        return str(number)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return repr(number)  # shortest round-trip text, so Number() gets back the same double


def tagged(value: Any) -> Any:
    if value is UNDEFINED:
        return {"undefined": True}
    if type(value) in (int, float):
        return {"number": number_text(value)}
    if type(value) is list:
        return [tagged(item) for item in value]
    if type(value) is dict:
        return {"object": {key: tagged(item) for key, item in value.items()}}
    return value


@pytest.fixture
def node_string() -> Iterator[JsString]:
    """``String(x)`` for a batch of values, computed by one node process kept for the test."""
    assert NODE is not None
    with subprocess.Popen(
        [NODE, "-e", ORACLE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout

        def ask(values: list[Any]) -> list[str]:
            stdin.write(json.dumps([tagged(value) for value in values]) + "\n")
            stdin.flush()
            answer: list[str] = json.loads(stdout.readline())
            return answer

        yield ask
        stdin.close()
        process.wait(timeout=30)


exponent_floats = st.builds(
    lambda mantissa, exponent: float(f"{mantissa}e{exponent}"),
    st.integers(-(10**17), 10**17),
    st.integers(-340, 320),
)
near_safe_limit = st.builds(
    lambda offset, sign: sign * (MAX_SAFE_INTEGER + offset),
    st.integers(-4, 4),
    st.sampled_from([1, -1]),
)
numbers = st.one_of(
    st.integers(),
    st.integers(-(2**80), 2**80),
    near_safe_limit,
    st.integers(10**300, 10**320),  # past the largest double: Infinity once converted
    st.floats(),  # NaN, ±Infinity, -0, subnormals included
    st.floats(-1e7, 1e7),
    exponent_floats,
)
scalars = st.one_of(numbers, st.text(max_size=8), st.booleans(), st.none(), st.just(UNDEFINED))
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=3), children, max_size=3),
    ),
    max_leaves=12,
)


@PROFILE
@given(st.lists(numbers, min_size=1, max_size=40))
@example([0.0, -0.0, math.nan, math.inf, -math.inf, 1e21, 1e-7, 5e-324, 2**53, 2**53 + 1])
@example([10**400, -(10**400), 12345678901234567890, 0.1 + 0.2, 1.5e300, 123e-20])
def test_number_to_string_matches_node(node_string: JsString, batch: list[int | float]) -> None:
    assert [js_number_string(number) for number in batch] == node_string(batch)


@PROFILE
@given(st.lists(values, min_size=1, max_size=20))
@example([[1, None, "a", [2, [UNDEFINED, 3.5]]], {"a": 1}, [], [[]], "", True, UNDEFINED])
@example(["a\ud800b", [{}], [None], [-0.0, math.nan]])
def test_string_conversion_matches_node(node_string: JsString, batch: list[Any]) -> None:
    assert [js_string(value) for value in batch] == node_string(batch)
