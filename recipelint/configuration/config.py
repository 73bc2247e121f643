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
least one rule of the catalog (recipelint.configuration.selectors): a typo would otherwise turn a
CI gate into one that always passes; ``severity`` takes exact codes. ``schema`` maps a
schema name (recipe, strategy, kv_store, taxonomy, platforms) to an add-only overlay,
inline or as a path inside the tree; docs/schemas.md gives the merge rules. Every
problem is an RL016 diagnostic at the configuration file (one inside an overlay file
is RL108 there), and load_config raises it as ConfigError. The table is validated by
the typed model of recipelint.configuration.configmodel (pydantic), imported only when a tree has a
configuration file, so that a check without one does not pay for pydantic's import.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from recipelint.diagnostics import Severity, display_path
from recipelint.read.configfile import (
    NO_OVERLAY,
    OVERLAY_FOLDER,
    ConfigError,
    ConfigFile,
    TreeOverlay,
    discover_config_file,
    read_explicit_config,
)
from recipelint.read.load import LoadLimits

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
    # RECIPELINT_DOCS_URL's, else no link (recipelint.rulebook.catalog.docs_url).
    docs_url: str | None = None
    # The `schema` table as written (schema name -> inline overlay or overlay file); the
    # overlays themselves are read by recipelint.schema.overlay into ``overlay``.
    schema: dict[str, Any] = field(default_factory=dict)
    # The tree's schema overlays (this table's and the tree's schemas/ folder's), read by
    # load_config; validation takes them from here. Derived from the files, not a setting:
    # not compared and not in the repr (rule cache keys are made of the settings' repr).
    overlay: TreeOverlay = field(default=NO_OVERLAY, compare=False, repr=False)
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


def _matches(code: str, prefixes: tuple[str, ...]) -> bool:
    return any(code.startswith(prefix.upper()) for prefix in prefixes)


def _parse(table: dict[str, Any], path: Path, text: str = "") -> Config:
    # pydantic is imported here, when a configuration file exists, and not at start-up:
    # a one-file check of a tree without one would pay ~10% more for the import.
    from recipelint.configuration.configmodel import settings_of

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


def _may_have_overlays(tree_root: Path, table: dict[str, Any] | None) -> bool:
    """Cheap test before importing the schema stage (jsonschema): `compile` needs it only
    when the tree declares overlays (a `schema` setting, valid or not, or the folder)."""
    return (table is not None and "schema" in table) or (Path(tree_root) / OVERLAY_FOLDER).is_dir()


def tree_overlay_with(tree_root: Path, found: ConfigFile | None) -> TreeOverlay:
    """The schema overlays of the tree at ``tree_root`` under the configuration ``found``
    (None: no configuration file), problems included; NO_OVERLAY when it declares none."""
    if not _may_have_overlays(tree_root, found.table if found else None):
        return NO_OVERLAY
    from recipelint.schema.overlay import read_tree_overlay

    return read_tree_overlay(Path(tree_root), found)


def load_config(tree_root: Path, config_file: Path | None = None) -> Config:
    """The tree's configuration (defaults without a config file); ConfigError when it cannot be used.

    ``config_file`` (``--config``) replaces discovery; a file that cannot serve at all is
    ConfigFileError. The schema overlays (``schema`` here and the tree's ``schemas/``
    folder) are read into the Config and validated too, so a broken overlay stops the
    check rather than being silently left out.
    """
    found = read_explicit_config(config_file) if config_file is not None else None
    found = found or discover_config_file(tree_root)
    config = _parse(found.table, found.path, found.text) if found else Config()
    if config_file is not None:
        config = replace(config, explicit=True)
    overlay = tree_overlay_with(tree_root, found)
    if overlay.problems:
        raise ConfigError(overlay.problems[0], overlay.problems)
    return replace(config, overlay=overlay) if overlay is not NO_OVERLAY else config


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
    from recipelint.schema.builtin import SCHEMA_FILES

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
    from recipelint.schema.builtin import SCHEMA_FILES

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
