"""Finding and reading a tree's configuration file, and the schema overlay a configuration carries.

The nearest ``.recipelint.toml`` or ``pyproject.toml`` with a ``[tool.recipelint]`` table
from the tree root up to the repository root, or the file ``--config`` names; its
problems are RL016 diagnostics raised as ConfigError. :mod:`recipelint.configuration.config` parses the
table into a Config; :mod:`recipelint.schema.overlay` reads the table's ``schema``
overlays. Both import this module, and it imports neither.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recipelint.diagnostics import Diagnostic, Severity, Span

CONFIG_FILES = (".recipelint.toml", "pyproject.toml")
# The folder of a tree that holds its schema overlays (schemas/<name>.schema.json|yaml).
OVERLAY_FOLDER = "schemas"


@dataclass(frozen=True)
class TreeOverlay:
    """The overlays of one tree: per schema name, the canonical JSON of the patches that apply."""

    patches: dict[str, str]
    problems: tuple[Diagnostic, ...] = ()


NO_OVERLAY = TreeOverlay({})


class ConfigError(Exception):
    """A configuration that cannot be used; ``diagnostics`` holds every problem found, first one first."""

    def __init__(self, diagnostic: Diagnostic, diagnostics: Sequence[Diagnostic] = ()):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.diagnostics = tuple(diagnostics) or (diagnostic,)


def _fail(path: Path, message: str, where: Span = Span(1, 1)) -> ConfigError:
    return ConfigError(config_diagnostic(path, message, where))


def config_diagnostic(path: Path, message: str, where: Span = Span(1, 1)) -> Diagnostic:
    return Diagnostic(
        path, where, "RL016", Severity.ERROR, message, "see the configuration section of the README"
    )


def locate(text: str, *needles: str) -> Span:
    """Where the first of ``needles`` is written in a TOML text (tomllib keeps no positions).

    A needle is a key or a value as written, bare or quoted; the first line holding it
    wins, and 1:1 is the answer when none is found.
    """
    for needle in needles:
        pattern = re.compile(rf"(?<![\w-])['\"]?{re.escape(needle)}['\"]?(?![\w-])")
        for number, line in enumerate(text.splitlines(), start=1):
            match = pattern.search(line)
            if match:
                return Span(number, match.start() + 1, number, match.end() + 1)
    return Span(1, 1)


# ----------------------------------------------------------------------------- rule selectors


@dataclass(frozen=True)
class ConfigFile:
    """The configuration file of a tree and its recipelint table (the text is kept for positions)."""

    path: Path
    text: str
    table: dict[str, Any]


class ConfigFileError(ConfigError):
    """The file named by --config cannot be used at all (missing, unreadable, not TOML, no table).

    A ConfigError, so code that reports configuration problems as RL016 never lets it
    escape; ``run_check`` looks at the file first and turns this into a usage error.
    """


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
        return text, tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError, RecursionError) as exc:
        # RecursionError: the file comes with the pull request and may nest arrays 100,000 deep.
        raise _fail(path, f"cannot read the configuration: {exc}") from None


def _table_of(path: Path, document: dict[str, Any], whole: bool) -> Any:
    """[tool.recipelint], or the whole document of a file that is recipelint's alone."""
    tool = document.get("tool", {})
    table = tool.get("recipelint") if isinstance(tool, dict) else None
    return document if table is None and whole else table


def _config_in(folder: Path) -> ConfigFile | None:
    """The config file of one folder: .recipelint.toml, else a pyproject.toml with a recipelint table."""
    for name in CONFIG_FILES:
        path = folder / name
        if not path.is_file():
            continue
        if name == "pyproject.toml" and not _mentions_recipelint(path):
            continue
        text, document = _read_toml(path)
        table = _table_of(path, document, whole=name != "pyproject.toml")
        if table is not None:
            if not isinstance(table, dict):  # the file comes with the pull request: any shape
                raise _fail(path, "[tool.recipelint] must be a table")
            return ConfigFile(path, text, table)
    return None


def _mentions_recipelint(path: Path) -> bool:
    """A cheap look before parsing: most pyproject.toml files on the way up are other tools'.

    A recipelint table is written with the word in it (a key spelt with escapes is not
    worth a TOML parse of every project file a pre-commit run passes).
    """
    try:
        return b"recipelint" in path.read_bytes()
    except OSError:
        return True  # let the parse report it


def discovery_folders(tree_root: Path) -> list[Path]:
    """The folders searched for a configuration: the tree root and its parents up to the
    repository root (the first folder holding .git, a folder or a worktree's file)."""
    start = Path(os.path.abspath(tree_root))
    folders: list[Path] = []
    for folder in (start, *start.parents):
        folders.append(folder)
        if (folder / ".git").exists():
            break
    return folders


def discover_config_file(tree_root: Path) -> ConfigFile | None:
    """The nearest configuration at or above the tree root, within its repository (ruff's rule)."""
    for folder in discovery_folders(tree_root):
        found = _config_in(folder)
        if found is not None:
            return found
    return None


def read_explicit_config(path: Path) -> ConfigFile:
    """The file --config names; ConfigFileError naming it when it cannot serve as one.

    A pyproject.toml must have a [tool.recipelint] table (without one the option would
    silently mean "defaults"); any other file is recipelint's alone, like .recipelint.toml.
    """
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "does not exist"
        raise ConfigFileError(config_diagnostic(path, f"the configuration file {path} {what}"))
    try:
        text, document = _read_toml(path)
    except ConfigError as exc:
        raise ConfigFileError(
            config_diagnostic(path, f"{path}: {exc.diagnostic.message}")
        ) from None
    table = _table_of(path, document, whole=path.name != "pyproject.toml")
    if table is None:
        raise ConfigFileError(config_diagnostic(path, f"{path} has no [tool.recipelint] table"))
    if not isinstance(table, dict):
        raise ConfigFileError(config_diagnostic(path, f"{path}: [tool.recipelint] must be a table"))
    return ConfigFile(path, text, table)
