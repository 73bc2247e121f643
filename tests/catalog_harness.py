"""Runs a catalog example inside a small tree built from the embedded recipes/ context.

``DEMO_RECIPE`` is the catalog's base recipe (rules/base-recipe.yaml) as data
(:func:`treehelp.base_recipe`): the valid recipe rule unit tests copy and change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from treehelp import CONTEXT, base_recipe, build_context, tree_findings

from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.rulebook.catalog import Example

__all__ = ["CONTEXT", "DEMO_RECIPE", "build_context", "run_example"]

DEMO_RECIPE: dict[str, Any] = base_recipe()


def run_example(example: Example, root: Path, config: Config | None = None) -> list[Diagnostic]:
    """The findings in the example's file; the files beside it and the rest are context."""
    documents = {other.path: other.content for other in example.beside}
    documents[example.path] = example.content
    judged = root / example.path
    return [d for d in tree_findings(root, documents, config) if d.path == judged]
