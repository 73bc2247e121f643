"""`recipelint diff BASE HEAD`: the resolved vllm commands that a change alters.

Each side is a folder (a recipe tree, or a folder inside one) or a git revision of
the repository the command runs in. A revision's tree is extracted with
`git archive` into a temporary folder; git is run with argument lists only, and a
revision name is checked with `git rev-parse --verify --end-of-options`, so a
name can neither reach a shell nor be read as an option.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import click

from recipelint.commands.check import EXIT_FINDINGS, EXIT_OK
from recipelint.progress import Progress
from recipelint.revision import (
    RevisionError,
    stays_inside,
    default_tree_path,
    default_tree_path_for,
    extract_tree,
    repository_top,
    resolve_commit,
)
from recipelint.tree import find_tree_root

# --exit-code: a changed command is diff's "finding".
EXIT_CHANGED = EXIT_FINDINGS


def resolve_side(spec: str, tree_path: str | None, stack: ExitStack, cwd: Path,
                 progress: Progress | None = None) -> Path:
    """A folder's tree root, or a revision extracted into a temporary folder."""
    folder = Path(spec)
    if folder.is_dir():
        root = find_tree_root(folder)
        if root is None:
            raise click.UsageError(
                f"{spec} is a folder but not a recipe tree "
                "(no folder above it holds taxonomy.yaml and models/)"
            )
        return root
    try:
        top = repository_top(cwd)
        if top is None:
            raise click.UsageError(f"{spec!r} is not a folder, and {cwd} is not in a git repository")
        sha = resolve_commit(spec, top)
        if sha is None:
            raise click.UsageError(
                f"{spec!r} is neither a folder nor a revision of the repository at {top}"
            )
        where = tree_path if tree_path is not None else default_tree_path(top, cwd.resolve())
        if not stays_inside(where):
            raise RevisionError(f"--tree {where!r} must be a relative path inside the repository")
        temporary = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="recipelint-diff-")))
        if progress is not None:
            progress.phase(f"extracting {spec}")
        return extract_tree(sha, top, where, temporary)
    except RevisionError as exc:
        raise click.UsageError(str(exc)) from None


def compiled_documents(root: Path, label: str, progress: Progress | None = None) -> dict[str, Any]:
    from recipelint.compiler import Compiler
    from recipelint.diagnostics import Severity
    from recipelint.tree import load_tree

    # compile_tree's steps, spelled out so a terminal sees recipes compiled / total.
    compiler = Compiler(load_tree(root))
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
    if errors:
        if progress is not None:
            progress.close()  # the note gets a line of its own
        click.echo(
            f"recipelint diff: {label}: {errors} compile error{'s' if errors != 1 else ''}; "
            "renderings that failed are missing from that side",
            err=True,
        )
    return {path: result.files.document(path) for path in result.files.paths()}


@click.command("diff")
@click.argument("base")
@click.argument("head")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--tree",
    "tree_path",
    metavar="PATH",
    help="Where the recipe tree is inside the repository, for revision sides "
    "(default: the tree around the current folder, else the repository root "
    "when it is one, else recipes).",
)
@click.option("--exit-code", is_flag=True, help="Exit 1 when any command changed.")
@click.option("--output-file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write the diff to FILE instead of stdout.")
@click.option("-q", "--quiet", is_flag=True, help="No progress line on the terminal.")
@click.pass_context
def diff_command(
    ctx: click.Context,
    base: str,
    head: str,
    output_format: str,
    tree_path: str | None,
    exit_code: bool,
    output_file: Path | None = None,
    quiet: bool = False,
) -> None:
    """Show how the resolved vllm commands differ between BASE and HEAD.

    BASE and HEAD are each a recipe-tree folder or a git revision of the current
    repository (a name that is an existing folder is read as the folder). For every
    recipe x variant x hardware x strategy rendering whose command changed, prints
    the flags and environment variables added, removed or changed, then the
    renderings that appeared or disappeared.
    """
    from recipelint.diffing import FORMATTERS, diff_renderings
    from recipelint.report import write_report

    cwd = Path.cwd()
    with ExitStack() as stack:
        progress = stack.enter_context(Progress("recipelint diff", quiet=quiet))
        old_root = resolve_side(base, tree_path, stack, cwd, progress)
        new_root = resolve_side(head, tree_path, stack, cwd, progress)
        if not any((root / "taxonomy.yaml").is_file() for root in (old_root, new_root)):
            # One side without the tree is a tree being added or removed; both is a wrong --tree.
            raise click.UsageError(
                f"neither {base!r} nor {head!r} holds a recipe tree at "
                f"{tree_path or default_tree_path_for(cwd)!r}; say where it is with --tree"
            )
        old = compiled_documents(old_root, base, progress)
        new = compiled_documents(new_root, head, progress)
    result = diff_renderings(old, new)
    write_report(FORMATTERS[output_format](result), output_file)
    ctx.exit(EXIT_CHANGED if exit_code and result else EXIT_OK)
