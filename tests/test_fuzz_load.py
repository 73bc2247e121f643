"""Fuzzing the loader: every input gives a document with diagnostics or a clean value.

Fixed seed and bounded example counts in CI; RECIPELINT_FUZZ=long makes it a
random local soak (see docs/security.md, "Fuzzing").
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

# The fuzz helpers live in fuzz/ so that the atheris harness enforces the same invariant.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from mutations import alias_bombs, deep_documents, fuzz_settings, mutated_files, wide_documents  # noqa: E402

from recipelint.read.load import DEFAULT_LIMITS, Document, parse_yaml  # noqa: E402

# Fuzzing, hundreds of generated inputs per test: the slow step (`pytest -m slow`) runs them.
pytestmark = pytest.mark.slow

TIME_BOUND = (
    10.0  # seconds for one input: a hang guard on a busy shared machine, not a speed target
)


def parse_bounded(text: str) -> Document:
    started = time.monotonic()
    doc = parse_yaml(text, Path("fuzz.yaml"), kind="recipe")
    assert time.monotonic() - started < TIME_BOUND, "parse_yaml took too long"
    assert doc.usable or doc.problems, "an unusable document came without a diagnostic"
    assert not doc.usable or isinstance(doc.data, dict)
    for problem in doc.problems:
        assert problem.code.startswith("RL0") and problem.span.line >= 1
    return doc


@fuzz_settings(300)
@given(mutated_files())
def test_mutated_tree_files_parse_or_explain(case: tuple) -> None:
    _, data = case
    parse_bounded(data.decode("utf-8", "surrogateescape"))


@fuzz_settings(150)
@given(st.text())
def test_arbitrary_text_parses_or_explains(text: str) -> None:
    parse_bounded(text)


@fuzz_settings(40)
@given(deep_documents())
def test_deep_nesting_is_bounded(data: bytes) -> None:
    doc = parse_bounded(data.decode())
    flow = data.count(b"[") + data.count(b"{")
    containers = 1 + flow if flow else data.count(b":\n")  # the top-level mapping counts
    if containers > DEFAULT_LIMITS.max_depth:
        assert [p.code for p in doc.problems] == ["RL009"]
    else:
        assert doc.usable, doc.problems


def expanded_nodes(data: bytes) -> int:
    """The nodes a consumer would visit in an alias_bombs document without a merge key."""
    lines = data.decode().splitlines()
    width = lines[0].count("x")
    weight, total = 1 + width, 1 + 1 + width  # the top mapping, then l0's list and its scalars
    for _ in lines[1:]:
        weight = 1 + width * weight
        total += weight
    return total


@fuzz_settings(60)
@given(alias_bombs())
def test_alias_expansion_is_bounded_exactly_at_the_limit(data: bytes) -> None:
    doc = parse_bounded(data.decode())
    if b"<<" in data:
        assert doc.usable or [p.code for p in doc.problems] == ["RL010"]
        return
    if expanded_nodes(data) > DEFAULT_LIMITS.max_nodes:
        assert [p.code for p in doc.problems] == ["RL010"]
    else:
        assert doc.usable, doc.problems


@fuzz_settings(8)
@given(wide_documents())
def test_wide_documents_are_bounded(data: bytes) -> None:
    doc = parse_bounded(data.decode())
    if len(data) > DEFAULT_LIMITS.max_file_bytes:
        assert [p.code for p in doc.problems] == ["RL003"]
    else:
        assert doc.usable, doc.problems


def _peak_bytes(text: str) -> tuple[Document, int]:
    import tracemalloc

    tracemalloc.start()
    try:
        doc = parse_yaml(text)
        return doc, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_worst_inputs_stay_within_memory() -> None:
    """Alias bombs and deep nesting cost almost nothing; the largest legal file stays far below
    a CI runner's memory (128 MiB here, for a 1 MiB file of 100,000 keys)."""
    width, levels = 12, 14  # 12**14 nodes if expanded
    bomb = (
        "\n".join(
            ["l0: &l0 [" + ", ".join(["x"] * width) + "]"]
            + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
        )
        + "\n"
    )
    doc, peak = _peak_bytes(bomb)
    assert [p.code for p in doc.problems] == ["RL010"] and peak < 1 << 20
    doc, peak = _peak_bytes("k: " + "[" * 1500 + "]" * 1500 + "\n")
    assert [p.code for p in doc.problems] == ["RL009"] and peak < 1 << 20
    wide = "".join(f"k{i}: v\n" for i in range(100_000))
    assert len(wide.encode()) < DEFAULT_LIMITS.max_file_bytes
    doc, peak = _peak_bytes(wide)
    assert doc.usable and peak < 128 << 20
