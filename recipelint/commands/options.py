"""Click options shared by several commands: the configuration file, the stdin buffer, and
where a rebuilt vLLM catalog goes.

They live in the command layer so that nothing below ``recipelint.commands`` depends on
click; the library takes the resulting paths and flags as plain arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def config_file_option(command: F) -> F:
    """``--config FILE`` (parameter ``config_file``): this file instead of discovery."""
    return click.option(
        "--config",
        "config_file",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        help="Use this configuration file (a pyproject.toml with [tool.recipelint], or a "
        ".recipelint.toml-style file) instead of the one found from the tree root up to "
        "the repository root. Paths in it stay relative to the tree root.",
    )(command)


def show_settings_option(command: F) -> F:
    """``--show-settings`` (parameter ``show_settings``)."""
    return click.option(
        "--show-settings",
        is_flag=True,
        help="Print the resolved configuration of each tree (the file used, every setting "
        "with its value and origin) and exit.",
    )(command)


def stdin_filename_option(command: F) -> F:
    """``--stdin-filename PATH`` (parameter ``stdin_filename``); the path need not exist."""
    return click.option(
        "--stdin-filename",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="PATH",
        help="Read one document from stdin and check it as the file PATH of its tree (the rest "
        "of the tree is read from disk; PATH may not exist yet). Findings name PATH. The "
        "path `-` stands for stdin; other paths given are ignored.",
    )(command)


def input_options(command: F) -> F:
    """--config, --show-settings and --stdin-filename together, for `check`."""
    return config_file_option(show_settings_option(stdin_filename_option(command)))


def catalog_build_options(catalog_file: str) -> Callable[[F], F]:
    """``-o/--output FILE`` and ``--add-to FILE`` of the commands that rebuild a vLLM catalog."""

    def decorate(command: F) -> F:
        command = click.option(
            "--add-to",
            "add_to",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            help="An existing catalog whose releases are kept (a new release needs only its source).",
        )(command)
        return click.option(
            "-o",
            "--output",
            type=click.Path(path_type=Path),
            required=True,
            help=f"Where to write the catalog (rules/vllm/{catalog_file}).",
        )(command)

    return decorate


def format_option(choices: Sequence[str], help_text: str = "Output format.") -> Callable[[F], F]:
    """``--output-format`` (ruff's name) or ``--format`` (parameter ``output_format``,
    default text) over ``choices``."""
    return click.option(
        "--output-format",
        "--format",
        "output_format",
        type=click.Choice(list(choices)),
        default="text",
        show_default=True,
        help=help_text,
    )
