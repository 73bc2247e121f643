"""`recipelint summary PATH...`: the Markdown job summary of the GitHub Action.

Counts the findings of `recipelint check` per rule and, given `--diff-base REV`
(a pull request's base commit), appends the resolved-command changes between
that revision and the checked-out tree. Recipe text appears only inside code
spans escaped by :func:`recipelint.diffing.markdown_code`, so it can neither
inject HTML nor break a table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

import click

from recipelint.catalog import rule_info
from recipelint.checking import CheckOptions, CheckResult
from recipelint.config import config_file_option
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.diffing import markdown_code

_PLURAL = {Severity.ERROR: "errors", Severity.WARNING: "warnings", Severity.INFO: "notes"}
_SINGULAR = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _count(number: int, severity: Severity) -> str:
    return f"{number} {_SINGULAR[severity] if number == 1 else _PLURAL[severity]}"


def findings_markdown(
    diagnostics: Sequence[Diagnostic], files: int, heading: str = "## recipelint"
) -> str:
    """Totals, then one table row per rule: code, name, severity, number of findings."""
    lines = [heading, ""]
    if not diagnostics:
        return "\n".join([*lines, f"No problems in {files} file{'s' if files != 1 else ''}.", ""])
    by_severity = Counter(d.severity for d in diagnostics)
    totals = ", ".join(_count(by_severity[s], s) for s in sorted(by_severity, reverse=True))
    lines += [
        f"**{totals}** in {files} file{'s' if files != 1 else ''}.",
        "",
        "| rule | name | severity | findings |",
        "|---|---|---|---:|",
    ]
    per_rule = Counter((d.code, d.severity) for d in diagnostics)
    for (code, severity), number in sorted(
        per_rule.items(), key=lambda item: (-item[0][1], item[0][0])
    ):
        info = rule_info(code)
        name = markdown_code(info.name) if info else ""
        lines.append(f"| {markdown_code(code)} | {name} | {_SINGULAR[severity]} | {number} |")
    return "\n".join(lines) + "\n"


def known_markdown(known: int, new_from_rev: str) -> str:
    """The findings a pull request did not introduce: counted, not annotated."""
    if not known:
        return f"No finding was already present at {markdown_code(new_from_rev)}.\n"
    plural = "s were" if known != 1 else " was"
    return (f"{known} finding{plural} already present at {markdown_code(new_from_rev)}: "
            "not annotated, and not counted above.\n")


def _check(paths: tuple[Path, ...], options: CheckOptions) -> CheckResult:
    from recipelint.checking import CheckError, run_check

    try:
        return run_check(paths, options)
    except CheckError as exc:
        raise click.UsageError(str(exc)) from None


def _selection(select: tuple[str, ...], ignore: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from recipelint.config import parse_code_selectors

    try:
        return parse_code_selectors(select), parse_code_selectors(ignore)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def diff_markdown(base: str, tree_root: Path) -> str:
    """Command changes from revision `base` to the tree folder; a note when unavailable."""
    from recipelint.commands.diff import compiled_documents, repository_top, resolve_side
    from recipelint.diffing import diff_renderings, format_markdown

    heading = f"### Command changes since {markdown_code(base)}"
    top = repository_top(tree_root)
    if top is None:
        return f"{heading}\n\nNot available: {markdown_code(str(tree_root))} is not in a git repository.\n"
    tree_path = tree_root.resolve().relative_to(top).as_posix()
    try:
        with ExitStack() as stack:
            old_root = resolve_side(base, tree_path, stack, top)
            old = compiled_documents(old_root, base)
        new = compiled_documents(tree_root, "the work tree")
    except click.ClickException as exc:
        return f"{heading}\n\nNot available: {markdown_code(exc.format_message())}\n"
    return format_markdown(diff_renderings(old, new), heading=heading)


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
def summary_command(paths: tuple[Path, ...], diff_base: str | None, new_from_rev: str | None,
                    output: Path | None, select: tuple[str, ...] = (), ignore: tuple[str, ...] = (),
                    config_file: Path | None = None) -> None:
    """Markdown summary of `recipelint check` (counts per rule) and, with
    --diff-base, of the command changes: the GitHub Action's job summary.

    --select, --ignore and --config choose the rules as they do for `check`, so the
    summary counts what the annotations show."""
    paths = paths or (Path("."),)
    select, ignore = _selection(select, ignore)
    result = _check(paths, CheckOptions(select, ignore, new_from_rev=new_from_rev, config_file=config_file))
    parts = [findings_markdown(result.diagnostics, result.files)]
    if new_from_rev is not None:
        parts.append(known_markdown(result.known, new_from_rev))
    if diff_base is not None:
        parts += [diff_markdown(diff_base, tree.root) for tree in result.trees]
    text = "\n".join(parts)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with output.open("a", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as exc:
        raise click.UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
