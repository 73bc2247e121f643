"""User configuration: ``[tool.recipelint]`` in pyproject.toml, or ``.recipelint.toml``.

Discovery (as ruff finds its settings): from the tree root up to the repository root
(the folder holding ``.git``, else the filesystem root), the nearest folder with a
``.recipelint.toml``, or a ``pyproject.toml`` that has a ``[tool.recipelint]`` table,
gives the configuration; ``.recipelint.toml`` wins over ``pyproject.toml`` in one
folder. ``load_config(root, config_file)`` (``--config FILE``) uses that file instead.
Wherever the file is, paths inside it (per-file-ignores globs, schema overlay files)
are relative to the tree root.

Example::

    [tool.recipelint]
    select = ["RL"]                  # codes or prefixes to run (default: all; "ALL" = every rule)
    ignore = ["RL6"]                 # codes or prefixes to skip
    severity = { RL301 = "warning" } # per-rule severity (exact codes)
    per-file-ignores = { "models/legacy/*.yaml" = ["RL4"] }
    docs-url = "https://example.org/recipelint/docs"   # where reports link rule docs (rules.md)
    [tool.recipelint.limits]
    max-file-bytes = 1048576
    max-depth = 100
    max-nodes = 200000
    max-renderings = 5000
    [tool.recipelint.schema]         # schema extensions that travel with the tree
    recipe = "schemas/recipe-extra.yaml"          # an overlay file, relative to the tree root
    [tool.recipelint.schema.strategy.properties.rollout_note]   # or an inline overlay
    type = "string"

Every code or prefix in ``select``, ``ignore`` and ``per-file-ignores`` must name at
least one rule of the catalog (parse_code_selectors): a typo would otherwise turn a
CI gate into one that always passes; ``severity`` takes exact codes. ``schema`` maps a
schema name (recipe, strategy, kv_store, taxonomy, platforms) to an add-only overlay,
inline or as a path inside the tree; docs/schemas.md gives the merge rules. Every
problem is an RL016 diagnostic at the configuration file (one inside an overlay file
is RL108 there), and load_config raises it as ConfigError. The table is validated by
the typed model of recipelint.configmodel (pydantic), imported only when a tree has a
configuration file, so that a check without one does not pay for pydantic's import.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
import os
import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.load import LoadLimits

CONFIG_FILES = (".recipelint.toml", "pyproject.toml")
# Where a setting's value came from when no file and no option set it.
DEFAULT_ORIGIN = "default"
COMMAND_LINE = "command line"


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("RL",)
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    limits: LoadLimits = LoadLimits()
    max_renderings: int = 5000
    source: Path | None = None
    # The documentation base reports link rules to (the folder holding rules.md); None:
    # RECIPELINT_DOCS_URL's, else no link (recipelint.rulebook.docs_url).
    docs_url: str | None = None
    # The `schema` table as written (schema name -> inline overlay or overlay file); the
    # overlays themselves are read and applied by recipelint.schema.tree_overlay.
    schema: dict[str, Any] = field(default_factory=dict)
    # Per setting name (SETTING_NAMES), where its value came from: the config file's path or
    # COMMAND_LINE; a name not here has its default. Not compared: it describes, it does not configure.
    origins: dict[str, str] = field(default_factory=dict, compare=False)
    # The file was named by --config rather than discovered.
    explicit: bool = False

    def origin(self, name: str) -> str:
        return self.origins.get(name, DEFAULT_ORIGIN)

    def is_enabled(self, code: str) -> bool:
        return _matches(code, self.select) and not _matches(code, self.ignore)

    def is_ignored_for(self, code: str, rel_path: str) -> bool:
        return any(
            fnmatch.fnmatch(rel_path, pattern) and _matches(code, codes)
            for pattern, codes in self.per_file_ignores.items()
        )

    def severity_for(self, code: str, default: Severity) -> Severity:
        return self.severity.get(code, default)


class SelectorError(ValueError):
    """A rule selector (``--select``, ``ignore = [...]``) that names no rule of the catalog."""


def _matches(code: str, prefixes: tuple[str, ...]) -> bool:
    return any(code.startswith(prefix.upper()) for prefix in prefixes)


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


def parse_code_selectors(values: Iterable[str]) -> tuple[str, ...]:
    """Rule codes and prefixes as ``--select``/``--ignore`` and the configuration give them.

    Each value may hold a comma-separated list (``"RL1,RL5"``, as ruff takes it); parts are
    trimmed and upper-cased, empty parts skipped, duplicates dropped, and ``ALL`` stands
    for every rule (returned as the prefix ``RL``). A part that no catalog code starts
    with raises SelectorError (a ValueError) naming it, with a did-you-mean where a code
    is close: a typo must not turn the check into one that silently runs nothing.
    """
    from recipelint.rulebook import load_catalog

    codes = sorted(load_catalog())
    selected: list[str] = []
    given = False
    for value in values:
        given = True
        for part in str(value).split(","):
            code = part.strip().upper()
            if not code:
                continue
            code = "RL" if code == "ALL" else code
            if not any(known.startswith(code) for known in codes):
                raise SelectorError(_unknown_selector(part.strip(), code, codes))
            if code not in selected:
                selected.append(code)
    if given and not selected:
        raise SelectorError(
            "no rule code given: name codes or prefixes such as RL101 or RL1, or ALL"
        )
    return tuple(selected)


def _unknown_selector(written: str, code: str, codes: list[str]) -> str:
    message = f"'{written}' matches no rule: no rule code starts with '{code}'"
    suggestion = closest_code(written, codes)
    if suggestion:
        message += f" (did you mean '{suggestion}'?)"
    return message + "; `recipelint rules` lists the codes (e.g. RL101, or the prefix RL1)"


def closest_code(written: str, codes: list[str]) -> str | None:
    """The code a mistyped selector probably meant: a rule's name, a letter O for a zero, one slip."""
    from recipelint.rulebook import load_catalog

    by_name = {info.name: known for known, info in load_catalog().items()}
    if written.strip().lower() in by_name:
        return by_name[written.strip().lower()]
    code = written.strip().upper()
    repaired = code.replace("O", "0")
    repaired = repaired if repaired.startswith("RL") else "RL" + repaired.lstrip("RL")
    if len(repaired) > 2 and any(known.startswith(repaired) for known in codes):
        return repaired
    close = difflib.get_close_matches(code, codes, n=1, cutoff=0.75)
    return close[0] if close else None


