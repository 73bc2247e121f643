"""A recipe tree whose recipes are read one at a time, for the compile.

`check` compares recipes with each other and loads the whole tree (:func:`load_tree`). A
compile needs one recipe at a time plus the tree-wide inputs, so it lists the recipe files,
reads each when it is compiled and lets it go afterwards: memory then does not grow with
the number of recipes. Files are listed and confined by the walker :func:`load_tree` uses.
A recipe is read once, as text, and parsed only when asked: a cached compile looks an
unchanged recipe up by its text and never parses it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from recipelint.diagnostics import Diagnostic
from recipelint.read.load import DEFAULT_LIMITS, Document, LoadLimits, load_document, parse_yaml
from recipelint.read.tree import RecipeTree, Walker, recipe_hf_id


class RecipeFile:
    """One recipe file, read once: its text, and its document parsed from that text."""

    __slots__ = ("limits", "path", "rel", "text")

    def __init__(self, path: Path, rel: str, limits: LoadLimits) -> None:
        self.path = path
        self.rel = rel
        self.limits = limits
        # None: not plain UTF-8 text within the size limit; load_document reports why.
        self.text = _plain_text(path, limits)

    def document(self) -> Document:
        if self.text is None:
            return load_document(self.path, self.rel, "recipe", self.limits)
        # Few compiled recipes report a finding; those read their positions again.
        return parse_yaml(self.text, self.path, "recipe", self.rel, self.limits, positions=False)


def _plain_text(path: Path, limits: LoadLimits) -> str | None:
    """The file's text as :func:`load_document` decodes it (a leading byte-order mark
    dropped), or None when reading or decoding it would be a finding."""
    try:
        with path.open("rb") as stream:
            if os.fstat(stream.fileno()).st_size > limits.max_file_bytes:
                return None
            raw = stream.read()
        if b"\x00" in raw:
            return None
        return raw.decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return None


class RecipeFiles:
    """The recipe files of a tree, in upstream's reading order, each read when reached."""

    def __init__(self, root: Path, paths: list[Path], limits: LoadLimits) -> None:
        self.root = root
        self.paths = paths
        self.limits = limits
        self.rels = [_rel(root, path) for path in paths]

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self) -> Iterator[RecipeFile]:
        for path, rel in zip(self.paths, self.rels, strict=True):
            yield RecipeFile(path, rel, self.limits)

    def reload(self, rel: str) -> Document | None:
        """A recipe read again, to point a finding at it after it was let go."""
        if rel not in self.rels:
            return None
        return load_document(self.root / rel, rel, "recipe", self.limits)


def tree_and_recipe_files(
    root: Path, limits: LoadLimits = DEFAULT_LIMITS
) -> tuple[RecipeTree, RecipeFiles] | None:
    """The tree's inputs other than recipes, loaded, and its recipe files, listed; None when
    listing the tree finds a problem (a link leaving it, a recipe without an organisation
    folder, …): :func:`load_tree` then reads it whole and reports the problem its own way."""
    root = Path(os.path.abspath(root))
    problems: list[Diagnostic] = []
    walker = Walker(root, problems)
    taxonomy, platforms = root / "taxonomy.yaml", root / "platforms.yaml"
    if not taxonomy.is_file() or walker.escapes(taxonomy) or walker.escapes(platforms):
        return None
    tree = RecipeTree(root=root)
    tree.taxonomy = load_document(taxonomy, "taxonomy.yaml", "taxonomy", limits)
    if platforms.is_file():
        tree.platforms = load_document(platforms, "platforms.yaml", "platforms", limits)
    for folder, kind, docs in (
        ("strategies", "strategy", tree.strategies),
        ("kv_store", "kv_store", tree.kv_stores),
    ):
        docs.extend(
            load_document(path, _rel(root, path), kind, limits)
            for path in walker.flat(root / folder, ".yaml")
        )
    paths = list(walker.recursive(root / "models"))
    if problems or any(recipe_hf_id(_rel(root, path)) is None for path in paths):
        return None
    return tree, RecipeFiles(root, paths, limits)


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()
