"""icu_root_key against JavaScript's `localeCompare` (ICU root collation), which upstream sorts
the fallback default hardware by: punctuation before digits before letters, a digit by its
character (not its number), letters case-blind first and lower case before upper case last."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipelint.resolve.collation import icu_root_key

NODE = shutil.which("node")

# The hardware-id-like words below, and the order node 20 gives them:
# node -e 'console.log(JSON.stringify(WORDS.sort((a, b) => a.localeCompare(b))))'
WORDS = ["b", "a1", "a_b", "A", "a", "aa", "a0", "B", "a9", "ab", "Ab", "aB", "a_1", "a10", "a2"]
NODE_ORDER = [
    "a",
    "A",
    "a_1",
    "a_b",
    "a0",
    "a1",
    "a10",
    "a2",
    "a9",
    "aa",
    "ab",
    "aB",
    "Ab",
    "b",
    "B",
]


def test_identifiers_sort_as_node_sorts_them() -> None:
    assert sorted(WORDS, key=icu_root_key) == NODE_ORDER


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("a_b", "a1"),  # punctuation before digits
        ("a1", "aa"),  # digits before letters
        ("a10", "a2"),  # a digit by its character, not the number it starts
        ("a", "A"),  # lower case first, when the letters tie
        ("aB", "Ab"),  # case decides last: the first letter that differs in case
        ("Ab", "b"),  # the letters decide before case
    ],
)
def test_each_level_orders_a_pair(first: str, second: str) -> None:
    assert icu_root_key(first) < icu_root_key(second)


# Identifiers over the characters hardware ids are made of (the schema allows lowercase
# letters, digits and underscores; upper case is read from a malformed tree all the same).
_IDS = st.lists(st.text(alphabet="abzABZ019_", max_size=5), min_size=2, max_size=12)


@pytest.mark.skipif(NODE is None, reason="node is not installed: no localeCompare to compare with")
@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(batches=st.lists(_IDS, min_size=1, max_size=20))
def test_sorting_agrees_with_localecompare(batches: list[list[str]]) -> None:
    # One node process per example, sorting every batch of it.
    script = (
        "const batches = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(batches.map((b) => b.sort((x, y) => x.localeCompare(y)))))"
    )
    assert NODE is not None
    ran = subprocess.run(
        [NODE, "-e", script], input=json.dumps(batches), capture_output=True, text=True, check=True
    )
    assert json.loads(ran.stdout) == [sorted(batch, key=icu_root_key) for batch in batches]