def _parse(table: dict[str, Any], path: Path, text: str = "") -> Config:
    # pydantic is imported here, when a configuration file exists, and not at start-up:
    # a one-file check of a tree without one would pay ~10% more for the import.
    from recipelint.configmodel import settings_of

    settings = settings_of(table, path, text)
    origin = str(path)
    origins: dict[str, str] = {
        name: origin
        for name in ("select", "ignore", "severity", "per-file-ignores", "docs-url")
        if name in table
    }
    origins.update({f"limits.{name}": origin for name in table.get("limits", {})})
    origins.update({f"schema.{name}": origin for name in _schema_table(table)})
    return Config(
        select=settings.select,
        ignore=settings.ignore,
        severity=dict(settings.severity),
        per_file_ignores=dict(settings.per_file_ignores),
        limits=settings.limits.load_limits(),
        max_renderings=settings.limits.max_renderings,
        docs_url=settings.docs_url,
        source=path,
        schema=_schema_table(table),
        origins=origins,
    )


def _schema_table(table: dict[str, Any]) -> dict[str, Any]:
    """The `schema` table when it is one (a malformed one is reported by the overlay reader)."""
    schema = table.get("schema", {})
    return dict(schema) if isinstance(schema, dict) else {}


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


# Tree root (absolute) -> the file --config named for it. schema.tree_overlay reads the
# configuration of a tree from its root alone (per document, deep in the check), so the
# explicit choice has to be found from the root too; load_config sets or clears it.
_EXPLICIT: dict[str, Path] = {}


def _root_key(tree_root: Path | str) -> str:
    return os.path.abspath(tree_root)


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


def read_config_file(tree_root: Path) -> ConfigFile | None:
    """The configuration of the tree at ``tree_root``: the --config file given for it, else
    the discovered one; None when there is none (defaults apply)."""
    explicit = _EXPLICIT.get(_root_key(tree_root))
    if explicit is not None:
        return read_explicit_config(explicit)
    return discover_config_file(tree_root)


def set_config_file(tree_root: Path, config_file: Path | None) -> None:
    """Make ``config_file`` the tree's configuration for this process (None: discover again)."""
    key = _root_key(tree_root)
    if config_file is None:
        _EXPLICIT.pop(key, None)
    else:
        _EXPLICIT[key] = Path(os.path.abspath(config_file))
    _forget_overlays(key)


def _forget_overlays(key: str) -> None:
    # tree_overlay caches a tree's overlays on the stat signatures of the files at its root
    # only; a configuration found above the root or named by --config is not among them, so
    # the entry is dropped whenever the configuration is (re)loaded. Re-reading costs ~1 ms.
    schema = sys.modules.get("recipelint.schema")  # nothing is cached before it is imported
    if schema is not None:
        schema._OVERLAYS.pop(key, None)


# The folder of a tree that holds its schema overlays (schemas/<name>.schema.json|yaml).
OVERLAY_FOLDER = "schemas"


