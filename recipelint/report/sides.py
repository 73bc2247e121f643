"""The two sides a diff compares: a recipe tree in a folder or at a git revision,
compiled to the JSON API's documents.

A revision's tree is extracted with `git archive` into a temporary folder
(:mod:`recipelint.read.revision`). Failures raise :class:`SideError`; `recipelint diff`
turns it into a usage error, the job summary into a note.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from recipelint.progress import Progress
from recipelint.read.revision import (
    NotARepository,
    RevisionError,
    UnknownRevision,
    default_tree_path,
    extract_tree,
    locate_commit,
    stays_inside,
)
from recipelint.read.tree import find_tree_root


class SideError(Exception):
    """A side names neither a recipe tree folder nor a revision holding one."""


def resolve_side(
    spec: str, tree_path: str | None, stack: ExitStack, cwd: Path, progress: Progress | None = None
) -> Path:
    """A folder's tree root, or a revision extracted into a temporary folder that lives
    as long as ``stack``."""
    folder = Path(spec)
    if folder.is_dir():
        root = find_tree_root(folder)
        if root is None:
            raise SideError(
                f"{spec} is a folder but not a recipe tree "
                "(no folder above it holds taxonomy.yaml and models/)"
            )
        return root
    try:
        try:
            top, sha = locate_commit(spec, cwd)
        except UnknownRevision as exc:
            raise SideError(
                f"{spec!r} is neither a folder nor a revision of the repository at {exc.top}"
            ) from None
        except NotARepository as exc:
            raise SideError(f"{spec!r} is not a folder, and {exc}") from None
        where = tree_path if tree_path is not None else default_tree_path(top, cwd.resolve())
        if not stays_inside(where):
            raise SideError(f"--tree {where!r} must be a relative path inside the repository")
        temporary = Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="recipelint-diff-"))
        )
        if progress is not None:
            progress.phase(f"extracting {spec}")
        return extract_tree(sha, top, where, temporary)
    except RevisionError as exc:
        raise SideError(str(exc)) from None


def compiled_documents(
    root: Path,
    label: str,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every document the tree at ``root`` compiles to, by path; ``warn`` hears of compile
    errors (the renderings that failed are missing)."""
    from recipelint.compile.compiler import Compiler, OutputMap
    from recipelint.diagnostics import Severity
    from recipelint.read.tree import load_tree

    # compile_tree's steps, spelled out so a terminal sees recipes compiled / total.
    compiler = Compiler[OutputMap](load_tree(root))
    globals_ = compiler.prepare()
    if globals_ is not None:
        recipes = compiler.tree.recipes
        if progress is not None:
            progress.phase(f"compiling {label}", len(recipes))
        for doc in recipes:
            compiler.absorb(compiler.compile_recipe(doc, globals_))
            if progress is not None:
                progress.advance()
    result = compiler.finish(globals_)
    errors = sum(1 for d in result.diagnostics if d.severity is Severity.ERROR)
    if errors and warn is not None:
        if progress is not None:
            progress.close()  # the note gets a line of its own
        warn(
            f"recipelint diff: {label}: {errors} compile error{'s' if errors != 1 else ''}; "
            "renderings that failed are missing from that side"
        )
    return {path: result.files.document(path) for path in result.files.paths()}
