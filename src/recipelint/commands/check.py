"""`recipelint check PATH...`: validate trees and report findings for the named files."""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from pathlib import Path

import click

from recipelint.config import Config, ConfigError, load_config
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.report import FORMATTERS, format_text, summary_line
from recipelint.tree import find_tree_root

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def exit_code(diagnostics: list[Diagnostic], strict: bool) -> int:
    """The one place that maps findings to an exit status."""
    threshold = Severity.WARNING if strict else Severity.ERROR
    return EXIT_FINDINGS if any(d.severity >= threshold for d in diagnostics) else EXIT_OK


def group_by_tree(paths: tuple[Path, ...]) -> dict[Path, list[Path]]:
    groups: dict[Path, list[Path]] = defaultdict(list)
    for path in paths:
        root = find_tree_root(path)
        if root is None:
            raise click.UsageError(
                f"{path} is not inside a recipe tree (no folder above it holds taxonomy.yaml and models/)"
            )
        groups[root].append(path.resolve())
    return groups


def _override(config: Config, select: tuple[str, ...], ignore: tuple[str, ...]) -> Config:
    from dataclasses import replace

    if select:
        config = replace(config, select=tuple(s.upper() for s in select))
    if ignore:
        config = replace(config, ignore=config.ignore + tuple(i.upper() for i in ignore))
    return config


def check_tree(root: Path, targets: list[Path], select: tuple[str, ...] = (),
               ignore: tuple[str, ...] = (), jobs: int = 1) -> tuple[list[Diagnostic], int, dict[Path, str]]:
    from recipelint.engine import run_checks
    from recipelint.tree import load_tree

    try:
        config = _override(load_config(root), select, ignore)
    except ConfigError as exc:
        return [exc.diagnostic], 0, {}
    tree = load_tree(root, config.limits)
    found = run_checks(tree, config, focus=lambda path: _selected_path(path, root, targets), jobs=jobs)
    sources = {doc.path: doc.text for doc in tree.documents()}
    files = sum(1 for doc in tree.documents() if _selected_path(doc.path, root, targets))
    return found, files, sources


def _selected_path(path: Path, root: Path, targets: list[Path]) -> bool:
    return any(t == root or t == path or t in path.parents for t in targets)


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github", "sarif"]),
              default="text", show_default=True, help="Output format.")
@click.option("--strict", is_flag=True, help="Warnings also make the exit status 1.")
@click.option("--select", multiple=True, metavar="CODE", help="Run only these codes or prefixes.")
@click.option("--ignore", multiple=True, metavar="CODE", help="Skip these codes or prefixes.")
@click.option("--quiet", "-q", is_flag=True, help="No summary line.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place (comments and layout kept), then report the rest.")
@click.option("--diff", is_flag=True, help="Print the safe fixes as a unified diff and write nothing.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
              help="Worker processes for a large check; 0 = one per available CPU, 1 = no workers.")
@click.pass_context
def check_command(ctx: click.Context, paths: tuple[Path, ...], output_format: str, strict: bool,
                  select: tuple[str, ...], ignore: tuple[str, ...], quiet: bool, fix: bool = False,
                  diff: bool = False, jobs: int = 0) -> None:
    """Check recipe trees, folders inside them, or single recipe files.

    The whole tree is always loaded for context; findings are reported only for
    the paths named. Exit status: 0 clean, 1 findings, 2 usage or internal error.
    """
    paths = paths or (Path("."),)
    if fix or diff:
        from recipelint.fix import fix_paths

        changes = fix_paths(group_by_tree(paths), select, ignore, write=not diff)
        if diff:
            click.echo(changes.diff, nl=False)
            ctx.exit(EXIT_FINDINGS if changes.files else EXIT_OK)
        if not quiet:
            click.echo(f"fixed {len(changes.files)} file{'s' * (len(changes.files) != 1)}", err=True)
    diagnostics: list[Diagnostic] = []
    sources: dict[Path, str] = {}
    files = 0
    if jobs == 0:
        from recipelint.parallel import available_cpus

        jobs = available_cpus()
    for root, targets in group_by_tree(paths).items():
        found, counted, texts = check_tree(root, targets, select, ignore, jobs)
        diagnostics.extend(found)
        sources.update(texts)
        files += counted
    if output_format == "text":
        terminal = sys.stdout.isatty()
        color = terminal and not os.environ.get("NO_COLOR")
        click.echo(format_text(diagnostics, sources if terminal else None, color=color), nl=False)
        if not quiet:
            click.echo(summary_line(diagnostics, files), err=True)
    else:
        click.echo(FORMATTERS[output_format](diagnostics), nl=False)
    ctx.exit(exit_code(diagnostics, strict))
