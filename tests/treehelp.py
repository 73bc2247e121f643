"""A tree with these documents → the findings of each code: the one way tests build one.

A test names the files it adds to a copy of the embedded ``recipes/`` context (the
taxonomy, platforms, strategies and kv_store files, no recipes) and gets back the
findings in those files, by code. A document is given as text (written as is), as
data (written as JSON, which is YAML with one value per line), or as a
:class:`Fragment` merged into the catalog's base document of its kind, as the rule
catalog's examples are.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recipelint.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.engine import run_checks
from recipelint.ruleexamples import merged_document
from recipelint.tree import load_tree

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONTEXT = PROJECT_ROOT / "recipes"
CONTEXT_PARTS = ("taxonomy.yaml", "platforms.yaml", "strategies", "kv_store")


@dataclass(frozen=True)
class Fragment:
    """The keys that matter, merged into the base document of the file's kind."""

    text: str


Document = str | Fragment | Mapping[str, Any]


def build_context(root: Path) -> Path:
    """Copy the embedded tree's shared files (no recipes) into ``root``."""
    for part in CONTEXT_PARTS:
        source = CONTEXT / part
        if source.is_dir():
            shutil.copytree(source, root / part)
        elif source.is_file():
            shutil.copy2(source, root / part)
    (root / "models").mkdir(exist_ok=True)
    return root


def document_text(path: str, document: Document) -> str:
    if isinstance(document, str):
        return document
    if isinstance(document, Fragment):
        return merged_document(path, document.text)
    return json.dumps(document, indent=1) + "\n"


def write_documents(root: Path, documents: Mapping[str, Document]) -> list[Path]:
    """Write each document at its path below ``root``; the paths written."""
    written = []
    for rel, document in documents.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(document_text(rel, document), encoding="utf-8")
        written.append(target)
    return written


def tree_findings(
    root: Path, documents: Mapping[str, Document], config: Config | None = None
) -> list[Diagnostic]:
    """The findings in ``documents``, checked in the context tree built at ``root``."""
    build_context(root)
    written = set(write_documents(root, documents))
    return [d for d in run_checks(load_tree(root), config) if d.path in written]


def findings_by_code(
    root: Path, documents: Mapping[str, Document], config: Config | None = None
) -> dict[str, list[Diagnostic]]:
    """:func:`tree_findings` grouped by rule code, codes in the order first reported."""
    grouped: dict[str, list[Diagnostic]] = defaultdict(list)
    for finding in tree_findings(root, documents, config):
        grouped[finding.code].append(finding)
    return dict(grouped)
