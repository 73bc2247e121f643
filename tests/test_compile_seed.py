"""The project's own tree compiles to the seed artifact (a newer upstream compiler's output)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from recipelint.cli import main

SEED_ID = "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16"
OPTIONS = [
    "--source-name",
    "vllm",
    "--source-repo",
    "vllm-project/vllm",
    "--source-ref",
    "main",
    "--source-sha",
    "564ac0de1b228568cafcbfbe8ccaccc82d6023eb",
]


def collapse(value: Any) -> Any:
    """The seed was captured with runs of white space inside strings collapsed to one space."""
    if isinstance(value, str):
        return re.sub(r"\s+", " ", value)
    if isinstance(value, list):
        return [collapse(item) for item in value]
    if isinstance(value, dict):
        return {key: collapse(item) for key, item in value.items()}
    return value


def test_seed_recipe_compiles_to_the_seed(
    embedded_tree: Path, shared_dir: Path, tmp_path: Path
) -> None:
    if not (embedded_tree / "models" / f"{SEED_ID}.yaml").is_file():
        pytest.skip(f"recipes/ has no models/{SEED_ID}.yaml yet")
    seeds = sorted((shared_dir / "seeds").glob("000_*.txt"))
    if not seeds:
        pytest.skip(f"the seed artifact is absent from {shared_dir / 'seeds'}")
    if not (embedded_tree.parent / ".git").exists() or shutil.which("git") is None:
        pytest.skip("the seed's source.path is relative to the git checkout, and there is none")
    out = tmp_path / "out"
    assert main(["compile", str(embedded_tree), "-o", str(out), "-q", *OPTIONS]) == 0
    ours = collapse(json.loads((out / f"{SEED_ID}.json").read_text(encoding="utf-8")))
    seed = collapse(json.loads(seeds[0].read_text(encoding="utf-8")))
    assert json.dumps(ours, ensure_ascii=False) == json.dumps(seed, ensure_ascii=False)
