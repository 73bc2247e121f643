"""`recipelint check PATH...`: validate trees and report findings for the named files."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from recipelint.check.checking import (
    CheckError,
    CheckOptions,
    CheckResult,
    group_by_tree,
    run_check,
)
from recipelint.check.checking import show_settings as settings_report
from recipelint.commands.options import format_option, input_options
from recipelint.commands.output import write_report
from recipelint.configuration.selectors import parse_code_selectors
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.exitcodes import EXIT_FINDINGS, EXIT_OK
from recipelint.report.formats import (
    FORMATS,
    FORMATTERS,
    STATISTICS_FORMATTERS,
    format_text,
    is_fixable,
    summary_line,
    use_color,
)

if TYPE_CHECKING:
    from recipelint.fix.fixers import Changes


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


STDIN = Path("-")


def _stdin_place(text: bytes) -> Path:
    """Where `-` without --stdin-filename puts the document: the place its content names
    (a recipe's model_id, a strategy's name, ...) in the tree around the current folder."""
    from recipelint.read.tree import find_tree_root, place_of_document

    root = find_tree_root(Path.cwd())
    place = place_of_document(text)
    if root is None or place is None:
        where = (
            "no recipe tree holds the current folder"
            if root is None
            else ("its content names no place (a recipe's model.model_id, a strategy's name...)")
        )
        raise click.UsageError(
            f"`-` reads the document from standard input, but {where}: "
            "add --stdin-filename PATH, where it sits in its tree"
        )
    return root / place


def _stdin_paths(paths: tuple[Path, ...], stdin_filename: Path | None) -> tuple[Path, ...]:
    """With --stdin-filename the document on standard input is what is checked: `-` says
    so, and any other path given is ignored with a warning (ruff's behaviour)."""
    if stdin_filename is None:
        return paths
    for path in paths:
        if path != STDIN:
            click.echo(
                f"recipelint: warning: ignoring {path} in favour of standard input "
                "(--stdin-filename)",
                err=True,
            )
    return (stdin_filename,)


@click.command("check")
# allow_dash: `-` is standard input (named by --stdin-filename), not a file.
@click.argument("paths", nargs=-1, type=click.Path(exists=True, allow_dash=True, path_type=Path))
# Output: what is printed and where.
@format_option(FORMATS)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the report to FILE instead of stdout (the summary line stays on stderr).",
)
@click.option(
    "--also-report",
    "also_reports",
    multiple=True,
    metavar="FORMAT=FILE",
    help="Also write the report in FORMAT (json, github, sarif) to FILE from the same run "
    "(repeatable; golangci-lint's multiple outputs).",
)
@click.option(
    "--statistics",
    is_flag=True,
    help="Print a count per rule instead of the findings ([*]: --fix repairs it, [ ]: not); "
    "--format json gives [{code, name, count, fixable}].",
)
@click.option(
    "--show-source/--no-show-source",
    default=None,
    help="Show the source line under each text finding [default: when stdout is a terminal].",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour text output; auto: on a terminal unless NO_COLOR is set, or when FORCE_COLOR is.",
)
@click.option("--quiet", "-q", is_flag=True, help="No summary line, and no --fix counts.")
# Exit status.
@click.option("--strict", is_flag=True, help="Warnings also make the exit status 1.")
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 even when findings are reported (usage and internal errors still exit 2).",
)
# Which rules run.
@click.option(
    "--select",
    multiple=True,
    metavar="CODE",
    help="Run only these codes or prefixes (repeat, or a comma list: RL1,RL5; ALL).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="CODE",
    help="Skip these codes or prefixes (repeat, or a comma list: RL6,RL301).",
)
# Fixes.
@click.option(
    "--fix",
    is_flag=True,
    help="Apply safe fixes in place (comments and layout kept), then report the rest.",
)
@click.option(
    "--diff", is_flag=True, help="Print the safe fixes as a unified diff and write nothing."
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="N",
    help="Worker processes for a large check; 0 = one per available CPU, 1 = no workers.",
)
# Which findings count: only those a change introduces.
@click.option(
    "--new-from-rev",
    metavar="REV",
    help="Report only findings absent at this git revision (a pull request's base).",
)
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Report only findings absent from this baseline file.",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write every current finding to FILE as the baseline (- for stdout), and exit 0; "
    "with files or folders inside a tree named, replace only their entries of FILE.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Parse every file again and keep nothing in the check cache (also RECIPELINT_NO_CACHE=1).",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Keep the check cache in DIR instead of .recipelint_cache/ at the tree root "
    "(also RECIPELINT_CACHE_DIR).",
)
@input_options
@click.pass_context
def check_command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    output_format: str = "text",
    output_file: Path | None = None,
    statistics: bool = False,
    show_source: bool | None = None,
    color: str = "auto",
    quiet: bool = False,
    strict: bool = False,
    exit_zero: bool = False,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    fix: bool = False,
    diff: bool = False,
    jobs: int = 0,
    new_from_rev: str | None = None,
    baseline: Path | None = None,
    write_baseline: Path | None = None,
    no_cache: bool = False,
    cache_dir: Path | None = None,
    config_file: Path | None = None,
    show_settings: bool = False,
    stdin_filename: Path | None = None,
    also_reports: tuple[str, ...] = (),
) -> None:
    """Check recipe trees, folders inside them, or single recipe files.

    The whole tree is always loaded for context; findings are reported only for
    the paths named. Findings marked [*] have a safe fix that --fix applies.

    Exit status: 0 no errors, 1 errors found (or warnings with --strict; 0 with
    --exit-zero), 2 usage or internal error.
    """
    # `-` alone: the document on standard input is placed where its content says it lives.
    stdin_text = sys.stdin.buffer.read() if stdin_filename is not None or STDIN in paths else None
    if stdin_filename is None and stdin_text is not None:
        stdin_filename = _stdin_place(stdin_text)
    paths = _stdin_paths(paths, stdin_filename) or (Path("."),)
    try:
        select, ignore = parse_code_selectors(select), parse_code_selectors(ignore)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if write_baseline is not None and (baseline is not None or new_from_rev is not None):
        raise click.UsageError(
            "--write-baseline records every finding: leave out --baseline and --new-from-rev"
        )
    if statistics and output_format not in STATISTICS_FORMATTERS:
        raise click.UsageError("--statistics prints --format text or json")
    extra_reports = [_extra_report(spec) for spec in also_reports]
    if stdin_filename is not None and (fix or diff):
        raise click.UsageError("--fix and --diff write files: leave out --stdin-filename")
    if show_settings:
        ctx.exit(
            _show_settings(
                paths,
                CheckOptions(
                    select, ignore, config_file=config_file, stdin_filename=stdin_filename
                ),
            )
        )
    groups, outside = group_by_tree(paths)
    _outside_trees(outside)
    fixed = None
    if fix or diff:
        fixed = _apply_fixes(
            groups, CheckOptions(select, ignore, config_file=config_file), diff, output_file, quiet
        )
        if diff:
            ctx.exit(EXIT_OK if exit_zero else (EXIT_FINDINGS if fixed.files else EXIT_OK))
    if jobs == 0:
        from recipelint.parallel import available_cpus

        jobs = available_cpus()
    # stdin_text: the editor's buffer, as bytes: decoded as a file is (bad UTF-8 is RL004).
    options = CheckOptions(
        select,
        ignore,
        jobs,
        new_from_rev,
        baseline,
        config_file=config_file,
        stdin_filename=stdin_filename,
        stdin_text=stdin_text,
        use_cache=not no_cache,
        cache_dir=cache_dir,
    )
    try:
        result = run_check([p for p in paths if p not in outside], options)
    except CheckError as exc:
        raise click.UsageError(str(exc)) from None
    if write_baseline is not None:
        ctx.exit(_write_baseline(write_baseline, result, quiet))
    look = Look(output_format, output_file, statistics, show_source, color)
    write_report(_render(result, look), output_file)
    for extra_format, extra_file in extra_reports:
        write_report(
            _render(result, Look(extra_format, extra_file, False, False, "never")), extra_file
        )
    if not quiet:
        _report_summary(result, output_format, after_fix=fixed is not None)
        _explain_set_aside(result, new_from_rev, baseline)
    status = exit_code(result.diagnostics, strict)
    if fixed is not None and fixed.skipped:
        status = max(status, EXIT_FINDINGS)  # fixes asked for and not applied, as ruff
    ctx.exit(EXIT_OK if exit_zero else status)


