"""Click options shared by several commands: the configuration file and the stdin buffer.

They live in the command layer so that nothing below ``recipelint.commands`` depends on
click; the library takes the resulting paths and flags as plain arguments.
"""

from __future__ import annotations

from collections.abc import Callable
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
        "of the tree is read from disk; PATH may not exist yet). Findings name PATH.",
    )(command)


def input_options(command: F) -> F:
    """--config, --show-settings and --stdin-filename together, for `check`."""
    return config_file_option(show_settings_option(stdin_filename_option(command)))
