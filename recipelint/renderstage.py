"""The check's rendering stage: what rendering the named recipes reveals (RL70x/RL71x, RL018).

`recipelint check` renders every command of the recipes in focus, in runs that forked helpers
can share (recipelint.parallel), and reports what the compile would refuse.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from recipelint.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.load import Document
from recipelint.tree import RecipeTree

T = TypeVar("T")
Focus = Callable[[Path], bool]
Task = Callable[[], list[Any]]
# The codes only rendering finds; the rest of what a compile reports, rules report more precisely.
COMPILE_CODES = ("RL70", "RL71", "RL018")


class RenderingStage:
    """What rendering the named recipes reveals: synthesis failures, unsafe output paths, …

    Each task compiles a run of consecutive recipes; their outcomes are absorbed in tree
    order, so overwrites between recipes are found exactly as in one sequential compile.
    """

    def __init__(self, tree: RecipeTree, config: Config, focus: Focus) -> None:
        from recipelint.compiler import Compiler

        self.compiler = Compiler(tree, None, config.max_renderings)
        self.globals = self.compiler.prepare()
        self.recipes = (
            [doc for doc in tree.recipes if focus(doc.path)] if self.globals is not None else []
        )

    def tasks(self, pieces: int) -> list[Task]:
        return [functools.partial(self._compile, chunk) for chunk in _chunks(self.recipes, pieces)]

    def _compile(self, recipes: list[Document]) -> list[Any]:
        return [
            self.compiler.compile_recipe(doc, self.globals, keep_documents=False) for doc in recipes
        ]

    def diagnostics(self, results: Iterable[list[Any]]) -> list[Diagnostic]:
        for outcomes in results:
            for outcome in outcomes:
                self.compiler.absorb(outcome)
        found = self.compiler.finish(self.globals).diagnostics
        return [diag for diag in found if diag.code.startswith(COMPILE_CODES)]


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
