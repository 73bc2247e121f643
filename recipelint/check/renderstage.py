"""The check's rendering stage: what rendering the named recipes reveals (RL70x/RL71x, RL018).

`recipelint check` plans what the recipes in focus publish (recipelint.compile.publication, which
renders through recipelint.resolve) in runs that forked helpers can share
(recipelint.parallel), keeps the output paths only, and reports what the compile would
refuse. The compile's output machinery (output map, streaming writer, emit) is not used.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.read.load import Document
from recipelint.read.tree import RecipeTree

if TYPE_CHECKING:
    from recipelint.compile.publication import RecipeOutcome

T = TypeVar("T")
Focus = Callable[[Path], bool]
Task = Callable[[], list[Any]]
# The codes only rendering finds; the rest of what a compile reports, rules report more precisely.
COMPILE_CODES = ("RL70", "RL71", "RL018")


def wanted(config: Config) -> bool:
    """Whether the configuration enables any code only rendering finds (`--select RL706` too)."""
    from recipelint.rulebook.catalog import load_rulebook

    return any(
        config.is_enabled(code) for code in load_rulebook() if code.startswith(COMPILE_CODES)
    )


class RenderingStage:
    """What rendering the named recipes reveals: synthesis failures, unsafe output paths, …

    Each task plans the publication of a run of consecutive recipes, keeping paths but no
    documents; the paths are replayed in tree order, so overwrites between recipes are found
    exactly as in a compile. Nothing is serialised or written.
    """

    def __init__(self, tree: RecipeTree, config: Config, focus: Focus) -> None:
        from recipelint.compile.publication import PlannedPaths, Publisher

        self.publisher = Publisher(tree, None, config.max_renderings)
        self.paths = PlannedPaths()
        self.globals = self.publisher.publish_globals(self.paths)
        self.recipes = _with_neighbours(tree.recipes, focus) if self.globals is not None else []

    def tasks(self, pieces: int, recipes: list[Document] | None = None) -> list[Task]:
        """The planning of ``recipes`` (default: all of them) in at most ``pieces`` runs."""
        todo = self.recipes if recipes is None else recipes
        return [functools.partial(self._plan, chunk) for chunk in _chunks(todo, pieces)]

    def _plan(self, recipes: list[Document]) -> list[Any]:
        assert self.globals is not None  # no recipes are planned without the tree-wide files
        return [
            self.publisher.publish_recipe(doc, self.globals, paths_only=True) for doc in recipes
        ]

    def diagnostics(self, results: Iterable[list[Any]]) -> list[Diagnostic]:
        entries: list[dict[str, Any]] = []
        promoted: list[dict[str, Any]] = []
        found = self.publisher.diagnostics
        for outcomes in results:
            for outcome in outcomes:
                outcome.writes.apply_to(self.paths)
                found.extend(outcome.diagnostics)
                if outcome.index_entry is not None:
                    entries.append(outcome.index_entry)
                promoted.extend(outcome.promoted_entries)
        if self.globals is not None:
            self.publisher.publish_closing(self.paths, entries + promoted)
        self.publisher.check_paths(self.paths.ledger)
        found.sort(key=Diagnostic.sort_key)
        return [diag for diag in found if diag.code.startswith(COMPILE_CODES)]


def _with_neighbours(recipes: list[Document], focus: Focus) -> list[Document]:
    """The recipes in focus and, in tree order with them, every other recipe that writes in one
    of their output folders: an overwrite or a skipped promotion between a named file and one
    left out is found only by planning both (their own findings are dropped with the focus)."""
    from recipelint.compile.publication import output_folders

    named = [doc for doc in recipes if focus(doc.path)]
    if len(named) == len(recipes):
        return named
    folders = set().union(*(output_folders(doc) for doc in named))
    return [doc for doc in recipes if focus(doc.path) or output_folders(doc) & folders]


def _chunks(items: list[T], pieces: int) -> list[list[T]]:
    """``items`` cut into at most ``pieces`` consecutive runs of near-equal length."""
    pieces = max(1, min(pieces, len(items)))
    size, extra = divmod(len(items), pieces)
    runs, start = [], 0
    for index in range(pieces):
        end = start + size + (1 if index < extra else 0)
        runs.append(items[start:end])
        start = end
    return [run for run in runs if run]


def kept_outcome(found: object) -> RecipeOutcome | None:
    """A cache entry read back as a recipe's planned rendering, or None if it is anything else
    (unpickling one has imported the compile stage already; nothing else does)."""
    if found is None:
        return None
    from recipelint.compile.publication import RecipeOutcome

    return found if isinstance(found, RecipeOutcome) else None
