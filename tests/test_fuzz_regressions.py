"""Inputs the fuzzers found crashing, kept as fixed cases through the same invariant."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from invariant import EMBEDDED_TREE, RECIPE_SLOT, SLOTS, FuzzTree, Slot, exercise  # noqa: E402

TAXONOMY, STRATEGY = SLOTS[3], SLOTS[1]


def _taxonomy(old: str, new: str) -> bytes:
    text = (EMBEDDED_TREE / "taxonomy.yaml").read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1).encode()


# name -> (slot, input bytes, where the crash was and what fixed it)
FOUND: dict[str, tuple[Slot, bytes]] = {
    # rules/references.py built a set of profile brands: a mapping brand was unhashable.
    "taxonomy-brand-is-a-mapping": (TAXONOMY, _taxonomy("brand: NVIDIA", "brand: {x: 1}")),
}


@pytest.fixture(scope="module")
def fuzz_tree(tmp_path_factory: pytest.TempPathFactory) -> FuzzTree:
    return FuzzTree(tmp_path_factory.mktemp("regressions"))


@pytest.mark.parametrize("name", sorted(FOUND))
def test_found_input_gives_diagnostics_only(fuzz_tree: FuzzTree, name: str) -> None:
    slot, data = FOUND[name]
    exercise(fuzz_tree, data, slot)
