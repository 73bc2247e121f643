"""`recipelint diff BASE HEAD`: the resolved vllm commands that a change alters.

Each side is a folder (a recipe tree, or a folder inside one) or a git revision of
the repository the command runs in; :mod:`recipelint.report.sides` finds and compiles each
side (a revision's tree through `git archive`, its name checked so that it can
neither reach a shell nor be read as an option). This module only wires the options.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import click

from recipelint.commands.options import format_option
from recipelint.exitcodes import EXIT_FINDINGS, EXIT_OK
from recipelint.progress import Progress
from recipelint.read.revision import default_tree_path_for
from recipelint.report.sides import SideError, compiled_documents, resolve_side

# --exit-code: a changed command is diff's "finding".
EXIT_CHANGED = EXIT_FINDINGS


def _warn(text: str) -> None:
    click.echo(text, err=True)


@click.command("diff")
@click.argument("base")
@click.argument("head")
@format_option(["text", "markdown", "json"])
@click.option(
    "--tree",
    "tree_path",
    metavar="PATH",
    help="Where the recipe tree is inside the repository, for revision sides "
    "(default: the tree around the current folder, else the repository root "
    "when it is one, else recipes).",
)
@click.option("--exit-code", is_flag=True, help="Exit 1 when any command changed.")
@click.option(
    "--output-file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the diff to FILE instead of stdout.",
)
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
    from recipelint.commands.output import write_report
    from recipelint.report.diffing import DIFF_FORMATS, diff_renderings

    cwd = Path.cwd()
    with ExitStack() as stack:
        progress = stack.enter_context(Progress("recipelint diff", quiet=quiet))
        try:
            old_root = resolve_side(base, tree_path, stack, cwd, progress)
            new_root = resolve_side(head, tree_path, stack, cwd, progress)
        except SideError as exc:
            raise click.UsageError(str(exc)) from None
        if not any((root / "taxonomy.yaml").is_file() for root in (old_root, new_root)):
            # One side without the tree is a tree being added or removed; both is a wrong --tree.
            raise click.UsageError(
                f"neither {base!r} nor {head!r} holds a recipe tree at "
                f"{tree_path or default_tree_path_for(cwd)!r}; say where it is with --tree"
            )
        old = compiled_documents(old_root, base, progress, warn=_warn)
        new = compiled_documents(new_root, head, progress, warn=_warn)
    result = diff_renderings(old, new)
    write_report(DIFF_FORMATS[output_format](result), output_file)
    ctx.exit(EXIT_CHANGED if exit_code and result else EXIT_OK)
