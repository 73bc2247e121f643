"""The loader gives js-yaml 4.3.2 values, exact positions, and diagnostics for bad input."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from recipelint.diagnostics import Span
from recipelint.jsvalue import js_string
from recipelint.read.load import LoadLimits, parse_yaml


def value(text: str):
    doc = parse_yaml(f"v: {text}\n")
    assert doc.usable, doc.problems
    return doc.data["v"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("Off", "Off"),
        ("y", "y"),
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("~", None),
        ("null", None),
        ("Null", None),
        ("", None),
        ("010", 10),
        ("0o10", 8),
        ("0x1F", 31),
        ("0b101", 5),
        ("-0", 0),
        ("+12", 12),
        ("1_000", "1_000"),
        ("1:30", "1:30"),
        ("+.5", "+.5"),
        ("1e400", "1e400"),
        ("1.0", 1),
        ("1e3", 1000),
        ("1.5e3", 1500),
        ("0.5", 0.5),
        (".5", 0.5),
        ("'010'", "010"),
        ('"yes"', "yes"),
        ("=", "="),
        ("2026-04-20", "2026-04-20"),
        ("2026-02-30", "2026-03-02"),
        ("0050-01-01", "1950-01-01"),
        ("2026-04-20T23:30:00-05:00", "2026-04-21"),
        ("2026-04-20 10:00:00", "2026-04-20"),
        ("!!str 10", "10"),
        ("!!int '7'", 7),
        ("! 10", "10"),
    ],
)
def test_scalar_resolution_matches_js_yaml(text: str, expected) -> None:
    assert value(text) == expected
    assert type(value(text)) is type(expected)


def test_special_floats() -> None:
    assert value(".inf") == math.inf and value("-.Inf") == -math.inf
    assert math.isnan(value(".NaN"))


def test_huge_integers_are_doubles() -> None:
    assert js_string(value("12345678901234567890")) == "12345678901234567000"
    assert type(value("9007199254740993")) is float  # beyond 2**53: no longer an exact integer


def test_keys_are_stringified_like_javascript() -> None:
    doc = parse_yaml("1: a\ntrue: b\n~: c\n? [x, y]\n: d\n")
    assert list(doc.data) == ["1", "true", "null", "x,y"]


def test_sequence_keys_are_joined_as_javascript_joins_arrays() -> None:
    doc = parse_yaml("? [~, 1.5, .inf, 1e21, 12345678901234567890, {a: 1}]\n: v\n")
    assert list(doc.data) == [",1.5,Infinity,1e+21,12345678901234567000,[object Object]"]
    aliased = parse_yaml("k: &pair [a, b]\n? *pair\n: v\n")
    assert list(aliased.data) == ["k", "a,b"]


@pytest.mark.parametrize("text", ["? [[a, b], c]\n: v\n", "k: &inner [[a]]\n? *inner\n: v\n"])
def test_nested_arrays_in_keys_are_refused_as_js_yaml_refuses_them(text: str) -> None:
    doc = parse_yaml(text)
    assert not doc.usable
    assert [(p.code, p.message) for p in doc.problems] == [
        ("RL001", "nested arrays are not supported inside keys")
    ]


def test_stringified_keys_collide() -> None:
    doc = parse_yaml("1: a\n1.0: b\n")
    assert [p.code for p in doc.problems] == ["RL002"]


def test_duplicate_key_names_both_positions() -> None:
    doc = parse_yaml("meta:\n  title: a\n  title: b\n")
    (problem,) = doc.problems
    assert (problem.code, problem.span.line, problem.span.column) == ("RL002", 3, 3)
    assert "line 2, column 3" in problem.message
    assert not doc.usable


def test_merge_keys_and_overrides() -> None:
    doc = parse_yaml("base: &b {x: 1, y: 2}\nm:\n  y: 0\n  <<: *b\n  x: 3\n")
    assert doc.data["m"] == {"y": 0, "x": 3}
    assert list(doc.data["m"]) == ["y", "x"]


def test_block_scalars_keep_newlines() -> None:
    doc = parse_yaml("a: |\n  line\nb: |-\n  line\nc: >\n  one\n  two\n")
    assert doc.data == {"a": "line\n", "b": "line", "c": "one two\n"}


def test_positions_for_values_and_keys() -> None:
    doc = parse_yaml("meta:\n  hardware:\n    h100: verified\nlist:\n  - a\n  - b\n")
    assert (
        doc.span(["meta", "hardware", "h100"]).line,
        doc.span(["meta", "hardware", "h100"]).column,
    ) == (3, 11)
    assert (
        doc.key_span(["meta", "hardware", "h100"]).line,
        doc.key_span(["meta", "hardware", "h100"]).column,
    ) == (3, 5)
    assert doc.span(["list", 1]).line == 6
    assert doc.span(["meta", "missing", "deeper"]).line == 2  # nearest ancestor


def test_bom_is_ignored() -> None:
    assert parse_yaml("\ufeffa: 1\n").data == {"a": 1}


def test_crlf_line_endings() -> None:
    doc = parse_yaml("a: 1\r\nb:\r\n  - x\r\n")
    assert doc.data == {"a": 1, "b": ["x"]}
    assert doc.span(["b", 0]).line == 3


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "RL006"),
        ("# only a comment\n", "RL006"),
        ("- a\n- b\n", "RL007"),
        ("just a scalar\n", "RL007"),
        ("a: 1\n---\nb: 2\n", "RL005"),
        ("\ta: 1\n", "RL001"),
        ("a: [1, 2\n", "RL001"),
        ("a: !!python/object/apply:os.system ['echo hi']\n", "RL008"),
        ("a: !!python/name:os.system\n", "RL008"),
        ("a: !custom x\n", "RL008"),
        ("a: !!binary aGk=\n", "RL008"),
        ("a: *missing\n", "RL001"),
        ("a: !!int abc\n", "RL001"),
    ],
)
def test_bad_input_is_a_diagnostic(text: str, code: str) -> None:
    doc = parse_yaml(text)
    assert not doc.usable
    assert [p.code for p in doc.problems] == [code]


def test_deep_nesting_is_bounded() -> None:
    text = "a: " + "[" * 5000 + "]" * 5000 + "\n"
    doc = parse_yaml(text)
    assert [p.code for p in doc.problems] == ["RL009"]
    block = "".join(" " * i + f"k{i}:\n" for i in range(1200)) + " " * 1200 + "v\n"
    assert [p.code for p in parse_yaml(block).problems] == ["RL009"]


def test_billion_laughs_is_bounded() -> None:
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 10)]
    doc = parse_yaml("\n".join(lines) + "\n")
    assert [p.code for p in doc.problems] == ["RL010"]


def test_file_size_limit() -> None:
    doc = parse_yaml("a: " + "x" * 2000 + "\n", limits=LoadLimits(max_file_bytes=1000))
    assert [p.code for p in doc.problems] == ["RL003"]


def _where(span: Span) -> tuple[int, int, int | None, int | None]:
    return (span.line, span.column, span.end_line, span.end_column)


def test_positions_after_a_byte_order_mark_count_from_the_first_character() -> None:
    doc = parse_yaml("\ufeffa: 1\nb: 2\n")
    assert _where(doc.key_span(["a"])) == (1, 1, 1, 2)
    assert _where(doc.span(["a"])) == (1, 4, 1, 5)
    assert _where(doc.span(["b"])) == (2, 4, 2, 5)


def test_every_line_break_libyaml_counts_starts_a_line() -> None:
    doc = parse_yaml("a: 1\r\nb: x\rc: y\x85d: z\u2028e: \U0001f600w\u2029f: [1, 2]\n")
    assert [doc.span([key]).line for key in "abcdef"] == [1, 2, 3, 4, 5, 6]
    assert _where(doc.span(["e"])) == (5, 4, 5, 6)  # an emoji is one column
    assert _where(doc.span(["f", 1])) == (6, 8, 6, 9)
    assert doc.block_key_column(["f"]) == 1


def test_a_document_without_a_final_line_break_ends_on_the_next_line() -> None:
    doc = parse_yaml("name:")
    assert _where(doc.span([])) == (1, 1, 2, 1)  # libyaml ends the stream on a new line
    assert _where(doc.span(["name"])) == (1, 6, 1, 6)


def test_merged_keys_are_placed_at_the_merge_and_have_no_block_column() -> None:
    doc = parse_yaml("base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n")
    assert _where(doc.key_span(["m", "x"])) == _where(doc.span(["m", "x"])) == (3, 7, 3, 9)
    assert doc.block_key_column(["m", "x"]) is None
    assert doc.block_key_column(["m", "y"]) == 3
    assert not doc.has_position(["base", "x", "deeper"])


def test_repeated_strings_are_held_once() -> None:
    doc = parse_yaml("a: [--flag, --flag]\nb: {--flag: --flag}\n")
    first, second = doc.data["a"]
    assert first is second is next(iter(doc.data["b"])) is doc.data["b"]["--flag"]


def test_a_text_reads_back_as_given_whatever_its_characters() -> None:
    for text in ("a: 1\n", "a: \u2014 \U0001f600\n", "a: '\udc80'\n", "\ufeffa: \u00e9\r\n"):
        assert parse_yaml(text).text == text


def test_positions_in_a_text_beyond_ascii() -> None:
    doc = parse_yaml("a: \u00e9\nb:\n  - \u2014x\nc: |\n  \u00e9t\u00e9\n  \u2014 two\n")
    assert _where(doc.span(["b", 0])) == (3, 5, 3, 7)
    assert doc.block_key_column(["c"]) == 1
    assert _where(doc.scalar_line_span(["c"], 1, 2, 5)) == (6, 5, 6, 8)
    assert doc.source_line(6) == "  \u2014 two"


def test_documents_compare_by_content() -> None:
    text = "a: \u2014\n"
    assert parse_yaml(text, Path("x.yaml")) == parse_yaml(text, Path("x.yaml"))
    assert parse_yaml(text, Path("x.yaml")) != parse_yaml("a: -\n", Path("x.yaml"))
