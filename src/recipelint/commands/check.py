"""`recipelint check PATH...`: validate trees and report findings for the named files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from recipelint.checking import CheckError, CheckOptions, CheckResult, group_by_tree, run_check
from recipelint.config import parse_code_selectors
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.report import FORMATTERS, format_text, summary_line

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def exit_code(diagnostics: list[Diagnostic], strict: bool) -> int:
    """The one place that maps findings to an exit status."""
    threshold = Severity.WARNING if strict else Severity.ERROR
    return EXIT_FINDINGS if any(d.severity >= threshold for d in diagnostics) else EXIT_OK


def _outside_trees(paths: list[Path]) -> None:
    """A named folder outside any tree is a mistake; a named file there (pre-commit passes
    every staged YAML its pattern matches) is skipped with a note."""
    for path in paths:
        if path.is_dir():
            raise click.UsageError(
                f"{path} is not inside a recipe tree (no folder above it holds taxonomy.yaml and models/)"
            )
        click.echo(f"recipelint: skipped {path}: not inside a recipe tree", err=True)


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github", "sarif"]),
              default="text", show_default=True, help="Output format.")
@click.option("--strict", is_flag=True, help="Warnings also make the exit status 1.")
@click.option("--select", multiple=True, metavar="CODE",
              help="Run only these codes or prefixes (repeat, or a comma list: RL1,RL5; ALL).")
@click.option("--ignore", multiple=True, metavar="CODE",
              help="Skip these codes or prefixes (repeat, or a comma list).")
@click.option("--quiet", "-q", is_flag=True, help="No summary line.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place (comments and layout kept), then report the rest.")
@click.option("--diff", is_flag=True, help="Print the safe fixes as a unified diff and write nothing.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
              help="Worker processes for a large check; 0 = one per available CPU, 1 = no workers.")
@click.option("--new-from-rev", metavar="REV",
              help="Report only findings absent at this git revision (a pull request's base).")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Report only findings absent from this baseline file.")
@click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write every current finding to FILE as the baseline, and exit 0.")
@click.pass_context
def check_command(ctx: click.Context, paths: tuple[Path, ...], output_format: str, strict: bool,
                  select: tuple[str, ...], ignore: tuple[str, ...], quiet: bool, fix: bool = False,
                  diff: bool = False, jobs: int = 0, new_from_rev: str | None = None,
                  baseline: Path | None = None, write_baseline: Path | None = None) -> None:
    """Check recipe trees, folders inside them, or single recipe files.

    The whole tree is always loaded for context; findings are reported only for
    the paths named. Exit status: 0 clean, 1 findings, 2 usage or internal error.
    """
    paths = paths or (Path("."),)
    try:
        select, ignore = parse_code_selectors(select), parse_code_selectors(ignore)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if write_baseline is not None and (baseline is not None or new_from_rev is not None):
        raise click.UsageError("--write-baseline records every finding: leave out --baseline and --new-from-rev")
    groups, outside = group_by_tree(paths)
    _outside_trees(outside)
    if fix or diff:
        from recipelint.fix import fix_paths

        changes = fix_paths(groups, select, ignore, write=not diff)
        if diff:
            click.echo(changes.diff, nl=False)
            ctx.exit(EXIT_FINDINGS if changes.files else EXIT_OK)
        if not quiet:
            click.echo(f"fixed {len(changes.files)} file{'s' * (len(changes.files) != 1)}", err=True)
    if jobs == 0:
        from recipelint.parallel import available_cpus

        jobs = available_cpus()
    options = CheckOptions(select, ignore, jobs, new_from_rev, baseline)
    try:
        result = run_check([p for p in paths if p not in outside], options)
    except CheckError as exc:
        raise click.UsageError(str(exc)) from None
    if write_baseline is not None:
        ctx.exit(_write_baseline(write_baseline, result, quiet))
    _print(result, output_format, quiet)
    if not quiet:
        _explain_set_aside(result, new_from_rev, baseline)
    ctx.exit(exit_code(result.diagnostics, strict))


def _print(result: CheckResult, output_format: str, quiet: bool) -> None:
    roots = [Path(os.path.abspath(tree.root)) for tree in result.trees]
    if output_format == "text":
        terminal = sys.stdout.isatty()
        color = terminal and not os.environ.get("NO_COLOR")
        click.echo(format_text(result.diagnostics, result.sources if terminal else None, color=color), nl=False)
        if not quiet:
            click.echo(summary_line(result.diagnostics, result.files), err=True)
    else:
        click.echo(FORMATTERS[output_format](result.diagnostics, roots), nl=False)


def _write_baseline(path: Path, result: CheckResult, quiet: bool) -> int:
    from recipelint.baseline import BaselineError, write_baseline

    found = [(diag, Path(os.path.abspath(tree.root))) for tree in result.trees for diag in tree.diagnostics]
    try:
        count = write_baseline(path, found)
    except BaselineError as exc:
        raise click.UsageError(str(exc)) from None
    if not quiet:
        click.echo(f"recipelint: wrote {count} finding{'s' * (count != 1)} to the baseline {path}", err=True)
    return EXIT_OK


def _explain_set_aside(result: CheckResult, new_from_rev: str | None, baseline: Path | None) -> None:
    if result.known:
        where = f"at {new_from_rev}" if new_from_rev is not None else f"in {baseline}"
        plural = "s were" if result.known != 1 else " was"
        click.echo(f"recipelint: {result.known} finding{plural} already present {where} (not shown)", err=True)
    if result.stale:
        click.echo(f"recipelint: {len(result.stale)} baseline entr{'ies' if len(result.stale) != 1 else 'y'} "
                   f"match no finding any more; rewrite {baseline} with --write-baseline:", err=True)
        for entry in result.stale[:10]:
            click.echo(f"    {entry.get('path')}: {entry.get('code')} {entry.get('message')}", err=True)