def _may_have_overlays(tree_root: Path, table: dict[str, Any] | None) -> bool:
    """Cheap test before importing the schema stage (jsonschema): `compile` needs it only
    when the tree declares overlays (a `schema` setting, valid or not, or the folder)."""
    return (table is not None and "schema" in table) or (Path(tree_root) / OVERLAY_FOLDER).is_dir()


def load_config(tree_root: Path, config_file: Path | None = None) -> Config:
    """The tree's configuration (defaults without a config file); ConfigError when it cannot be used.

    ``config_file`` (``--config``) replaces discovery; a file that cannot serve at all is
    ConfigFileError. The schema overlays (``schema`` here and the tree's ``schemas/``
    folder) are validated too, so a broken overlay stops the check rather than being
    silently left out.
    """
    found = read_explicit_config(config_file) if config_file is not None else None
    set_config_file(tree_root, config_file)
    found = found or discover_config_file(tree_root)
    config = _parse(found.table, found.path, found.text) if found else Config()
    if config_file is not None:
        config = replace(config, explicit=True)
    if not _may_have_overlays(tree_root, found.table if found else None):
        return config
    from recipelint.schema import tree_overlay

    problems = tree_overlay(tree_root).problems
    if problems:
        raise ConfigError(problems[0], problems)
    return config


# ----------------------------------------------------------------------------- --show-settings

# Every setting, in the order --show-settings prints them (keys as written in the file).
SETTING_NAMES = (
    "select",
    "ignore",
    "severity",
    "per-file-ignores",
    "limits.max-file-bytes",
    "limits.max-depth",
    "limits.max-nodes",
    "limits.max-renderings",
    "docs-url",
)


@dataclass(frozen=True)
class Setting:
    name: str
    value: Any
    origin: str


def settings(config: Config) -> list[Setting]:
    """Every setting with its resolved value and where it came from (then any schema overlays)."""
    values: dict[str, Any] = {
        "select": list(config.select),
        "ignore": list(config.ignore),
        "severity": {code: str(level) for code, level in config.severity.items()},
        "per-file-ignores": {glob: list(codes) for glob, codes in config.per_file_ignores.items()},
        "limits.max-file-bytes": config.limits.max_file_bytes,
        "limits.max-depth": config.limits.max_depth,
        "limits.max-nodes": config.limits.max_nodes,
        "limits.max-renderings": config.max_renderings,
        "docs-url": config.docs_url or "",
    }
    found = [Setting(name, values[name], config.origin(name)) for name in SETTING_NAMES]
    from recipelint.schema import SCHEMA_FILES

    found += [
        Setting(f"schema.{kind}", config.schema[kind], config.origin(f"schema.{kind}"))
        for kind in SCHEMA_FILES
        if kind in config.schema
    ]
    return found


def _toml_value(value: Any) -> str:
    """A value as it would be written in the configuration (TOML inline syntax)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = [f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in value.items()]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    return json.dumps(str(value))


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def describe_settings(config: Config, tree_root: Path | None = None) -> str:
    """The resolved configuration, ruff's --show-settings style: the file used, then each
    setting as ``name = value  # origin`` (values in TOML syntax, ready to paste)."""
    from recipelint.report import display_path

    def shown(origin: str) -> str:
        return display_path(Path(origin)) if os.path.isabs(origin) else origin

    lines: list[str] = []
    if tree_root is not None:
        lines.append(f"Tree root: {display_path(Path(os.path.abspath(tree_root)))}")
    if config.source is None:
        searched = "" if tree_root is None else " from the tree root up to the repository root"
        lines.append(
            f"Settings path: none (no .recipelint.toml or [tool.recipelint]{searched}; defaults apply)"
        )
    else:
        lines.append(
            f"Settings path: {display_path(config.source)}"
            + (" (--config)" if config.explicit else "")
        )
    lines += ["", "# Paths in the settings are relative to the tree root."]
    rows = [(f"{s.name} = {_toml_value(s.value)}", shown(s.origin)) for s in settings(config)]
    width = max(len(row) for row, _ in rows)
    lines += [f"{row.ljust(width)}  # {origin}" for row, origin in rows]
    if tree_root is not None:
        lines += _overlay_files(Path(tree_root))
    return "\n".join(lines) + "\n"


def _overlay_files(tree_root: Path) -> list[str]:
    """The tree's schemas/ overlay files: settings too, though they live beside the data."""
    from recipelint.schema import SCHEMA_FILES

    folder = tree_root / OVERLAY_FOLDER
    names = sorted(
        f"{OVERLAY_FOLDER}/{kind}.schema{suffix}"
        for kind in SCHEMA_FILES
        for suffix in (".json", ".yaml", ".yml")
        if (folder / f"{kind}.schema{suffix}").is_file()
    )
    if not names:
        return []
    return [
        "",
        "# Schema overlay files in the tree (a copy of the built-in schema is not one):",
    ] + names
