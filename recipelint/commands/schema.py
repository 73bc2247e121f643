"""`recipelint schema KIND [--tree PATH]`: print the JSON Schema a kind of file is validated with.

For editors (the YAML language server, VS Code's ``yaml.schemas``) and other validators:
``recipelint schema recipe > .vscode/recipe.schema.json``. Without ``--tree`` the output
is the built-in schema byte for byte (the file shipped in ``schemas/``, stable ``$id``);
with ``--tree`` it is the schema recipelint validates that tree with, the tree's overlays
merged in (docs/schemas.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from recipelint.commands.options import config_file_option
from recipelint.exitcodes import EXIT_FINDINGS
from recipelint.report.schemaexport import NotInTreeError, builtin_schema_text, tree_schema_text
from recipelint.schema.builtin import SCHEMA_FILES


@click.command("schema")
@click.argument(
    "kind", type=click.Choice(list(SCHEMA_FILES)), metavar="{" + "|".join(SCHEMA_FILES) + "}"
)
@click.option(
    "--tree",
    type=click.Path(exists=True, path_type=Path),
    metavar="PATH",
    help="Merge in the schema overlays of the recipe tree around PATH (as `check` validates it).",
)
@config_file_option
@click.pass_context
def schema_command(
    ctx: click.Context, kind: str, tree: Path | None = None, config_file: Path | None = None
) -> None:
    """Print the JSON Schema for one kind of file, for editors and other validators.

    \b
    recipelint schema recipe > .vscode/recipe.schema.json
    recipelint schema strategy --tree recipes/    # with the tree's overlays
    """
    if tree is None:
        if config_file is not None:
            raise click.UsageError("--config applies to a tree's overlays: give --tree PATH too")
        click.echo(builtin_schema_text(kind), nl=False)
        return
    from recipelint.read.configfile import ConfigError, ConfigFileError

    try:
        text = tree_schema_text(kind, tree, config_file)
    except NotInTreeError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigFileError as exc:
        raise click.UsageError(f"--config: {exc.diagnostic.message}") from None
    except ConfigError as exc:
        from recipelint.report.formats import format_text

        click.echo(format_text(list(exc.diagnostics)), err=True, nl=False)
        click.echo(
            "recipelint schema: the tree's configuration or schema overlays cannot be used",
            err=True,
        )
        ctx.exit(EXIT_FINDINGS)
    click.echo(text, nl=False)
    sys.stdout.flush()
