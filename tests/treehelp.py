"""A tree with these documents → the findings of each code: the one way tests build one.

A test names the files it adds to a copy of the embedded ``recipes/`` context (the
taxonomy, platforms, strategies and kv_store files, no recipes) and gets back the
findings in those files, by code. A document is given as text (written as is), as
data (written as JSON, which is YAML with one value per line), as :class:`BlockYaml`
(data written as block YAML, where a test reads positions in a dumped document), or
as a :class:`Fragment` merged into the catalog's base document of its kind, as the
rule catalog's examples are. A document at a context file's path (``taxonomy.yaml``,
``strategies/x.yaml``) replaces that file; :func:`context_text` gives the embedded
text to edit, :func:`taxonomy_with` the taxonomy with profiles of the test's own added. :func:`base_recipe` is the catalog's base recipe as data to change,
:func:`checked` every finding of the tree (context files included, a focus or a
configuration applied), :func:`check_tree` the same of a tree the test changed after
building it, :func:`stdin_check` a buffer checked as a file of the tree, and
:func:`context_in_memory` the context read once, no recipes, nothing written (a taxonomy of
the test's own, if given, in place of the embedded one), :func:`tree_in_memory` the same
with one recipe parsed from text. :func:`write_file` writes one file anywhere, such as a
configuration above the tree.
"""

from __future__ import annotations

import copy
import functools
import json
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from recipelint.resolve.command import RenderInputs

from recipelint.check.checking import CheckOptions, CheckResult, run_check
from recipelint.check.engine import run_checks
from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.read.load import Document as LoadedDocument
from recipelint.read.load import parse_yaml
from recipelint.read.tree import RecipeTree, load_tree
from recipelint.rulebook.examples import base_document, merged_document
from recipelint.rules.context import Focus, everything

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONTEXT = PROJECT_ROOT / "recipes"
CONTEXT_PARTS = ("taxonomy.yaml", "platforms.yaml", "strategies", "kv_store")


@dataclass(frozen=True)
class Fragment:
    """The keys that matter, merged into the base document of the file's kind."""

    text: str


@dataclass(frozen=True)
class BlockYaml:
    """Data written as block YAML (``yaml.safe_dump``, keys in their order), one key a line."""

    data: Mapping[str, Any]

    @property
    def text(self) -> str:
        return yaml.safe_dump(dict(self.data), sort_keys=False)


Document = str | Fragment | BlockYaml | Mapping[str, Any]

# Read as the compiler reads it (dates become strings), so JSON dumps of copies stay valid.
_BASE_RECIPE: dict[str, Any] = parse_yaml(base_document("recipe")).data


def base_recipe() -> dict[str, Any]:
    """The catalog's base recipe (rules/base-recipe.yaml) as data: a fresh copy to change."""
    return copy.deepcopy(_BASE_RECIPE)


def context_text(rel: str) -> str:
    """The embedded tree's file at ``rel`` (``taxonomy.yaml``), to write back edited."""
    return (CONTEXT / rel).read_text(encoding="utf-8")


# A hardware profile no built-in platform of vLLM's runs (a plugin's NPU), as taxonomy text.
NPU_PROFILE = (
    "  npu_x:\n    brand: Huawei\n    generation: npu\n"
    '    display_name: "NPU X"\n    description: "An NPU"\n    gpu_count: 1\n'
    "    vram_gb: 64\n    multi_node: false\n"
)


def taxonomy_with(profiles: str) -> str:
    """The embedded taxonomy with ``profiles`` (taxonomy text) first among its hardware."""
    return context_text("taxonomy.yaml").replace(
        "hardware_profiles:\n", "hardware_profiles:\n" + profiles, 1
    )


