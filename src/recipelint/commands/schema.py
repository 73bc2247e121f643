"""`recipelint schema KIND [--tree PATH]`: print the JSON Schema a kind of file is validated with.

For editors (the YAML language server, VS Code's ``yaml.schemas``) and other validators:
``recipelint schema recipe > .vscode/recipe.schema.json``. Without ``--tree`` the output
is the built-in schema byte for byte (the file shipped in ``schemas/``, stable ``$id``);
with ``--tree`` it is the schema recipelint validates that tree with, the tree's overlays
merged in (docs/schemas.md).
"""

from __future__ import annotations

import hashlib
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import click

from recipelint.config import config_file_option
from recipelint.exitcodes import EXIT_FINDINGS
from recipelint.schema import SCHEMA_FILES, SCHEMA_PACKAGE


def builtin_schema_text(kind: str) -> str:
    """The shipped schema file as it is (a copy of it is recognised as no overlay by its $id)."""
    return resources.files(SCHEMA_PACKAGE).joinpath(SCHEMA_FILES[kind]).read_text(encoding="utf-8")


def overlaid_schema(kind: str, patches: str) -> dict[str, Any]:
    """The merged schema, under an $id of its own: it is not the built-in schema.

    The $id is the built-in one with ``?overlay=`` and a digest of the overlays, stable for
    the same overlays. Written back into the tree's schemas/ folder by mistake, a file with
    the built-in $id would be taken for an editor's copy and silently replace the overlay;
    with this one it is read as an overlay and refused (RL108: $id cannot change) instead.
    """
    from recipelint.schema import schema_for

    schema = dict(schema_for(kind, patches))
    digest = hashlib.sha256(patches.encode("utf-8")).hexdigest()[:12]
    schema["$id"] = f"{schema['$id']}?overlay={digest}"
    return schema


def tree_schema_text(kind: str, tree: Path, config_file: Path | None = None) -> str:
    """The schema a tree's documents of ``kind`` are validated with, as JSON text.

    ConfigError when the tree's configuration or overlays cannot be used; click.UsageError
    when ``tree`` is inside no recipe tree.
    """
    from recipelint.config import load_config
    from recipelint.schema import tree_overlay
    from recipelint.tree import find_tree_root

    root = find_tree_root(tree)
    if root is None:
        raise click.UsageError(f"{tree} is not inside a recipe tree "
                               "(no folder above it holds taxonomy.yaml and models/)")
    load_config(root, config_file)  # validates the configuration and every overlay (ConfigError)
    patches = tree_overlay(root).patches.get(kind, "")
    if not patches:
        return builtin_schema_text(kind)
    return json.dumps(overlaid_schema(kind, patches), indent=2, ensure_ascii=False) + "\n"


@click.command("schema")
@click.argument("kind", type=click.Choice(list(SCHEMA_FILES)), metavar="{" + "|".join(SCHEMA_FILES) + "}")
@click.option("--tree", type=click.Path(exists=True, path_type=Path), metavar="PATH",
              help="Merge in the schema overlays of the recipe tree around PATH (as `check` validates it).")
@config_file_option
@click.pass_context
def schema_command(ctx: click.Context, kind: str, tree: Path | None = None,
                   config_file: Path | None = None) -> None:
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
    from recipelint.config import ConfigError, ConfigFileError

    try:
        text = tree_schema_text(kind, tree, config_file)
    except ConfigFileError as exc:
        raise click.UsageError(f"--config: {exc.diagnostic.message}") from None
    except ConfigError as exc:
        from recipelint.report import format_text

        click.echo(format_text(list(exc.diagnostics)), err=True, nl=False)
        click.echo("recipelint schema: the tree's configuration or schema overlays cannot be used", err=True)
        ctx.exit(EXIT_FINDINGS)
    click.echo(text, nl=False)
    sys.stdout.flush()
