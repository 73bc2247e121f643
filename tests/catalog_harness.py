"""Runs a catalog example inside a small tree built from the embedded recipes/ context."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from recipelint.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.engine import run_checks
from recipelint.rulebook import Example
from recipelint.tree import load_tree

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONTEXT = PROJECT_ROOT / "recipes"
CONTEXT_PARTS = ("taxonomy.yaml", "platforms.yaml", "strategies", "kv_store")

# A minimal valid recipe for rule unit tests; copy it before changing it.
DEMO_RECIPE: dict[str, Any] = {
    "meta": {
        "title": "Demo",
        "slug": "demo",
        "provider": "Acme",
        "description": "Demo.",
        "date_added": "2026-01-10",
        "date_updated": "2026-01-12",
        "difficulty": "beginner",
        "tasks": ["text"],
    },
    "model": {
        "model_id": "acme/demo",
        "min_vllm_version": "0.20.0",
        "architecture": "dense",
        "parameter_count": "8B",
        "active_parameters": "8B",
        "context_length": 32768,
        "base_args": [],
    },
    "variants": {"default": {"precision": "bf16", "vram_minimum_gb": 20}},
    "compatible_strategies": ["single_node_tp"],
    "guide": "## Overview\n",
}


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
