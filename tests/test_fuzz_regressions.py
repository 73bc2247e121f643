"""Inputs the fuzzers found crashing, kept as fixed cases through the same invariant."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from invariant import EMBEDDED_TREE, RECIPE_SLOT, SLOTS, FuzzTree, Slot, exercise  # noqa: E402

TAXONOMY = SLOTS[3]


def _replace(rel: str, old: str, new: str) -> bytes:
    text = (EMBEDDED_TREE / rel).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1).encode()


def _taxonomy(old: str, new: str) -> bytes:
    return _replace("taxonomy.yaml", old, new)


def _recipe(old: str, new: str) -> bytes:
    return _replace("models/Qwen/Qwen2.5-7B-Instruct.yaml", old, new)


# name -> (slot, input bytes, where the crash was and what fixed it)
FOUND: dict[str, tuple[Slot, bytes]] = {
    # rules/references.py built a set of profile brands: a mapping brand was unhashable.
    "taxonomy-brand-is-a-mapping": (TAXONOMY, _taxonomy("brand: NVIDIA", "brand: {x: 1}")),
    # compiler.py keyed `alternatives` by the raw list item: JSON output of an int key crashed.
    "numeric-compatible-strategy": (
        RECIPE_SLOT,
        _recipe(
            "compatible_strategies:\n  - single_node_tp\n",
            "compatible_strategies:\n  - single_node_tp\n  - 1\n  - true\n  - -1.5\n",
        ),
    ),
    # rules (RL308/RL309, flags catalog, speculative drafts) json.loads'ed flag values:
    # 5,000 nested brackets raised RecursionError out of run_checks.
    "deeply-nested-json-flag-value": (
        RECIPE_SLOT,
        _recipe(
            "  base_args: []",
            '  base_args: ["--speculative-config", "'
            + "[" * 5000
            + '", "--hf-overrides", "'
            + '{\\"a\\":' * 5000
            + '"]',
        ),
    ),
    # compiler.py: a hardware profile id is an output folder; '../..' must not become a path.
    "hardware-id-climbs-out": (TAXONOMY, _taxonomy("\n  h100:", '\n  "../../escape":')),
}


@pytest.fixture(scope="module")
def fuzz_tree(tmp_path_factory: pytest.TempPathFactory) -> FuzzTree:
    return FuzzTree(tmp_path_factory.mktemp("regressions"))


@pytest.mark.parametrize("name", sorted(FOUND))
def test_found_input_gives_diagnostics_only(fuzz_tree: FuzzTree, name: str) -> None:
    slot, data = FOUND[name]
    exercise(fuzz_tree, data, slot)