def build_context(root: Path) -> Path:
    """Copy the embedded tree's shared files (no recipes) into ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for part in CONTEXT_PARTS:
        source = CONTEXT / part
        if source.is_dir():
            shutil.copytree(source, root / part, dirs_exist_ok=True)
        elif source.is_file():
            shutil.copy2(source, root / part)
    (root / "models").mkdir(exist_ok=True)
    return root


def document_text(path: str, document: Document) -> str:
    if isinstance(document, str):
        return document
    if isinstance(document, Fragment):
        return merged_document(path, document.text)
    if isinstance(document, BlockYaml):
        return document.text
    return json.dumps(document, indent=1) + "\n"


def write_documents(root: Path, documents: Mapping[str, Document]) -> list[Path]:
    """Write each document at its path below ``root``; the paths written."""
    return [
        write_file(root / rel, document_text(rel, document)) for rel, document in documents.items()
    ]


def write_file(path: Path, content: str | bytes) -> Path:
    """Write ``content`` at ``path`` (text as UTF-8, bytes as they are), its folders made: also
    a file outside the tree (a repository's pyproject.toml, a configuration given with --config)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def build_tree(root: Path, documents: Mapping[str, Document]) -> Path:
    """The context tree at ``root`` with ``documents`` written into it; ``root``."""
    build_context(root)
    write_documents(root, documents)
    return root


def checked(
    root: Path,
    documents: Mapping[str, Document],
    config: Config | None = None,
    focus: Focus = everything,
) -> list[Diagnostic]:
    """Every finding of the tree built at ``root``, context files included."""
    return check_tree(build_tree(root, documents), config, focus)


def check_tree(
    root: Path, config: Config | None = None, focus: Focus = everything
) -> list[Diagnostic]:
    """Every finding of the tree already at ``root`` (built, then changed by the test).

    Without ``config``: the default settings with the tree's schema overlays (as its
    configuration file and schemas/ folder declare them), so overlay tests need no config.
    """
    if config is None:
        from recipelint.schema.overlay import tree_overlay

        config = Config(overlay=tree_overlay(root))
    return run_checks(load_tree(root), config, focus=focus)


@functools.cache
def _loaded_context() -> RecipeTree:
    return load_tree(CONTEXT)


def context_in_memory(taxonomy: LoadedDocument | None = None) -> RecipeTree:
    """The embedded context with no recipes, nothing written: a tree to compile against in
    memory. ``taxonomy``, parsed once by the test, stands for the embedded one (a smaller
    taxonomy makes each check cheaper)."""
    context = _loaded_context()
    return RecipeTree(
        context.root,
        context.taxonomy if taxonomy is None else taxonomy,
        context.platforms,
        context.strategies,
        context.kv_stores,
    )


def tree_in_memory(
    rel: str, text: str, taxonomy: LoadedDocument | None = None
) -> tuple[RecipeTree, LoadedDocument]:
    """:func:`context_in_memory` with ``text`` parsed as its one recipe, the file ``rel``; so a
    test may check or fix many texts quickly. The tree and the recipe."""
    doc = parse_yaml(text, CONTEXT / rel, "recipe", rel)
    tree = context_in_memory(taxonomy)
    tree.recipes.append(doc)
    return tree, doc


def stdin_check(
    path: Path, text: str | bytes, paths: Sequence[Path] = (), **options: Any
) -> CheckResult:
    """`check --stdin-filename PATH [PATHS]`: ``text`` checked as the file at ``path`` of its
    tree; ``options`` are the other CheckOptions."""
    return run_check(list(paths), CheckOptions(stdin_filename=path, stdin_text=text, **options))


def tree_findings(
    root: Path, documents: Mapping[str, Document], config: Config | None = None
) -> list[Diagnostic]:
    """The findings in ``documents``, checked in the context tree built at ``root``."""
    build_context(root)
    written = set(write_documents(root, documents))
    return [d for d in check_tree(root, config) if d.path in written]


def findings_by_code(
    root: Path, documents: Mapping[str, Document], config: Config | None = None
) -> dict[str, list[Diagnostic]]:
    """:func:`tree_findings` grouped by rule code, codes in the order first reported."""
    grouped: dict[str, list[Diagnostic]] = defaultdict(list)
    for finding in tree_findings(root, documents, config):
        grouped[finding.code].append(finding)
    return dict(grouped)


def python_in(
    tree: Path, argv: Sequence[str], env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """This interpreter run in a fresh process in ``tree`` (``argv`` after the interpreter),
    with exactly ``env``, its output captured as text."""
    return subprocess.run(
        [sys.executable, *argv],
        cwd=tree,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def embedded_inputs() -> tuple[dict[str, Any], RenderInputs]:
    """The embedded taxonomy and the render inputs of its context (profiles, strategies)."""
    from recipelint.resolve.command import RenderInputs

    tree = context_in_memory()
    taxonomy: dict[str, Any] = tree.taxonomy.data if tree.taxonomy is not None else {}
    strategies = {doc.data["name"]: doc.data for doc in tree.strategies}
    return taxonomy, RenderInputs(taxonomy, taxonomy["hardware_profiles"], strategies)
