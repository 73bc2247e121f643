"""The library's entry points for compiling: a tree into the JSON API in memory, and one
rendering of one recipe.

The work is done elsewhere: :mod:`recipelint.compile.publication` (what a tree publishes),
:mod:`recipelint.compile.compilation` (one compile, in tree order), :mod:`recipelint.compile.outputmap`
(the output in memory), :mod:`recipelint.compile.outputpaths` (path safety and bookkeeping),
:mod:`recipelint.compile.provenance` (the source block). The names other code imports from here
are re-exported.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from recipelint.compile.compilation import Compiler, CompileResult, OutcomeSource
from recipelint.compile.outputmap import OutputMap, StoredDocument, WriteJournal
from recipelint.compile.outputpaths import unsafe_path_reason
from recipelint.compile.provenance import Provenance, git_provenance
from recipelint.compile.publication import (
    BROKEN_RENDERING,
    INVALID_FEATURE_MODES,
    MISSING_INPUT,
    NO_RUNNABLE_STRATEGY,
    OUTPUT_OVERWRITTEN,
    PATH_CONFLICT,
    PROMOTION_COLLIDES,
    SYNTHESIS_FAILED,
    TOO_MANY_RENDERINGS,
    UNNAMED_SPEC,
    UNRENDERABLE_RECIPE,
    UNSAFE_PATH,
    Globals,
    RecipeOutcome,
    argument_lists,
)
from recipelint.jsvalue import JsonDocument, get
from recipelint.read.revision import repo_slug
from recipelint.read.tree import RecipeTree, load_tree, recipe_hf_id
from recipelint.resolve.command import Combination, RenderInputs, render_command

__all__ = [
    "BROKEN_RENDERING",
    "INVALID_FEATURE_MODES",
    "MISSING_INPUT",
    "NO_RUNNABLE_STRATEGY",
    "OUTPUT_OVERWRITTEN",
    "PATH_CONFLICT",
    "PROMOTION_COLLIDES",
    "SYNTHESIS_FAILED",
    "TOO_MANY_RENDERINGS",
    "UNNAMED_SPEC",
    "UNRENDERABLE_RECIPE",
    "UNSAFE_PATH",
    "CompileResult",
    "Compiler",
    "Globals",
    "OutcomeSource",
    "OutputMap",
    "Provenance",
    "RecipeOutcome",
    "StoredDocument",
    "WriteJournal",
    "argument_lists",
    "compile_tree",
    "git_provenance",
    "render_combination",
    "repo_slug",
    "unsafe_path_reason",
]


def compile_tree(
    root: Path, provenance: Provenance | None = None, max_renderings: int = 5000
) -> CompileResult[OutputMap]:
    """Load and compile the tree at ``root`` without writing anything."""
    return Compiler[OutputMap](load_tree(root), provenance, max_renderings).run()


@functools.lru_cache(maxsize=8)
def _loaded_tree(root: str, signature: tuple[Any, ...]) -> tuple[RecipeTree, RenderInputs]:
    """The loaded tree and its render inputs, reused while no file in the tree changes."""
    tree = load_tree(Path(root))
    compiler = Compiler[OutputMap](tree)
    globals_ = compiler.prepare()
    if globals_ is None:
        raise ValueError(f"{root}: the tree has no usable taxonomy.yaml")
    return tree, globals_.inputs


def _tree_signature(root: Path) -> tuple[Any, ...]:
    """(path, size, mtime) of every file: a cheap stat walk that invalidates the cache."""
    entries = []
    for folder, _, names in os.walk(root):
        for name in names:
            try:
                stat = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            entries.append((folder, name, stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(entries))


def render_combination(
    tree: Path | str,
    hf_id: str,
    variant: str,
    hardware: str,
    strategy: str,
    features: list[str] | None = None,
    node_count: int | float | None = None,
    pd_nodes: dict[str, int] | None = None,
    kv_offload: str | None = None,
) -> JsonDocument:
    """One rendering of a recipe, as the API would publish it, without writing files.

    ``features`` defaults to the features enabled by default on that hardware;
    ``node_count`` defaults to the strategy's own floor (2 for multi-node).
    Raises LookupError for an unknown recipe and RenderError when synthesis fails.
    """
    from recipelint.resolve.features import default_features
    from recipelint.resolve.strategy import nodes_for_strategy

    root = Path(tree).resolve()
    loaded, inputs = _loaded_tree(str(root), _tree_signature(root))
    doc = next((d for d in loaded.recipes if recipe_hf_id(d.rel) == hf_id and d.usable), None)
    if doc is None:
        raise LookupError(f"no recipe {hf_id} in {tree}")
    assert type(doc.data) is dict  # a usable document is a mapping (read.load)
    recipe = dict(doc.data)
    recipe["hf_id"] = hf_id
    if features is None:
        features = default_features(recipe, hardware, variant)
    if node_count is None:
        profile = inputs.profiles.get(hardware, {})
        floor = 2 if get(inputs.strategies.get(strategy), "deploy_type") == "multi_node" else 1
        node_count = max(
            floor, nodes_for_strategy(recipe, strategy, get(profile, "gpu_count"), hardware)
        )
    combo = Combination(
        variant, strategy, hardware, node_count, tuple(features), pd_nodes, kv_offload
    )
    return render_command(inputs, recipe, combo)
