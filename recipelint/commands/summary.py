"""`recipelint summary PATH...`: the Markdown job summary of the GitHub Action.

Counts the findings of `recipelint check` per rule and, given `--diff-base REV`
(a pull request's base commit), appends the resolved-command changes between
that revision and the checked-out tree. The text comes from
:mod:`recipelint.report.jobsummary`; this module only wires the options to it.
"""

from __future__ import annotations

from pathlib import Path

import click

from recipelint.check.checking import CheckError, CheckOptions, CheckResult, run_check
from recipelint.commands.options import config_file_option
from recipelint.configuration.selectors import parse_code_selectors
from recipelint.report.jobsummary import diff_markdown, findings_markdown, known_markdown


def _check(paths: tuple[Path, ...], options: CheckOptions) -> CheckResult:
    try:
        return run_check(paths, options)
    except CheckError as exc:
        raise click.UsageError(str(exc)) from None


def _selection(
    select: tuple[str, ...], ignore: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    try:
        return parse_code_selectors(select), parse_code_selectors(ignore)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _warn(text: str) -> None:
    click.echo(text, err=True)


@click.command("summary")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--diff-base",
    metavar="REV",
    help="Also list the resolved-command changes from this git revision to the tree.",
)
@click.option(
    "--new-from-rev",
    metavar="REV",
    help="Count only findings absent at this git revision; state the others separately.",
)
@click.option("--select", multiple=True, metavar="CODE", help="As `check --select`.")
@click.option("--ignore", multiple=True, metavar="CODE", help="As `check --ignore`.")
@config_file_option
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Append to this file (e.g. $GITHUB_STEP_SUMMARY) instead of printing.",
)
def summary_command(
    paths: tuple[Path, ...],
    diff_base: str | None,
    new_from_rev: str | None,
    output: Path | None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    config_file: Path | None = None,
) -> None:
    """Markdown summary of `recipelint check` (counts per rule) and, with
    --diff-base, of the command changes: the GitHub Action's job summary.

    --select, --ignore and --config choose the rules as they do for `check`, so the
    summary counts what the annotations show."""
    paths = paths or (Path("."),)
    select, ignore = _selection(select, ignore)
    result = _check(
        paths, CheckOptions(select, ignore, new_from_rev=new_from_rev, config_file=config_file)
    )
    parts = [findings_markdown(result.diagnostics, result.files)]
    if new_from_rev is not None:
        parts.append(known_markdown(result.known, new_from_rev))
    if diff_base is not None:
        parts += [diff_markdown(diff_base, tree.root, warn=_warn) for tree in result.trees]
    text = "\n".join(parts)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with output.open("a", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as exc:
        raise click.UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
