"""One compile of a loaded tree: the publication plan applied to an output, in tree order.

:class:`Compiler` publishes the tree-wide files, then each recipe (compiled here, or taken
from a cache), then models.json and quickstart, and checks the paths the output ends up
with. The output decides what happens to the documents: :class:`OutputMap` keeps them
(the library's `compile_tree`), :class:`StreamedOutput` hands each one on, serialised, to
be written as soon as it is rendered (`recipelint compile`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from recipelint.compile.emit import Withdrawn
from recipelint.compile.outputmap import OutputMap
from recipelint.compile.outputpaths import REWRITTEN, PathLedger
from recipelint.compile.provenance import Provenance
from recipelint.compile.publication import (
    Globals,
    Output,
    Publisher,
    RecipeOutcome,
    RecipeSource,
    StoredDocument,
    WriteJournal,
)
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.jsvalue import JsonDocument, JsOut, dumps
from recipelint.read.load import Document
from recipelint.read.recipefiles import RecipeFile
from recipelint.read.tree import RecipeTree

OutputT = TypeVar("OutputT", bound=Output)


@dataclass
class CompileResult(Generic[OutputT]):
    files: OutputT
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)


class OutcomeSource(Protocol):
    """Where a compile gets a recipe's outcome from instead of compiling it (a cache)."""

    def outcome(
        self, compiler: Compiler[Any], doc: Document, globals_: Globals
    ) -> RecipeOutcome: ...

    def file_outcome(
        self, compiler: Compiler[Any], recipe: RecipeFile, globals_: Globals
    ) -> RecipeOutcome: ...


class Compiler(Publisher, Generic[OutputT]):
    """Compiles one loaded tree into ``output`` (in memory by default)."""

    def __init__(
        self,
        tree: RecipeTree,
        provenance: Provenance | None = None,
        max_renderings: int = 5000,
        output: OutputT | None = None,
        recipes: RecipeSource | None = None,
    ):
        super().__init__(tree, provenance, max_renderings, recipes)
        self.out: OutputT = output if output is not None else OutputMap()  # type: ignore[assignment]
        self.index_entries: list[JsonDocument] = []  # models.json: every parent recipe ...
        self.promoted_entries: list[JsonDocument] = []  # ... then every promoted variant
        self.result: CompileResult[OutputT] | None = None  # set by finish

    def run(
        self,
        recipe_filter: Callable[[Document], bool] | None = None,
        source: OutcomeSource | None = None,
    ) -> CompileResult[OutputT]:
        """Compile the tree; with ``recipe_filter`` only the recipes it accepts, with
        ``source`` taking each recipe's outcome from there (a cache)."""
        globals_ = self.prepare()
        if globals_ is not None:
            for doc in self.tree.recipes:
                if recipe_filter is None or recipe_filter(doc):
                    self.absorb(self.outcome_of(doc, globals_, source))
        return self.finish(globals_)

    # The steps of `run`, public so that a caller can show progress or stream the output.

    def prepare(self) -> Globals | None:
        """Write the tree-wide files; None when there is no usable taxonomy (already reported)."""
        return self.publish_globals(self.out)

    def compile_recipe(self, doc: Document, globals_: Globals) -> RecipeOutcome:
        return self.publish_recipe(doc, globals_)

    def compile_file(self, recipe: RecipeFile, globals_: Globals | None) -> RecipeOutcome:
        """A recipe file parsed and compiled: the findings of reading it come first."""
        doc = recipe.document()
        if globals_ is None:
            return RecipeOutcome(WriteJournal(), list(doc.problems))
        outcome = self.compile_recipe(doc, globals_)
        outcome.diagnostics[:0] = doc.problems
        return outcome

    def outcome_of(
        self, doc: Document, globals_: Globals, source: OutcomeSource | None = None
    ) -> RecipeOutcome:
        if source is not None:
            return source.outcome(self, doc, globals_)
        return self.compile_recipe(doc, globals_)

    def file_outcome(
        self, recipe: RecipeFile, globals_: Globals | None, source: OutcomeSource | None = None
    ) -> RecipeOutcome:
        if source is not None and globals_ is not None:
            return source.file_outcome(self, recipe, globals_)
        return self.compile_file(recipe, globals_)

    def absorb(self, outcome: RecipeOutcome) -> None:
        outcome.writes.apply_to(self.out)
        self.diagnostics.extend(outcome.diagnostics)
        if outcome.index_entry is not None:
            self.index_entries.append(outcome.index_entry)
        self.promoted_entries.extend(outcome.promoted_entries)

    def finish(self, globals_: Globals | None) -> CompileResult[OutputT]:
        if globals_ is not None:
            self.publish_closing(self.out, self.index_entries + self.promoted_entries)
        self.check_paths(self.out.ledger)
        self.diagnostics.sort(key=Diagnostic.sort_key)
        self.result = CompileResult(self.out, self.diagnostics)
        return self.result


