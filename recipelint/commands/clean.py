"""`recipelint clean [PATH...]`: remove the check cache of each recipe tree named (as `ruff clean`)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from recipelint.checkcache import cache_folder, remove_cache
from recipelint.read.tree import find_tree_root


@click.command("clean")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Remove this cache folder (as `check --cache-dir DIR` keeps it).",
)
def clean_command(paths: tuple[Path, ...] = (), cache_dir: Path | None = None) -> None:
    """Remove the check cache (.recipelint_cache/) of each tree around PATH (default: .)."""
    folders: list[Path] = []
    for path in paths or (Path("."),):
        root = find_tree_root(Path(os.path.abspath(path)))
        if root is None and cache_dir is None and "RECIPELINT_CACHE_DIR" not in os.environ:
            raise click.UsageError(f"{path} is not inside a recipe tree")
        folder = cache_folder(root or Path(path), cache_dir)
        if folder not in folders:
            folders.append(folder)
    for folder in folders:
        if remove_cache(folder):
            click.echo(f"Removed {folder}")
