"""Runs a catalog example inside a small tree built from the embedded recipes/ context.

``DEMO_RECIPE`` is the catalog's base recipe (rules/base-recipe.yaml) as data: the
valid recipe rule unit tests copy and change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from treehelp import CONTEXT, build_context, tree_findings

from recipelint.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.load import parse_yaml
from recipelint.rulebook import Example
from recipelint.ruleexamples import base_document

__all__ = ["CONTEXT", "DEMO_RECIPE", "build_context", "run_example"]

# Read as the compiler reads it (dates become strings), so JSON dumps of copies stay valid.
DEMO_RECIPE: dict[str, Any] = parse_yaml(base_document("recipe")).data


def run_example(example: Example, root: Path, config: Config | None = None) -> list[Diagnostic]:
    """The findings in the example's file; the files beside it and the rest are context."""
    documents = {other.path: other.content for other in example.beside}
    documents[example.path] = example.content
    judged = root / example.path
    return [d for d in tree_findings(root, documents, config) if d.path == judged]
