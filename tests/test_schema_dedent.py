"""RL101/RL102: a key dedented out of nested blocks is named with the block it belongs to.

A key written at the column of an outer mapping still parses; it lands in that mapping,
where the schema does not know it. When it is valid in a block nested in the one written
just above it (two or more levels in), the message says which and at what column.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import replace_once

from recipelint.cli import main

RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"


@pytest.fixture
def tree(embedded_copy: Path) -> Path:
    return embedded_copy


def _schema_findings(
    tree: Path, capsys: pytest.CaptureFixture[str], old: str, new: str
) -> list[dict[str, object]]:
    path = tree / RECIPE
    replace_once(path, old, new)
    main(["check", "--jobs", "1", "--format", "json", "--select", "RL1", RECIPE])
    found: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return found


def test_an_env_variable_dedented_to_the_top_level_belongs_two_blocks_in(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [finding] = _schema_findings(
        tree, capsys, "  base_env: {}\n", '  base_env:\n    VLLM_USE_V1: "1"\nHF_HUB_OFFLINE: "1"\n'
    )
    assert finding["code"] == "RL101" and finding["column"] == 1
    assert finding["message"] == (
        "`HF_HUB_OFFLINE` is not a key of the top level; it is a key of `model.base_env` — "
        "is it indented 4 spaces too little? (expected column 5)"
    )
    assert finding["hint"] == (
        "move it and the lines under it to column 5 "
        "(as written: unknown key 'HF_HUB_OFFLINE' in the recipe)"
    )


def test_a_variant_env_variable_dedented_to_the_variants_is_named_with_its_block(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [finding] = _schema_findings(
        tree,
        capsys,
        '    description: "Original BF16 weights"\n',
        '    description: "Original BF16 weights"\n'
        "    extra_env:\n"
        '      VLLM_USE_V1: "1"\n'
        '  HF_HUB_OFFLINE: "1"\n',
    )
    assert finding["code"] == "RL102"
    assert finding["message"] == (
        "`HF_HUB_OFFLINE` is not a key of `variants`; it is a key of "
        "`variants.default.extra_env` — is it indented 4 spaces too little? (expected column 7)"
    )


def test_a_key_valid_nowhere_in_the_blocks_above_keeps_its_message(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [finding] = _schema_findings(
        tree,
        capsys,
        "  base_env: {}\n",
        '  base_env:\n    VLLM_USE_V1: "1"\nhf_hub: {cache: off}\n',
    )
    assert finding["message"] == "unknown key 'hf_hub' in the recipe"
