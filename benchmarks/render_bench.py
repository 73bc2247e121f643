#!/usr/bin/env python3
"""CPU cost of rendering alone: every rendering a compile makes, timed in one process.

usage: python benchmarks/render_bench.py [TREE]

TREE defaults to corpus/upstream/tree in $RECIPELINT_SHARED (else ../shared). The tree is
loaded once; then every variant the compile renders (each recipe's default and every variant
it promotes under its own model id) goes through resolve.plan.render_variant, the compiler's
entry point, and the script prints the CPU seconds that took (process_time), the number of
renderings and the microseconds per rendering. One pass per process, as a compile makes it:
a second pass would find the renderer's caches warm. Compare runs of fresh processes (the
median of several); run it with another checkout first on PYTHONPATH to measure that code.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RECIPELINT_SHARED") or PROJECT.parent / "shared").expanduser()
DEFAULT_TREE = SHARED / "corpus" / "upstream" / "tree"


def _variants_rendered(recipe: dict[str, Any]) -> list[str]:
    """The default variant, then each variant a compile publishes under its own model id."""
    variants = recipe.get("variants")
    if type(variants) is not dict:
        return []
    promoted = [
        key
        for key, cfg in variants.items()
        if type(cfg) is dict and type(cfg.get("model_id")) is str and "/" in cfg["model_id"]
    ]
    return ["default", *promoted]


def _workload(tree_root: Path) -> tuple[Any, list[dict[str, Any]]]:
    """(the tree's render inputs, its recipes as the compile renders them)."""
    from recipelint.compile.compilation import Compiler
    from recipelint.jsvalue import has_js_specials, js_ordered
    from recipelint.read.tree import load_tree, recipe_hf_id

    tree = load_tree(tree_root)
    globals_ = Compiler(tree).prepare()
    if globals_ is None:
        sys.exit(f"{tree_root}: no usable taxonomy.yaml")
    recipes = []
    for doc in tree.recipes:
        hf_id = recipe_hf_id(doc.rel)
        if not doc.usable or hf_id is None or type(doc.data) is not dict:
            continue
        data = js_ordered(doc.data) if has_js_specials(doc.data) else doc.data
        recipes.append({**data, "hf_id": hf_id})
    return globals_.inputs, recipes


def _render_all(inputs: Any, recipes: list[dict[str, Any]]) -> int:
    from recipelint.resolve.plan import Problems, render_variant

    renderings = 0
    for recipe in recipes:
        problems = Problems()
        for variant_key in _variants_rendered(recipe):
            rendered = render_variant(inputs, recipe, variant_key, problems)
            if rendered is not None:
                renderings += sum(1 + len(hw.alternatives) for hw in rendered[1])
    return renderings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    options = parser.parse_args()
    import recipelint

    inputs, recipes = _workload(options.tree)
    start = time.process_time()
    renderings = _render_all(inputs, recipes)
    seconds = time.process_time() - start
    per = seconds / renderings * 1e6 if renderings else 0.0
    print(f"recipelint: {Path(recipelint.__file__).parent}")
    print(f"{seconds:.3f} s CPU, {renderings} renderings, {per:.1f} us per rendering")


if __name__ == "__main__":
    main()
