"""JavaScript semantics: truthiness, String(), Number::toString and JSON.stringify(v, null, 2)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recipelint.jsvalue import (
    UNDEFINED,
    coalesce,
    dumps,
    get,
    has_js_specials,
    is_number,
    is_object,
    js_ceil,
    js_divide,
    js_floor,
    js_in,
    js_key_order,
    js_max,
    js_number,
    js_number_string,
    js_or,
    js_ordered,
    js_string,
    normalize_number,
    truthy,
)


@pytest.mark.parametrize("value", [None, UNDEFINED, False, 0, 0.0, -0.0, math.nan, ""])
def test_falsy_values(value: object) -> None:
    assert not truthy(value)


@pytest.mark.parametrize("value", [{}, [], "0", " ", 1, -1, 0.5, True, math.inf, "false"])
def test_truthy_values_include_empty_containers(value: object) -> None:
    assert truthy(value)


def test_or_and_nullish_coalescing_differ_on_empty_values() -> None:
    assert js_or({}, {"a": 1}) == {}
    assert js_or(0, "", None, "x") == "x"
    assert js_or(0, None) is None
    assert coalesce(0, 5) == 0
    assert coalesce(None, UNDEFINED, "") == ""


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (-0.0, "0"),
        (1.0, "1"),
        (1.5, "1.5"),
        (123.456, "123.456"),
        (12345678901234567890, "12345678901234567000"),
        (2**53, "9007199254740992"),
        (5e-324, "5e-324"),
        (-1e-7, "-1e-7"),
        (-0.5, "-0.5"),
        (2.0**60, "1152921504606847000"),
        (1.5e300, "1.5e+300"),
        (0.1 + 0.2, "0.30000000000000004"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (10**400, "Infinity"),
    ],
)
def test_number_to_string_follows_ecmascript(value: float, text: str) -> None:
    assert js_number_string(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_number_string_round_trips(value: float) -> None:
    assert float(js_number_string(value)) == value or value == 0


def test_string_conversion() -> None:
    assert js_string(None) == "null"
    assert js_string(UNDEFINED) == "undefined"
    assert js_string(True) == "true"
    assert js_string([1, None, "a", [2, 3]]) == "1,,a,2,3"
    assert js_string({"a": 1}) == "[object Object]"
    assert js_string(4.0) == "4"


def test_number_conversion_and_math_max() -> None:
    assert js_number(" 12 ") == 12
    assert js_number("1e3") == 1000
    assert math.isnan(js_number("2x"))
    assert js_number("") == 0 and js_number(None) == 0
    assert js_number("0x1F") == 31
    assert math.isnan(js_max(1, math.nan))


@pytest.mark.parametrize("zeros", [(0, -0.0), (-0.0, 0), (-0.0, 0.0), (0.0, -0.0)])
def test_math_max_of_signed_zeros_is_plus_zero(zeros: tuple[float, float]) -> None:
    """Math.max(0, -0) and Math.max(-0, 0) are both +0 (1 / it is +Infinity)."""
    assert math.copysign(1.0, js_max(*zeros)) == 1.0
    assert math.copysign(1.0, js_max(-0.0, -0.0)) == -1.0


@pytest.mark.parametrize("falsy", [0.0, -0.0, math.nan])
def test_or_passes_over_a_falsy_float(falsy: float) -> None:
    assert js_or(falsy, 5) == 5
    assert js_or(0.5, 5) == 0.5


@pytest.mark.parametrize(("value", "is_one"), [({}, True), ([], True), ("x", False), (None, False)])
def test_is_object_is_a_mapping_or_a_sequence(value: object, is_one: bool) -> None:
    assert is_object(value) is is_one


@pytest.mark.parametrize("sign", [1, -1])
def test_an_integer_past_the_safe_range_is_written_as_its_double(sign: int) -> None:
    """2**53 + 1 is no double: JSON.stringify writes the nearest one, 2**53."""
    assert dumps([sign * (2**53 + 1)], special=True) == f"[\n  {sign * 2**53}\n]".encode()


def test_ordered_data_enumerates_every_mapping_as_javascript_does() -> None:
    ordered = js_ordered({"b": [{"z": 1, "3": 2}], "1": {"y": 0, "0": 0}, "a": "2"})
    assert list(ordered) == ["1", "b", "a"]
    assert list(ordered["1"]) == ["0", "y"]
    assert list(ordered["b"][0]) == ["3", "z"]


def test_key_order_is_array_indices_ascending_then_insertion_order() -> None:
    assert js_key_order(["b", "10", "a", "2", "01", "-1"]) == ["2", "10", "b", "a", "01", "-1"]
    keys = ["b", "a"]
    assert js_key_order(keys) is keys  # no index: the keys as they are


def test_writer_matches_json_stringify_layout() -> None:
    value = {"a": [1, {}, [], "é — ✓"], "b": {"c": None, "d": True}, "e": ""}
    expected = json.dumps(value, indent=2, ensure_ascii=False).encode()
    assert dumps(value) == expected
    assert not dumps(value).endswith(b"\n")


def test_writer_escapes_like_javascript() -> None:
    text = dumps({"s": '\x01\x7f\u2028/"\\\b\f\n\r\t'}).decode()
    assert text == '{\n  "s": "\\u0001\x7f\u2028/\\"\\\\\\b\\f\\n\\r\\t"\n}'


def test_writer_handles_lone_surrogates_as_javascript_does() -> None:
    assert dumps(["a\ud800b"]) == b'[\n  "a\\ud800b"\n]'


def test_special_documents_get_javascript_numbers_and_key_order() -> None:
    doc = {
        "10": "a",
        "2": "b",
        "x": "c",
        "1": "d",
        "010": "e",
        "n": [1.0, 1e20, 1e-7, math.inf, math.nan, -0.0, 12345678901234567890, 0.5],
    }
    assert has_js_specials(doc)
    assert json.loads(dumps(doc, special=True))  # still valid JSON
    assert dumps(doc, special=True).decode() == (
        '{\n  "1": "d",\n  "2": "b",\n  "10": "a",\n  "x": "c",\n  "010": "e",\n  "n": [\n'
        "    1,\n    100000000000000000000,\n    1e-7,\n    null,\n    null,\n    0,\n"
        "    12345678901234567000,\n    0.5\n  ]\n}"
    )


def test_plain_documents_need_no_rewrite() -> None:
    assert not has_js_specials({"a": [1, "2", {"b": None, "x10": True}], "n": 2**52})
    assert has_js_specials({"a": [{"b": 0.5}]})
    assert has_js_specials({"4294967294": 1}) and not has_js_specials({"4294967295": 1})


_JS_VALUES = st.one_of(
    st.none(),
    st.just(UNDEFINED),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=2),
    st.lists(st.integers(), max_size=1),
    st.dictionaries(st.text(max_size=1), st.integers(), max_size=1),
)


@given(st.lists(_JS_VALUES, min_size=1, max_size=4))
def test_js_or_is_the_first_truthy_operand_else_the_last(values: list[Any]) -> None:
    assert js_or(*values) is next((value for value in values if truthy(value)), values[-1])


@given(st.integers())
def test_js_string_of_an_integer_is_its_number_string(value: int) -> None:
    assert js_string(value) == js_number_string(value)


# ------------------------------------------------------------------ arithmetic, `in`, Number()
# Expected values are what JavaScript computes (`a / b`, `Math.floor`, `key in obj`, `Number(s)`).


@pytest.mark.parametrize(
    ("a", "b", "text"),
    [
        (1, 0, "Infinity"),
        (-1, 0, "-Infinity"),
        (1, -0.0, "-Infinity"),  # the sign of a zero divisor counts
        (-1, -0.0, "Infinity"),
        (math.inf, 0, "Infinity"),
        (0, 0, "NaN"),
        (-0.0, 0, "NaN"),
        (math.nan, 0, "NaN"),
        (6, 4, "1.5"),
        (7, -2, "-3.5"),
        (1, 3, "0.3333333333333333"),
        (0, 5, "0"),
    ],
)
def test_js_divide_is_ieee_division(a: float, b: float, text: str) -> None:
    assert js_number_string(js_divide(a, b)) == text


def test_js_divide_gives_an_integer_when_javascript_prints_one() -> None:
    quotient = js_divide(6, 3)
    assert quotient == 2 and type(quotient) is int  # String(6 / 3) is "2", not "2.0"
    assert js_string(js_divide(8, 2)) == "4"


@pytest.mark.parametrize(
    ("value", "floor", "ceil"),
    [
        (1.5, 1, 2),
        (-1.5, -2, -1),
        (0.5, 0, 1),
        (-0.5, -1, 0),
        (2.999, 2, 3),
        (-0.0001, -1, 0),
        (3, 3, 3),
        (-4, -4, -4),
    ],
)
def test_js_floor_and_ceil_round_fractions_as_math_floor_and_ceil(
    value: float, floor: int, ceil: int
) -> None:
    assert js_floor(value) == floor and js_ceil(value) == ceil
    assert js_string(js_floor(value)) == str(floor)  # an integer, printed without a point
    assert js_string(js_ceil(value)) == str(ceil)


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_js_floor_and_ceil_keep_infinities(value: float) -> None:
    assert js_floor(value) == value and js_ceil(value) == value  # Math.floor(Infinity)


def test_js_floor_and_ceil_keep_nan() -> None:
    assert math.isnan(js_floor(math.nan)) and math.isnan(js_ceil(math.nan))


@pytest.mark.parametrize(
    ("key", "array", "found"),
    [
        ("0", ["a"], True),
        ("1", ["a", "b"], True),
        ("1", ["a"], False),  # past the end
        ("0", [], False),
        ("01", ["a", "b"], False),  # not a canonical index
        ("1.0", ["a", "b"], False),
        ("-1", ["a"], False),
        ("a", ["a"], False),  # `in` asks for keys, not elements
        ("h100", ["h100"], False),
    ],
)
def test_js_in_on_a_list_asks_for_an_index(key: str, array: list[Any], found: bool) -> None:
    assert js_in(key, array) is found


def test_js_in_on_a_mapping_asks_for_a_key() -> None:
    assert js_in("h100", {"h100": None}) and not js_in("h200", {"h100": 1})


@pytest.mark.parametrize(
    ("target", "shown"), [("abc", "abc"), (5, "5"), (None, "null"), (True, "true")]
)
def test_js_in_on_a_primitive_throws_a_type_error(target: Any, shown: str) -> None:
    with pytest.raises(TypeError, match=f"search for 'a' in {shown}$"):
        js_in("a", target)  # "Cannot use 'in' operator to search for 'a' in abc"


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("0b101", 5),
        ("0B11", 3),
        (" 0b11 ", 3),
        ("0o17", 15),
        ("0x1f", 31),
        ("0b" + "1" * 60, 1152921504606846976),  # past 2**53: the nearest double
    ],
)
def test_number_reads_binary_octal_and_hex_strings(text: str, number: int) -> None:
    assert js_number(text) == number


@pytest.mark.parametrize("text", ["0b2", "0b", "-0b1", "+0b1", "0b1_0", "0O8", "0x", "0b1.1"])
def test_number_of_a_malformed_or_signed_radix_string_is_nan(text: str) -> None:
    assert math.isnan(js_number(text))


def test_number_of_a_long_binary_string_prints_as_javascript_does() -> None:
    assert js_number_string(js_number("0b" + "1" * 60)) == "1152921504606847000"


def test_math_max_of_nothing_is_minus_infinity() -> None:
    assert js_max() == -math.inf and js_max(-1, 2, 1) == 2


# ------------------------------------------------------------------ typeof, ?.[], Number() of non-strings


@pytest.mark.parametrize(
    ("value", "number"),
    [(1, True), (1.5, True), (math.nan, True), (True, False), ("1", False), (None, False)],
)
def test_is_number_is_typeof_number(value: Any, number: bool) -> None:
    assert is_number(value) is number


def test_get_is_optional_chaining_on_parsed_data() -> None:
    assert get({"a": None}, "a") is None  # null stays null
    assert get({"a": 1}, "b") is UNDEFINED
    assert get(["x"], "0") is UNDEFINED  # only mappings are read
    assert get(None, "a") is UNDEFINED and get(UNDEFINED, "a") is UNDEFINED


@pytest.mark.parametrize(
    ("value", "number"),
    [(None, 0), (True, 1), (False, 0), ([], 0), ([" 7 "], 7), ([None], 0), (2.5, 2.5)],
)
def test_number_of_non_strings(value: Any, number: float) -> None:
    assert js_number(value) == number


@pytest.mark.parametrize("value", [UNDEFINED, {}, {"a": 1}, [1, 2], ["x"]])
def test_number_of_what_has_no_numeric_text_is_nan(value: Any) -> None:
    assert math.isnan(js_number(value))


@pytest.mark.parametrize("text", ["0b101", "0x1f", "0o17", "12", " 3 ", "1e3", "2.0"])
def test_a_safe_integer_from_a_string_is_an_int(text: str) -> None:
    # an int, not a float: Python would write 5.0 where JSON.stringify writes 5
    assert type(js_number(text)) is int


def test_has_js_specials_answers_a_boolean() -> None:
    assert has_js_specials({"a": ["b"]}) is False and has_js_specials([0.5]) is True


def test_the_slow_writer_keeps_javascript_numbers_beside_lone_surrogates() -> None:
    doc = {"s": "a\ud800", "n": [1e21, 1.5, 2**60, math.nan]}
    assert dumps(doc, special=True).decode() == (
        '{\n  "s": "a\\ud800",\n  "n": [\n    1e+21,\n    1.5,\n    1152921504606847000,\n'
        "    null\n  ]\n}"
    )


def test_normalize_number_keeps_an_int_and_collapses_an_integral_float() -> None:
    assert normalize_number(5) == 5 and type(normalize_number(5)) is int
    assert type(normalize_number(5.0)) is int and normalize_number(5.5) == 5.5


@pytest.mark.parametrize(("a", "b", "result"), [(-0.5, 0, -math.inf), (0.5, -0.0, -math.inf)])
def test_dividing_a_fraction_by_zero_takes_both_signs(a: float, b: float, result: float) -> None:
    assert js_divide(a, b) == result
