"""Runs a catalog example inside a small tree built from the embedded recipes/ context."""

from __future__ import annotations

import shutil
from pathlib import Path

from recipelint.catalog import Example
from recipelint.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.engine import run_checks
from recipelint.tree import load_tree

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONTEXT = PROJECT_ROOT / "recipes"
CONTEXT_PARTS = ("taxonomy.yaml", "platforms.yaml", "strategies", "kv_store")


def build_context(root: Path) -> Path:
    for part in CONTEXT_PARTS:
        source = CONTEXT / part
        if source.is_dir():
            shutil.copytree(source, root / part)
        elif source.is_file():
            shutil.copy2(source, root / part)
    (root / "models").mkdir(exist_ok=True)
    return root


def run_example(example: Example, root: Path, config: Config | None = None) -> list[Diagnostic]:
    build_context(root)
    target = root / example.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(example.content, encoding="utf-8")
    diagnostics = run_checks(load_tree(root), config)
    return [d for d in diagnostics if d.path == target]
