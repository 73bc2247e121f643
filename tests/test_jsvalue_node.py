"""recipelint.jsvalue against real JavaScript: node computes ``String(x)``, ``Number(x)`` and
``String(a op b)`` for the comparisons and the product upstream applies to YAML values.

Each test starts one node process and sends it one batch of values per generated
example (a JSON line in, a JSON line of ``String(x)`` or ``String(Number(x))`` out). JSON has no
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

from recipelint.jsvalue import (
    MAX_SAFE_INTEGER,
    UNDEFINED,
    js_ge,
    js_gt,
    js_le,
    js_lt,
    js_number,
    js_number_string,
    js_string,
    js_times,
)

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
const binary = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "*": (a, b) => a * b,
};
require("readline")
  .createInterface({ input: process.stdin })
  .on("line", (line) => {
    const { operation, values } = JSON.parse(line);
    const convert = operation === "Number" ? (value) => Number(value) : (value) => value;
    const strings = operation in binary
      ? values.map(([a, b]) => String(binary[operation](decode(a), decode(b))))
      : values.map((value) => String(convert(decode(value))));
    process.stdout.write(JSON.stringify(strings) + "\n");
  });
"""

Oracle = Callable[[str, list[Any]], list[str]]


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
def node() -> Iterator[Oracle]:
    """node's ``String(x)`` ("String") or ``String(Number(x))`` ("Number") for a batch of values."""
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

        def ask(operation: str, values: list[Any]) -> list[str]:
            batch = {"operation": operation, "values": [tagged(value) for value in values]}
            stdin.write(json.dumps(batch) + "\n")
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
# Text near the number grammar: signs, radix prefixes, exponents, every kind of space
# (JS whitespace, and \x85 and \u200b, which are not), other scripts' digits.
numeric_pieces = (
    list("0123456789+-.eExXoObBaAfF_")
    + ["Infinity", "0x", "1e", " ", "\t", "\n"]
    + ["\u00a0", "\u1680", "\u2000", "\u2028", "\u205f", "\u3000", "\ufeff"]
    + ["\x85", "\u200b", "\u0663", "\uff11"]
)
numeric_text = st.lists(st.sampled_from(numeric_pieces), max_size=8).map("".join)
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
def test_number_to_string_matches_node(node: Oracle, batch: list[int | float]) -> None:
    assert [js_number_string(number) for number in batch] == node("String", batch)


@PROFILE
@given(st.lists(values, min_size=1, max_size=20))
@example([[1, None, "a", [2, [UNDEFINED, 3.5]]], {"a": 1}, [], [[]], "", True, UNDEFINED])
@example(["a\ud800b", [{}], [None], [-0.0, math.nan]])
def test_string_conversion_matches_node(node: Oracle, batch: list[Any]) -> None:
    assert [js_string(value) for value in batch] == node("String", batch)


@PROFILE
@given(st.lists(st.one_of(numeric_text, st.text(max_size=6), values), min_size=1, max_size=30))
@example(["\u3000 8\u1680", "\u0663", "infinity", "+Infinity", "1_0", "0x" + "f" * 300, "+0x1"])
@example([[None], [[" 7 "]], [], {}, True, None, UNDEFINED, "\x85 1", "5.", ".5e-3"])
def test_number_conversion_matches_node(node: Oracle, batch: list[Any]) -> None:
    assert [js_number_string(js_number(value)) for value in batch] == node("Number", batch)


COMPARISONS = {"<": js_lt, "<=": js_le, ">": js_gt, ">=": js_ge}
# What recipes hold where upstream compares: numbers, text near the number grammar, and any
# other value (lists, mappings, null, booleans, undefined).
operands = st.one_of(numbers, numeric_text, st.text(max_size=4), values)


@PROFILE
@given(st.sampled_from(sorted(COMPARISONS)), st.lists(st.tuples(operands, operands), max_size=30))
@example("<", [("96", 141), ("141", "96"), ([96], 141), ({}, 0), ("\U0001f600", "\uffff")])
@example("<=", [("abc", 1), (1, "abc"), (None, 0), ([], ""), (2**53 + 1, 2**53)])
def test_comparisons_match_node(node: Oracle, operator: str, pairs: list[tuple[Any, Any]]) -> None:
    compare = COMPARISONS[operator]
    expected = node(operator, [list(pair) for pair in pairs]) if pairs else []
    assert [js_string(compare(a, b)) for a, b in pairs] == expected


@PROFILE
@given(st.lists(st.tuples(operands, operands), max_size=30))
@example([(2, "48"), (2, [48]), (2, None), ("0x10", " 3 "), (10**400, 0), (-1, 0)])
def test_product_matches_node(node: Oracle, pairs: list[tuple[Any, Any]]) -> None:
    expected = node("*", [list(pair) for pair in pairs]) if pairs else []
    assert [js_number_string(js_times(a, b)) for a, b in pairs] == expected
