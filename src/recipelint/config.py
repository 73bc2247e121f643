"""User configuration: ``[tool.recipelint]`` in pyproject.toml or ``.recipelint.toml`` at the tree root.

Example::

    [tool.recipelint]
    select = ["RL"]                  # code prefixes to run (default: all)
    ignore = ["RL6"]                 # code prefixes to skip
    severity = { RL301 = "warning" } # per-rule severity
    per-file-ignores = { "models/legacy/*.yaml" = ["RL4"] }
    [tool.recipelint.limits]
    max-file-bytes = 1048576
    max-depth = 100
    max-nodes = 200000
    max-renderings = 5000
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.load import LoadLimits

CONFIG_FILES = (".recipelint.toml", "pyproject.toml")


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("RL",)
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    limits: LoadLimits = LoadLimits()
    max_renderings: int = 5000
    source: Path | None = None

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


class ConfigError(Exception):
    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _fail(path: Path, message: str) -> ConfigError:
    return ConfigError(Diagnostic(path, Span(1, 1), "RL016", Severity.ERROR, message,
                                  "see the configuration section of the README"))


def _codes(value: Any, path: Path, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(path, f"'{key}' must be a list of rule codes or prefixes")
    return tuple(v.upper() for v in value)


def _parse(table: dict[str, Any], path: Path) -> Config:
    known = {"select", "ignore", "severity", "per-file-ignores", "limits"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise _fail(path, f"unknown recipelint setting(s): {', '.join(unknown)}")
    severity_table = table.get("severity", {})
    if not isinstance(severity_table, dict):
        raise _fail(path, "'severity' must be a table of CODE = \"error|warning|info\"")
    try:
        severity = {code.upper(): Severity.parse(str(level)) for code, level in severity_table.items()}
    except ValueError as exc:
        raise _fail(path, str(exc)) from None
    ignores = table.get("per-file-ignores", {})
    if not isinstance(ignores, dict):
        raise _fail(path, "'per-file-ignores' must be a table of glob = [codes]")
    limits_table = table.get("limits", {})
    if not isinstance(limits_table, dict):
        raise _fail(path, "'limits' must be a table")
    limit_names = {"max-file-bytes": "max_file_bytes", "max-depth": "max_depth", "max-nodes": "max_nodes"}
    bad = sorted(set(limits_table) - set(limit_names) - {"max-renderings"})
    if bad or not all(type(v) is int and v > 0 for v in limits_table.values()):  # not bool
        raise _fail(path, "limits take positive integers: " + ", ".join([*limit_names, "max-renderings"]))
    return Config(
        select=_codes(table.get("select", ["RL"]), path, "select"),
        ignore=_codes(table.get("ignore", []), path, "ignore"),
        severity=severity,
        per_file_ignores={glob: _codes(codes, path, f"per-file-ignores.{glob}") for glob, codes in ignores.items()},
        limits=LoadLimits(**{limit_names[k]: v for k, v in limits_table.items() if k in limit_names}),
        max_renderings=int(limits_table.get("max-renderings", 5000)),
        source=path,
    )


def load_config(tree_root: Path) -> Config:
    """The first config file at the tree root that has a recipelint table; defaults otherwise."""
    for name in CONFIG_FILES:
        path = tree_root / name
        if not path.is_file():
            continue
        try:
            document = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError, RecursionError) as exc:
            # RecursionError: the file comes with the pull request and may nest arrays 100,000 deep.
            raise _fail(path, f"cannot read the configuration: {exc}") from None
        tool = document.get("tool", {})
        table = tool.get("recipelint") if isinstance(tool, dict) else None
        if table is None and name != "pyproject.toml":
            table = document
        if table is not None:
            if not isinstance(table, dict):  # the file comes with the pull request: any shape
                raise _fail(path, "[tool.recipelint] must be a table")
            return _parse(table, path)
    return Config()
