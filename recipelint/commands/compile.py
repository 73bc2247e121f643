"""`recipelint compile TREE -o OUT`: the recipes JSON API, byte-identical to upstream's build."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from recipelint.commands.options import format_option

if TYPE_CHECKING:
    from recipelint.compile.provenance import Provenance

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.exitcodes import EXIT_FINDINGS, EXIT_USAGE
from recipelint.report.formats import FORMATS


def _provenance(
    root: Path,
    no_provenance: bool,
    name: str | None,
    repo: str | None,
    ref: str | None,
    sha: str | None,
) -> Provenance | None:
    """Explicit --source-* options win; otherwise a git checkout fills the block; else none."""
    from recipelint.compile.provenance import Provenance, git_provenance

    given = any(v is not None for v in (name, repo, ref, sha))
    if no_provenance:
        if given:
            raise click.UsageError("--no-provenance cannot be combined with --source-* options")
        return None
    from_git = git_provenance(root, name, repo, ref, sha)
    if from_git is not None:
        return from_git
    if not given:
        return None
    if repo and ref and sha:
        return Provenance(name or repo.split("/")[-1], repo, ref, sha, root)
    missing = [
        opt
        for opt, value in (("--source-repo", repo), ("--source-ref", ref), ("--source-sha", sha))
        if not value
    ]
    raise click.UsageError(
        f"the tree is not in a git checkout, so {', '.join(missing)} must be given"
    )


def _show(
    diagnostics: list[Diagnostic], output_format: str, output_file: Path | None = None
) -> None:
    """Text findings go to stderr (stdout stays free), other formats to stdout; either
    to ``output_file`` when given."""
    from recipelint.commands.output import write_report
    from recipelint.report.formats import FORMATTERS, format_text

    if output_format != "text":
        write_report(FORMATTERS[output_format](diagnostics), output_file)
    elif output_file is not None:
        write_report(format_text(diagnostics), output_file)
    elif diagnostics:
        click.echo(format_text(diagnostics), err=True, nl=False)


@click.command("compile")
@click.argument("tree", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path),
    help="Folder to write the API to (replaced as a whole).",
)
@click.option("--dry-run", is_flag=True, help="Compile and report, write nothing.")
@click.option(
    "--source-name", help="Provenance: name of the source (default: the repository name)."
)
@click.option(
    "--source-repo", help="Provenance: GitHub owner/name (default: from the origin remote)."
)
@click.option("--source-ref", help="Provenance: branch or tag (default: the current branch).")
@click.option("--source-sha", help="Provenance: commit (default: HEAD).")
@click.option("--no-provenance", is_flag=True, help="Never add the `source` block.")
@format_option(FORMATS, "How to print findings.")
@click.option(
    "--output-file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the findings report to FILE (in --format) instead of stderr/stdout.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No summary line, no progress, and no info-level findings in text output.",
)
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of rendered recipes to reuse: a recompile renders only what changed.",
)
def compile_command(
    tree: Path,
    out: Path | None,
    dry_run: bool,
    source_name: str | None,
    source_repo: str | None,
    source_ref: str | None,
    source_sha: str | None,
    no_provenance: bool,
    output_format: str,
    quiet: bool,
    cache_dir: Path | None = None,
    output_file: Path | None = None,
) -> None:
    """Compile the recipe tree TREE into the static JSON API.

    Provenance: with --source-* options every recipe JSON ends with a `source`
    block; without them it is filled from git when TREE is inside a checkout with an
    origin remote, and left out otherwise (or with --no-provenance).

    With --cache DIR each recipe's rendering is kept in DIR, keyed by a hash of the
    recipe, every tree-wide input and recipelint itself; a later compile reuses it
    while none of those changed. Entries the compile did not use are deleted.

    Exit status: 0 compiled, 1 error findings (nothing written), 2 usage error.
    """
    from recipelint.compile.emit import EmitError, check_destination
    from recipelint.read.tree import is_tree_root

    if out is None and not dry_run:
        raise click.UsageError("give the output folder with -o OUT (or use --dry-run)")
    if not is_tree_root(tree):
        raise click.UsageError(f"{tree} is not a recipe tree (it needs taxonomy.yaml and models/)")
    if out is not None and not dry_run:
        try:
            check_destination(out, tree)
        except EmitError as exc:
            raise click.UsageError(str(exc)) from exc
    if cache_dir is not None and out is not None and _inside(cache_dir, out):
        raise click.UsageError(
            f"the cache {cache_dir} must not be inside the output folder {out}, "
            "which every compile replaces"
        )
    provenance = _provenance(
        tree.resolve(), no_provenance, source_name, source_repo, source_ref, source_sha
    )

    from recipelint.collector import few_full_collections
    from recipelint.compile.compilerun import CompileRun, read_tree
    from recipelint.configuration.config import load_config
    from recipelint.read.configfile import ConfigError

    try:
        config = load_config(tree)
    except ConfigError as exc:
        _show([exc.diagnostic], output_format, output_file)
        sys.exit(EXIT_FINDINGS)
    started = time.perf_counter()
    with few_full_collections():
        loaded, recipe_files = read_tree(tree, config.limits)
        cache = None
        if cache_dir is not None:
            from recipelint.compile.cache import RecipeCache, tree_fingerprint

            fingerprint = tree_fingerprint(
                loaded,
                provenance,
                config.max_renderings,
                config.limits,
                recipe_files.rels if recipe_files is not None else None,
            )
            cache = RecipeCache(cache_dir, fingerprint)
        run = CompileRun(loaded, recipe_files, provenance, config.max_renderings, cache, quiet)
        if dry_run:
            result, size = run.measure()
        else:
            try:
                result, written = run.publish(out)  # type: ignore[arg-type]  # set unless dry run
            except EmitError as exc:
                click.echo(f"recipelint compile: {exc}", err=True)
                sys.exit(EXIT_USAGE)
    shown = result.diagnostics
    if quiet and output_format == "text":
        shown = [d for d in shown if d.severity is not Severity.INFO]
    _show(shown, output_format, output_file)
    errors = sum(1 for d in result.diagnostics if d.severity is Severity.ERROR)
    if errors:
        if not quiet:
            click.echo(f"recipelint compile: {errors} error(s); nothing written", err=True)
        sys.exit(EXIT_FINDINGS)
    if dry_run:
        if not quiet:
            click.echo(
                f"recipelint compile: {len(result.files.ledger)} files, {size} bytes rendered "
                "(dry run, nothing written)",
                err=True,
            )
        return
    if cache is not None:
        # The output is in place, the compile has succeeded: an interrupt only cuts the
        # pruning short, and the next compile prunes the rest.
        with contextlib.suppress(KeyboardInterrupt):
            cache.prune()
    if not quiet:
        reuse = (
            f" ({cache.hits} recipes from the cache, {cache.misses} rendered)"
            if cache is not None
            else ""
        )
        click.echo(
            f"recipelint compile: wrote {written} files to {out} in "
            f"{time.perf_counter() - started:.1f}s{reuse}",
            err=True,
        )


def _inside(path: Path, folder: Path) -> bool:
    path, folder = Path(os.path.abspath(path)), Path(os.path.abspath(folder))
    return path == folder or folder in path.parents
