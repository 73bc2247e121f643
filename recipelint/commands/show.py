"""`recipelint show MODEL`: a rendered command with the list every token came from.

The work is :mod:`recipelint.report.showing`'s; this module wires the options to its stages and
turns what was asked for but does not exist into a usage error (exit 2).
"""

from __future__ import annotations

from pathlib import Path

import click

from recipelint.commands.options import format_option
from recipelint.exitcodes import EXIT_FINDINGS


@click.command("show")
@click.argument("model")
@click.option("--variant", metavar="V", help="Variant (default: the one published first).")
@click.option("--hardware", metavar="H", help="Hardware id (default: the variant's default).")
@click.option("--strategy", metavar="S", help="Strategy (default: the recommended one).")
@click.option(
    "--tree",
    "tree_path",
    type=click.Path(exists=True, path_type=Path),
    metavar="PATH",
    help="The recipe tree (default: the one around MODEL's file, else the current folder).",
)
@format_option(["text", "json"])
def show_command(
    model: str,
    variant: str | None,
    hardware: str | None,
    strategy: str | None,
    tree_path: Path | None,
    output_format: str,
) -> None:
    """Show the rendered `vllm serve` and `docker run` commands of one recipe and, for
    every token, the list it came from (file, line and layer) and which later layer
    dropped an earlier one.

    MODEL is a recipe id (org/repo) or the path of a recipe file. Without --variant,
    --hardware and --strategy it is the recipe's recommended command.
    """
    from recipelint.report.showing import (
        VIEWS,
        RenderFailed,
        ShowError,
        build_view,
        choose,
        find_recipe,
    )

    try:
        loaded = find_recipe(model, tree_path, Path.cwd())
        view = build_view(loaded, choose(loaded, variant, hardware, strategy))
    except ShowError as exc:
        raise click.UsageError(str(exc)) from None
    except RenderFailed as exc:
        click.echo(f"recipelint show: {exc}", err=True)
        raise SystemExit(EXIT_FINDINGS) from None
    click.echo(VIEWS[output_format](view), nl=False)
