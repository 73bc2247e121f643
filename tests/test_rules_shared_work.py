"""Work the rule families share or skip gives what the plain computation gives."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from recipelint.check.engine import run_checks
from recipelint.configuration.config import Config
from recipelint.read.tree import load_tree

MEMOISED_CODES = ("RL340", "RL341", "RL370", "RL371", "RL372", "RL373", "RL604", "RL605", "RL606")
COPIED = (
    "deepseek-ai/DeepSeek-V4-Flash.yaml",
    "deepseek-ai/DeepSeek-V4-Pro.yaml",
    "Qwen/Qwen3-32B.yaml",
    "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml",
)


def _tree_with(root: Path, corpus: Path, recipes: dict[str, str]) -> Path:
    root.mkdir()
    for name in ("taxonomy.yaml", "platforms.yaml"):
        shutil.copy(corpus / name, root / name)
    for folder in ("strategies", "kv_store"):
        shutil.copytree(corpus / folder, root / folder)
    for rel, text in recipes.items():
        (root / "models" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "models" / rel).write_text(text, encoding="utf-8")
    return root


def _copy_of(text: str) -> str:
    """Another checkpoint of the same recipe, laid out differently: every line moves down."""
    moved = re.sub(r'(model_id: *"?)([^/"\s]+)/', r"\1\2-copy/", text)
    return "# a copy of the recipe, served from other repositories\n\n" + moved


def _memoised_findings(root: Path, org: str) -> list[tuple[Any, ...]]:
    found = run_checks(load_tree(root), Config(select=MEMOISED_CODES))
    return [
        (d.path.name, d.code, d.span, d.message, d.hint, d.pointer)
        for d in found
        if d.path.parent.name == org
    ]


def test_copies_of_a_recipe_get_the_findings_each_would_get_alone(
    tmp_path: Path, corpus_tree: Path
) -> None:
    originals = {rel: (corpus_tree / "models" / rel).read_text(encoding="utf-8") for rel in COPIED}
    copies = {f"copy-{rel}": _copy_of(text) for rel, text in originals.items()}
    together = _tree_with(tmp_path / "together", corpus_tree, {**originals, **copies})
    alone = _tree_with(tmp_path / "alone", corpus_tree, copies)
    for org in {rel.split("/")[0] for rel in COPIED}:
        expected = _memoised_findings(alone, f"copy-{org}")
        assert expected or org == "Qwen"
        assert _memoised_findings(together, f"copy-{org}") == expected
