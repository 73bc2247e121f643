"""The `recipelint` command: a click group whose subcommands are imported only when run.

A pre-commit run of `recipelint check one.yaml` must not pay for importing the
compiler or the flag extractor, so each subcommand lives in its own module.
"""

from __future__ import annotations

import importlib
import sys

import click

from recipelint import __version__

# name -> "module:attribute"
COMMANDS: dict[str, str] = {
    "check": "recipelint.commands.check:check_command",
    "compile": "recipelint.commands.compile:compile_command",
    "rules": "recipelint.commands.rules:rules_command",
    "explain": "recipelint.commands.rules:explain_command",
    "flags": "recipelint.commands.flags:flags_group",
    "diff": "recipelint.commands.diff:diff_command",
    "summary": "recipelint.summary:summary_command",
    "schema": "recipelint.commands.schema:schema_command",
}

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if self._available(name))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                return None
            raise
        return getattr(module, attribute)

    @staticmethod
    def _available(name: str) -> bool:
        return importlib.util.find_spec(COMMANDS[name].split(":")[0]) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="recipelint")
def cli() -> None:
    """Lint vLLM recipe trees and compile them into the recipes JSON API."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: click usage errors exit 2, unexpected failures exit 2 with a message."""
    try:
        # Without standalone mode click returns ctx.exit()'s code instead of exiting.
        status = cli.main(args=argv, prog_name="recipelint", standalone_mode=False)
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
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
        click.echo(f"recipelint: internal error: {type(exc).__name__}: {exc}", err=True)
        click.echo("Please report this with the input that caused it.", err=True)
        return EXIT_USAGE
    return status if isinstance(status, int) else EXIT_OK


def run() -> None:
    sys.exit(main())
