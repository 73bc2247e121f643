"""The trees the server has loaded: files as saved, with the editor's open buffers on top.

Each tree is read from disk once. An edited buffer replaces only its own document, so
re-checking it costs a parse and a focused check, never a re-read of the tree; only a
file the tree does not list yet (a new recipe) makes the tree load again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recipelint.lsp import library
from recipelint.lsp.cursor import scalar_in_text, split_lines
from recipelint.lsp.library import ConfigError, Diagnostic, Document, RecipeTree

TREE_WIDE_KINDS = frozenset({"taxonomy", "platforms", "strategy", "kv_store"})
CONFIGURATION_FILES = frozenset({"pyproject.toml", ".recipelint.toml"})


@dataclass
class LoadedTree:
    """One recipe tree in memory: its configuration, its documents and the open buffers."""

    root: Path
    config: library.Config | None
    config_problems: list[Diagnostic]
    tree: RecipeTree
    buffers: dict[Path, str] = field(default_factory=dict)
    # Buffers edited since their document was last parsed.
    stale: set[Path] = field(default_factory=set)
    # The last document that parsed, of each buffer whose text does not parse now.
    last_parsed: dict[Path, Document] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path) -> LoadedTree:
        try:
            config: library.Config | None = library.tree_settings(root)
            problems: list[Diagnostic] = []
        except ConfigError as exc:
            config, problems = None, list(exc.diagnostics)
        limits = config.limits if config is not None else library.LoadLimits()
        return cls(root, config, problems, library.load_tree(root, limits))

    @property
    def limits(self) -> library.LoadLimits:
        return self.config.limits if self.config is not None else library.LoadLimits()

    def document(self, path: Path) -> Document | None:
        """The document at ``path``, with every buffer edited since the last question parsed."""
        while self.stale:
            self._parse(self.stale.pop())
        return self._listed(path)

    def _listed(self, path: Path) -> Document | None:
        return next((doc for doc in self.tree.documents() if doc.path == path), None)

    def set_text(self, path: Path, text: str) -> None:
        """The buffer's text becomes the document's when next asked for: a burst of
        keystrokes costs one parse."""
        self.buffers[path] = text
        self.stale.add(path)

    def _parse(self, path: Path) -> None:
        current = self._listed(path)
        if current is None:  # a file the tree does not list yet: the loader places it
            self._reload(new=path)
            return
        text = self.buffers[path]
        fresh = library.parse_document(self.root, path, current.kind, text, self.limits)
        self._remember(current, fresh)
        _replace_document(self.tree, current, fresh)

    def _remember(self, old: Document, new: Document) -> None:
        if new.usable:
            self.last_parsed.pop(new.path, None)
        elif old.usable:  # after a reload `old` is the saved file: an entry kept is newer
            self.last_parsed.setdefault(new.path, old)

    def claims(self, path: Path, variant: str | None = None) -> Any:
        """What the document says of itself while the author types: its data when it parses,
        else the last text of it that parsed, else its min_vllm_version (and ``variant``'s)
        read from the indentation of the text."""
        doc = self.document(path)
        if doc is None or doc.usable:
            return doc.data if doc is not None else None
        last = self.last_parsed.get(path)
        if last is not None:
            return last.data
        return _claimed_versions(split_lines(doc.text), variant)

    def forget(self, path: Path) -> None:
        """The buffer is closed: the document is what the disk holds again."""
        self.stale.discard(path)
        self.last_parsed.pop(path, None)
        if self.buffers.pop(path, None) is None:
            return
        current = self._listed(path)
        if current is not None and path.is_file():
            fresh = library.read_document(self.root, path, current.kind, self.limits)
            _replace_document(self.tree, current, fresh)
        else:  # an unsaved new file leaves the tree
            self._reload()

    def saved(self, path: Path, exists: bool) -> bool:
        """A file changed on disk; whether the tree changed with it. An open buffer wins over
        its file; a changed file the tree lists is read again alone; anything else (a file
        created or deleted, the configuration) reloads the tree."""
        if path in self.buffers:
            return False
        current = self._listed(path)
        if exists and current is not None and path.name not in CONFIGURATION_FILES:
            fresh = library.read_document(self.root, path, current.kind, self.limits)
            _replace_document(self.tree, current, fresh)
            return True
        self.reload()
        return True

    def reload(self) -> None:
        """Files changed on disk (or the configuration): read the tree again, buffers on top."""
        fresh = LoadedTree.load(self.root)
        self.config, self.config_problems = fresh.config, fresh.config_problems
        self._reload()

    def _reload(self, new: Path | None = None) -> None:
        """The tree read again with the buffers on top. The loader places one file that is
        not on disk (``new``, or the first such buffer) where a listing would put it."""
        self.stale.clear()
        placed = new if new is not None else next((p for p in self.buffers if not p.exists()), None)
        override = (placed, self.buffers[placed]) if placed is not None else None
        self.tree = library.load_tree(self.root, self.limits, override=override)
        for path, text in self.buffers.items():
            current = self._listed(path)
            if path != placed and current is not None:
                fresh = library.parse_document(self.root, path, current.kind, text, self.limits)
                self._remember(current, fresh)
                _replace_document(self.tree, current, fresh)

    def holds(self, path: Path) -> bool:
        """Whether ``path`` is a file of this tree (a recipe, a strategy, the taxonomy, …)."""
        return library.document_kind(self.root, path) is not None

    def check(self, path: Path) -> list[Diagnostic]:
        """What `recipelint check --stdin-filename PATH` reports for the buffer at PATH."""
        self.document(path)
        if self.config is None:
            return list(self.config_problems)
        return library.check_document(self.tree, self.config, path)

    def dependents(self, path: Path) -> list[Path]:
        """The open documents to check again after ``path`` changed: itself, and every open
        document of the tree when it is a file all recipes read (taxonomy, strategies, …)."""
        doc = self._listed(path)
        if doc is not None and doc.kind in TREE_WIDE_KINDS:
            return [path, *(other for other in self.buffers if other != path)]
        return [path]


def _claimed_versions(lines: list[str], variant: str | None) -> dict[str, Any]:
    """The min_vllm_version of the model (and of ``variant``) as the text's indentation shows them."""
    claimed: dict[str, Any] = {}
    wanted = [("model",)] + ([("variants", variant)] if variant else [])
    for holder_keys in wanted:
        value = scalar_in_text(lines, (*holder_keys, "min_vllm_version"))
        if value is None:
            continue
        holder = claimed
        for key in holder_keys:
            holder = holder.setdefault(key, {})
        holder["min_vllm_version"] = value
    return claimed


def _replace_document(tree: RecipeTree, old: Document, new: Document) -> None:
    if tree.taxonomy is old:
        tree.taxonomy = new
    elif tree.platforms is old:
        tree.platforms = new
    for docs in (tree.strategies, tree.kv_stores, tree.recipes):
        for index, doc in enumerate(docs):
            if doc is old:
                docs[index] = new
                return


@dataclass
class Workspace:
    """Every tree an open document belongs to, loaded when its first document opens."""

    trees: dict[Path, LoadedTree] = field(default_factory=dict)

    def tree_of(self, path: Path) -> LoadedTree | None:
        root = library.find_tree_root(path)
        if root is None:
            return None
        if root not in self.trees:
            self.trees[root] = LoadedTree.load(root)
        return self.trees[root]
