"""recipelint.argv on hand-written token lists: upstream's dedupe (docs/upstream-behaviour.md#last-wins-dedupe).

The generated-list laws are in test_properties_argv.py (the slow step); these are the
examples the specification states, fast enough for every run.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from recipelint.argv import (
    NO_VALUE,
    Unit,
    dedupe,
    dedupe_tokens,
    flag,
    flag_values,
    flags,
    is_flag_token,
    merge,
    merge_tokens,
    parse,
    positional,
    tokens,
    unit_fates,
)


def test_a_unit_cannot_be_changed_after_it_is_made() -> None:
    unit = flag("--x", "1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        unit.value = "2"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        unit.flag = "--y"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        unit.extra = 1  # type: ignore[attr-defined]  # slots: no attribute can be added
    assert unit == Unit("--x", "1")


def test_units_are_values_equal_units_hash_alike() -> None:
    assert {flag("--x", "1"), flag("--x", "1"), flag("--x"), positional("--x")} == {
        Unit("--x", "1"),
        Unit("--x", NO_VALUE),
        Unit(None, "--x"),
    }
    assert flag("--x") != positional("--x")


def test_unit_kinds_and_tokens() -> None:
    valued, bare, alone = flag("--x", "1"), flag("--y"), positional("p")
    assert (valued.is_bare, valued.is_positional, valued.tokens()) == (False, False, ["--x", "1"])
    assert (bare.is_bare, bare.is_positional, bare.tokens()) == (True, False, ["--y"])
    assert (alone.is_bare, alone.is_positional, alone.tokens()) == (False, True, ["p"])
    assert tokens([valued, bare, alone]) == ["--x", "1", "--y", "p"]
    assert flags([valued, alone, bare, valued]) == ["--x", "--y", "--x"]


@pytest.mark.parametrize(
    ("token", "is_flag"),
    [
        ("--x", True),
        ("-1", True),
        ("-", True),
        ("x", False),
        ("", False),
        (-1, False),
        (None, False),
    ],
)
def test_only_a_string_starting_with_a_dash_is_a_flag(token: Any, is_flag: bool) -> None:
    assert is_flag_token(token) is is_flag


def test_parse_drops_javascript_falsy_tokens_first() -> None:
    # `--max-num-seqs 0` loses its 0 to filter(Boolean) and becomes a bare flag
    assert parse(["--max-num-seqs", 0, "--a", "", "v", None, False, math.nan, "p"]) == [
        Unit("--max-num-seqs"),
        Unit("--a", "v"),
        Unit(None, "p"),
    ]


def test_parse_reads_a_flag_value_unless_it_is_a_flag_too() -> None:
    assert parse(["--offset", "-1", "--n", 2, "--last"]) == [
        Unit("--offset"),
        Unit("-1"),
        Unit("--n", 2),
        Unit("--last"),
    ]
    assert parse(["p", "q", "--x", "v", "w"]) == [
        Unit(None, "p"),
        Unit(None, "q"),
        Unit("--x", "v"),
        Unit(None, "w"),
    ]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--a", "1", "--b", "--a", "2"], ["--b", "--a", "2"]),
        (["--a", "-1", "--b", "-1"], ["--a", "--b", "-1"]),
        (["--x=1", "--x", "2", "--x=3"], ["--x=1", "--x", "2", "--x=3"]),
        (["--enable-x", "pos", "--enable-x"], ["--enable-x"]),  # pos went with the first one
        (["p", "--a", "1", "p", "--a"], ["p", "p", "--a"]),
        (["--a", "1", "--b", "2"], ["--a", "1", "--b", "2"]),
        (["--a", 0, "--a", "", "x"], ["--a", "x"]),
        ([], []),
    ],
)
def test_the_last_occurrence_of_each_flag_survives_in_its_place(
    args: list[Any], expected: list[Any]
) -> None:
    assert dedupe_tokens(args) == expected
    assert tokens(dedupe(parse(args))) == expected


def test_merge_lets_a_later_layer_override_flag_by_flag() -> None:
    base = [flag("--a", "1"), positional("p"), flag("--b")]
    later = [flag("--a", "2"), positional("p")]
    assert merge(base, later) == [positional("p"), flag("--b"), flag("--a", "2"), positional("p")]
    # over tokens, a bare flag at a layer's end takes the next layer's positional as its value
    assert merge_tokens(["--x"], ["pos", "--y"]) == ["--x", "pos", "--y"]
    assert merge_tokens(["--x", "1"], ["--x"]) == ["--x"]


def test_flag_values_gives_each_flag_with_its_position_in_the_unfiltered_list() -> None:
    found = list(flag_values(["", "--a", "1", 0, "--b", "--c", "--d", "v", "p"]))
    assert found == [(1, "--a", "1"), (4, "--b", NO_VALUE), (5, "--c", NO_VALUE), (6, "--d", "v")]
    assert list(flag_values(["--last"])) == [(0, "--last", NO_VALUE)]


def test_unit_fates_name_the_unit_that_replaced_each_dropped_one() -> None:
    kept = ["--a", "1", "p", "--b", "--a", "2", "--b", "x"]
    # units: --a 1 | p | --b | --a 2 | --b x
    assert unit_fates(kept) == [(0, 2, 3), (2, 3, None), (3, 4, 4), (4, 6, None), (6, 8, None)]