@dataclass(frozen=True)
class Look:
    """How the report is rendered: the output options of the command line."""

    output_format: str
    output_file: Path | None
    statistics: bool
    show_source: bool | None
    color: str

    def terminal(self) -> bool:
        """The report goes to a terminal (a --output-file never is)."""
        return self.output_file is None and sys.stdout.isatty()


def _extra_report(spec: str) -> tuple[str, Path]:
    """`sarif=recipelint.sarif` -> ("sarif", Path("recipelint.sarif"))."""
    name, equals, file = spec.partition("=")
    if not equals or name not in FORMATTERS or not file:
        raise click.UsageError(
            f"--also-report takes FORMAT=FILE with FORMAT one of "
            f"{', '.join(sorted(FORMATTERS))}, not {spec!r}"
        )
    return name, Path(file)


def _render(result: CheckResult, look: Look) -> str:
    if look.statistics:
        return STATISTICS_FORMATTERS[look.output_format](result.diagnostics)
    if look.output_format == "text":
        terminal = look.terminal()
        show = terminal if look.show_source is None else look.show_source
        return format_text(
            result.diagnostics,
            result.sources if show else None,
            color=use_color(look.color, terminal),
        )
    roots = [Path(os.path.abspath(tree.root)) for tree in result.trees]
    # One report, one documentation base: the first tree's that configures one.
    configured = next((tree.docs_url for tree in result.trees if tree.docs_url), None)
    return FORMATTERS[look.output_format](result.diagnostics, roots, docs_url=configured)


