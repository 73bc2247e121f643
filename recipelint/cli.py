"""The `recipelint` command: a click group whose subcommands are imported only when run.

A pre-commit run of `recipelint check one.yaml` must not pay for importing the
compiler or the flag extractor, so each subcommand lives in its own module.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import click

from recipelint import __version__
from recipelint.exitcodes import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE
from recipelint.lazy import BrokenInstallError, import_own

# name -> ("module:attribute", summary). The summary is the command's own short help,
# kept here so that `recipelint --help` lists every command without importing one;
# tests/test_wiring.py holds the two equal.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": (
        "recipelint.commands.check:check_command",
        "Check recipe trees, folders inside them, or single recipe files.",
    ),
    "compile": (
        "recipelint.commands.compile:compile_command",
        "Compile the recipe tree TREE into the static JSON API.",
    ),
    "clean": (
        "recipelint.commands.clean:clean_command",
        "Remove the check cache (.recipelint_cache/) of each tree around PATH (default: .).",
    ),
    "rules": (
        "recipelint.commands.rules:rules_command",
        "List every rule: code, default severity, name and summary ([fix]: --fix repairs it).",
    ),
    "explain": (
        "recipelint.commands.rules:explain_command",
        "Explain one rule, with a failing and a passing example.",
    ),
    "rule": (
        "recipelint.commands.rules:rule_command",
        "Explain one rule, as `explain` does (ruff's name for it).",
    ),
    "flags": (
        "recipelint.commands.flags:flags_group",
        "Per-release catalogs of `vllm serve` flags (see docs/flags.md).",
    ),
    "env": (
        "recipelint.commands.env:env_group",
        "Environment variables vLLM reads, per release (see docs/flags.md).",
    ),
    "diff": (
        "recipelint.commands.diff:diff_command",
        "Show how the resolved vllm commands differ between BASE and HEAD.",
    ),
    "summary": (
        "recipelint.commands.summary:summary_command",
        "Markdown summary of `recipelint check` (counts per rule) and, with --diff-base, of the command changes: the GitHub Action's job summary.",
    ),
    "schema": (
        "recipelint.commands.schema:schema_command",
        "Print the JSON Schema for one kind of file, for editors and other validators.",
    ),
    "show": (
        "recipelint.commands.show:show_command",
        "Show the rendered `vllm serve` and `docker run` commands of one recipe and, for every token, the list it came from (file, line and layer) and which later layer dropped an earlier one.",
    ),
    "lsp": (
        "recipelint.commands.lsp:lsp_command",
        "Serve the Language Server Protocol for recipe trees (diagnostics, hover, completion, …).",
    ),
}


class ReaderGone(Exception):
    """Whoever read standard output stopped reading (`recipelint rules | head -1`).

    Not an OSError, so click's own handling of a closed pipe (exit 1) never sees it.
    """


@contextlib.contextmanager
def _reader_may_leave() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        raise ReaderGone from None


class LazyGroup(click.Group):
    """Every command of COMMANDS, its module imported when the command is looked up.

    A command whose module is missing is a broken install: looking it up raises
    :class:`BrokenInstallError` (an internal error, exit 2) instead of hiding it.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = COMMANDS.get(name)
        if entry is None:
            return None  # click reports an unknown command as a usage error
        module_name, attribute = entry[0].split(":")
        command: click.Command = getattr(import_own(module_name), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `--help`, from COMMANDS' summaries: no command is imported.

        A bare click.Command carries each summary so that click shortens it as it would
        the real command's help.
        """
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            (name, click.Command(name, help=summary).get_short_help_str(limit))
            for name, (_, summary) in sorted(COMMANDS.items())
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    # Every command prints through these two: --help and --version while the arguments
    # are parsed, everything else when the command runs.
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _reader_may_leave():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _reader_may_leave():
            return super().invoke(ctx)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="recipelint")
def cli() -> None:
    """Lint vLLM recipe trees and compile them into the recipes JSON API."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: click usage errors exit 2, unexpected failures exit 2 with a message."""
    try:
        # Without standalone mode click returns ctx.exit()'s code instead of exiting.
        status = cli.main(args=argv, prog_name="recipelint", standalone_mode=False)
        # What is still buffered meets a closed pipe here, not at exit. The language server
        # closes standard output itself when the editor says `exit`: nothing is left then.
        if not sys.stdout.closed:
            sys.stdout.flush()
    except (ReaderGone, BrokenPipeError):
        # As ruff does: a reader that has seen enough is no failure (exit 0, no message).
        _discard_stdout()
        return EXIT_OK
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return EXIT_USAGE
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return EXIT_USAGE
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except BrokenInstallError as exc:
        click.echo(f"recipelint: internal error: {exc}", err=True)
        return EXIT_INTERNAL
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
        click.echo(f"recipelint: internal error: {type(exc).__name__}: {exc}", err=True)
        click.echo("Please report this with the input that caused it.", err=True)
        return EXIT_INTERNAL
    return status if isinstance(status, int) else EXIT_OK


def _discard_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush
    meets no closed pipe (Python's documented remedy, see the signal module)."""
    try:
        fileno = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a file (a test runner's buffer): nothing is flushed at exit
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fileno)
    os.close(null)


def run() -> None:
    sys.exit(main())
