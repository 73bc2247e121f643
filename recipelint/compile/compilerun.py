"""One `recipelint compile` of a tree on disk: streamed into OUT as it is rendered, or only
measured (`--dry-run`).

The recipes are read one at a time; with a cache each recipe's outcome is taken from it
when its inputs are unchanged, and the replaced output is kept beside OUT to be brought up
to date by the next compile (recipelint.compile.carryover). A tree whose writes cannot be replayed
in order on a disk (a file a later write replaces by a folder) is compiled in memory
instead. The command layer (recipelint.commands.compile) only turns options into a
:class:`CompileRun` and its outcome into messages and an exit status.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint.compile.compilation import (
    CompileBlocked,
    CompileFailed,
    Compiler,
    CompileResult,
    FileOp,
    StreamedOutput,
    streamed_files,
)

if TYPE_CHECKING:
    from recipelint.compile.cache import RecipeCache
    from recipelint.compile.emit import Step
    from recipelint.compile.outputmap import OutputMap
    from recipelint.compile.provenance import Provenance
    from recipelint.read.load import Document, LoadLimits
    from recipelint.read.recipefiles import RecipeFiles
    from recipelint.read.tree import RecipeTree


def read_tree(root: Path, limits: LoadLimits) -> tuple[RecipeTree, RecipeFiles | None]:
    """The tree with its recipes to be read one at a time; loaded whole when listing it
    found a problem (which the whole load then reports)."""
    from recipelint.read.recipefiles import tree_and_recipe_files
    from recipelint.read.tree import load_tree

    lazy = tree_and_recipe_files(root, limits)
    return lazy if lazy is not None else (load_tree(root, limits), None)


class CompileRun:
    """One compile of a tree, streamed to its destination (or only measured)."""

    def __init__(
        self,
        tree: RecipeTree,
        recipe_files: RecipeFiles | None,
        provenance: Provenance | None,
        max_renderings: int,
        cache: RecipeCache | None = None,
        quiet: bool = True,
    ) -> None:
        self.tree = tree
        self.recipe_files = recipe_files
        self.provenance = provenance
        self.max_renderings = max_renderings
        self.cache = cache
        self.quiet = quiet  # no progress line

    def publish(self, out: Path) -> tuple[CompileResult[Any], int]:
        """Write the output to ``out`` as it is compiled; (the result, files written), and
        nothing written when the compile found errors. Raises recipelint.compile.emit.EmitError
        when the output cannot be written (OUT is then unchanged)."""
        compiler, steps = self._steps()
        try:
            written = self._replace(steps, out)
        except CompileFailed as failed:
            return failed.result, 0
        except CompileBlocked:
            result = self._in_memory()
            return result, self._replace(result.files.items(), out)
        return _finished(compiler), written

    def measure(self) -> tuple[CompileResult[Any], int]:
        """Compile without writing; (the result, bytes the output would hold)."""
        compiler, steps = self._steps()
        # Each path's last size; the ledger says which paths the output keeps in the end
        # (a removed folder's files are not looked for at each `rm -rf`: that was quadratic).
        sizes: dict[str, int] = {}
        try:
            for path, data in steps:
                if data is not None:
                    sizes[path] = len(data)
        except CompileFailed as failed:
            return failed.result, 0
        except CompileBlocked:
            result = self._in_memory()
            return result, sum(len(data) for _, data in result.files.items())
        return _finished(compiler), sum(sizes[path] for path in compiler.out.ledger.origins)

    def _steps(self) -> tuple[Compiler[StreamedOutput], Iterator[FileOp]]:
        """The compiler and its writer steps, with a recipes-compiled counter on a terminal."""
        from recipelint.progress import Progress

        compiler = Compiler(
            self.tree, self.provenance, self.max_renderings, StreamedOutput(), self.recipe_files
        )
        recipes: Sequence[Document] | RecipeFiles = (
            self.recipe_files if self.recipe_files is not None else self.tree.recipes
        )

        def counted() -> Iterator[FileOp]:
            with Progress("compiling recipes", len(recipes), quiet=self.quiet) as progress:
                yield from streamed_files(compiler, progress.iterate(recipes), self.cache)

        return compiler, counted()

    def _replace(self, files: Iterable[Step], out: Path) -> int:
        """emit.replace_folder; with a cache, the replaced output is kept beside OUT and
        brought up to date by the next compile."""
        from recipelint.compile.carryover import CarryOver
        from recipelint.compile.emit import replace_folder

        # Every path passed the compile's PathLedger, which refuses the unsafe ones.
        carry = CarryOver(self.cache.folder, out) if self.cache is not None else None
        return replace_folder(files, out, carry, checked=True)

    def _in_memory(self) -> CompileResult[OutputMap]:
        """The whole output in memory: for the rare tree whose writes cannot be replayed in
        order on a disk."""
        from recipelint.read.tree import load_tree

        whole = (
            load_tree(self.tree.root, self.recipe_files.limits) if self.recipe_files else self.tree
        )
        return Compiler(whole, self.provenance, self.max_renderings).run(source=self.cache)


def _finished(compiler: Compiler[StreamedOutput]) -> CompileResult[StreamedOutput]:
    result = compiler.result
    assert result is not None  # the steps were consumed to the end, so the compile finished
    return result