def _report_summary(result: CheckResult, output_format: str, after_fix: bool) -> None:
    if output_format == "text":
        # After --fix the remaining fixable findings get their own line below.
        click.echo(
            summary_line(result.diagnostics, result.files, fixable_hint=not after_fix), err=True
        )
    if after_fix:
        # Counted over every finding of the named files, the ones a base or baseline sets aside too.
        left = sum(1 for tree in result.trees for d in tree.diagnostics if is_fixable(d.code))
        note = (
            " (no edit could be proven safe for them: fix by hand, see docs/autofix.md)"
            if left
            else ""
        )
        click.echo(
            f"recipelint: {left} fixable finding{'s' * (left != 1)} remain{'s' * (left == 1)}{note}",
            err=True,
        )


def _apply_fixes(
    groups: dict[Path, list[Path]],
    options: CheckOptions,
    dry_run: bool,
    output_file: Path | None,
    quiet: bool,
) -> Changes:
    """--fix writes the fixes, --diff prints them as the report; both say what per rule on stderr."""
    from recipelint.fix.fixers import FixWriteError, fix_paths
    from recipelint.rulebook.catalog import rule_info

    try:
        changes = fix_paths(
            groups,
            options.select,
            options.ignore,
            write=not dry_run,
            config_file=options.config_file,
        )
    except FixWriteError as exc:
        raise click.ClickException(str(exc)) from None
    for path in changes.skipped:
        click.echo(
            f"recipelint: warning: {_shown_path(path)} changed on disk while --fix ran; "
            "its fixes were not written (run --fix again)",
            err=True,
        )
    if dry_run:
        write_report(changes.diff, output_file)
    if quiet:
        return changes
    verb = "would fix" if dry_run else "fixed"
    for code, count in sorted(changes.fixed.items()):
        info = rule_info(code)
        click.echo(f"{verb} {count} \u00d7 {code} {info.name if info else ''}".rstrip(), err=True)
    files = len(changes.files)
    click.echo(f"{verb} {files} file{'s' * (files != 1)}", err=True)
    return changes


def _shown_path(path: Path) -> str:
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def _show_settings(paths: tuple[Path, ...], options: CheckOptions) -> int:
    """--show-settings: the resolved configuration and where each value came from (ruff's name)."""
    try:
        shown = settings_report(paths, options)
    except CheckError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(shown.text, nl=False)
    if shown.diagnostics:
        click.echo(format_text(shown.diagnostics), err=True, nl=False)
    return EXIT_FINDINGS if shown.diagnostics else EXIT_OK


def _write_baseline(path: Path, result: CheckResult, quiet: bool) -> int:
    """Write the findings as the baseline; with some files of a tree named (a pre-commit
    run), only their entries of the existing baseline are replaced."""
    from recipelint.report.baseline import BaselineError, baseline_text, write_baseline

    found = [
        (diag, Path(os.path.abspath(tree.root)))
        for tree in result.trees
        for diag in tree.diagnostics
    ]
    try:
        kept = [] if result.whole_trees else _entries_of_unchecked_files(path, result)
    except BaselineError as exc:
        raise click.UsageError(str(exc)) from None
    if str(path) == "-":  # standard output, as for most file arguments
        text, count = baseline_text(found)
        click.echo(text, nl=False)
        return EXIT_OK
    try:
        count = write_baseline(path, found, kept)
    except BaselineError as exc:
        raise click.UsageError(str(exc)) from None
    if not quiet:
        merged = f" ({len(kept)} of them kept for files not checked)" if kept else ""
        click.echo(
            f"recipelint: wrote {count} finding{'s' * (count != 1)} to the baseline {path}{merged}",
            err=True,
        )
    return EXIT_OK


def _entries_of_unchecked_files(path: Path, result: CheckResult) -> list[dict[str, Any]]:
    """The existing baseline's entries for the files this run did not check, which a
    baseline written from some files of a tree keeps; without one to merge into, such a
    baseline would silently drop every other file's findings."""
    from recipelint.report.baseline import read_baseline_entries

    if str(path) == "-":
        raise click.UsageError(
            "--write-baseline - prints a whole baseline, not the entries of some files: "
            "name the whole tree (recipelint check --write-baseline - TREE)"
        )
    if not path.exists():
        raise click.UsageError(
            f"--write-baseline with paths inside a tree replaces their entries in an existing "
            f"baseline, and there is no {path} yet: write it for the whole tree first "
            f"(recipelint check --write-baseline {path} TREE)"
        )
    return [entry for entry in read_baseline_entries(path) if not result.covers(entry)]


def _explain_set_aside(
    result: CheckResult, new_from_rev: str | None, baseline: Path | None
) -> None:
    if result.known:
        where = f"at {new_from_rev}" if new_from_rev is not None else f"in {baseline}"
        plural = "s were" if result.known != 1 else " was"
        click.echo(
            f"recipelint: {result.known} finding{plural} already present {where} (not shown)",
            err=True,
        )
    if result.stale:
        click.echo(
            f"recipelint: {len(result.stale)} baseline entr{'ies' if len(result.stale) != 1 else 'y'} "
            f"match no finding any more; rewrite {baseline} with --write-baseline:",
            err=True,
        )
        for entry in result.stale[:10]:
            click.echo(
                f"    {entry.get('path')}: {entry.get('code')} {entry.get('message')}", err=True
            )