# A step for the writer: (path, bytes) writes a new file, (path, None) is `rm -rf path`;
# a cache's document is handed on unread (the writer may find its bytes already there).
FileOp = tuple[str, bytes | StoredDocument | None]


class StreamedOutput:
    """Serialises each document as it arrives and queues it for the writer; keeps paths only.

    The disk must be able to follow every step: a file where a later write needs a folder
    (or the reverse) cannot be written in order. Such a compile is `blocked`; its final
    output may still be valid (a later `rm -rf` can clear the way), so the caller then
    compiles in memory instead.
    """

    def __init__(self) -> None:
        self.ledger = PathLedger()
        # Every folder a write has made. A folder emptied by an `rm -rf` stays listed: a
        # file later written at its path is taken as blocked, which only costs a compile
        # in memory, and output files (`.json`) never share a name with a folder.
        self._folders: set[str] = set()
        self._ready: list[FileOp] = []
        self.blocked = False

    def write(
        self,
        path: str,
        doc: JsOut,
        special: bool,
        origin: str,
        data: bytes | StoredDocument | None = None,
    ) -> None:
        done = self.ledger.write(path, origin)
        if not done or self.blocked:
            return
        if done == REWRITTEN:
            self._ready.append((path, None))
        else:
            folders = self._folders
            parent = path.rpartition("/")[0]
            if path in folders or (
                parent and parent not in folders and not self._made_parents(path)
            ):
                self.blocked = True
                return
        self._ready.append((path, data if data is not None else dumps(doc, special=special)))

    def _made_parents(self, path: str) -> bool:
        """Record the folders ``path`` needs; False when one of them is an output file."""
        for folder in _parents(path):
            if folder in self.ledger.origins:
                return False
            self._folders.add(folder)
        return True

    def remove_tree(self, base: str) -> None:
        if self.ledger.remove_tree(base) and not self.blocked:
            self._ready.append((base, None))

    def take(self) -> list[FileOp]:
        """The steps queued since the last call, in order."""
        ready, self._ready = self._ready, []
        return ready


def _parents(path: str) -> Iterator[str]:
    cut = path.find("/")
    while cut != -1:
        yield path[:cut]
        cut = path.find("/", cut + 1)


class CompileFailed(Withdrawn):
    """The compile found errors: nothing may be published."""

    def __init__(self, result: CompileResult[Any]) -> None:
        super().__init__("the compile found errors")
        self.result = result


class CompileBlocked(Withdrawn):
    """The output cannot be written in order (see :class:`StreamedOutput`)."""


def streamed_files(
    compiler: Compiler[StreamedOutput],
    recipes: Iterable[Document | RecipeFile],
    source: OutcomeSource | None = None,
) -> Iterator[FileOp]:
    """Compile ``recipes`` (the loaded tree's, or its recipe files, whose load findings are
    reported here; possibly wrapped in a progress counter) and yield each writer step as
    soon as it is known. Raises :class:`CompileFailed` at the end when the compile found
    errors and :class:`CompileBlocked` when the writer could not follow."""
    out = compiler.out
    globals_ = compiler.prepare()
    yield from out.take()
    for recipe in recipes:
        if isinstance(recipe, RecipeFile):
            compiler.absorb(compiler.file_outcome(recipe, globals_, source))
        elif globals_ is not None:
            compiler.absorb(compiler.outcome_of(recipe, globals_, source))
        yield from out.take()
    result = compiler.finish(globals_)
    yield from out.take()
    if not result.ok:
        raise CompileFailed(result)
    if out.blocked:
        raise CompileBlocked("an output file stands where a later write needs a folder")
