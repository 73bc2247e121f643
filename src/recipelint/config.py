"""User configuration: ``[tool.recipelint]`` in pyproject.toml or ``.recipelint.toml`` at the tree root.

Example::

    [tool.recipelint]
    select = ["RL"]                  # codes or prefixes to run (default: all; "ALL" = every rule)
    ignore = ["RL6"]                 # codes or prefixes to skip
    severity = { RL301 = "warning" } # per-rule severity (exact codes)
    per-file-ignores = { "models/legacy/*.yaml" = ["RL4"] }
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
is RL108 there), and load_config raises it as ConfigError.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
import tomllib
from collections.abc import Iterable, Sequence
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
    """A configuration that cannot be used; ``diagnostics`` holds every problem found, first one first."""

    def __init__(self, diagnostic: Diagnostic, diagnostics: Sequence[Diagnostic] = ()):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.diagnostics = tuple(diagnostics) or (diagnostic,)


def _fail(path: Path, message: str, where: Span = Span(1, 1)) -> ConfigError:
    return ConfigError(config_diagnostic(path, message, where))


def config_diagnostic(path: Path, message: str, where: Span = Span(1, 1)) -> Diagnostic:
    return Diagnostic(path, where, "RL016", Severity.ERROR, message, "see the configuration section of the README")


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
    with raises ValueError naming it, with a did-you-mean where a code is close: a typo
    must not turn the check into one that silently runs nothing.
    """
    from recipelint.catalog import load_catalog

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
                raise ValueError(_unknown_selector(part.strip(), code, codes))
            if code not in selected:
                selected.append(code)
    if given and not selected:
        raise ValueError("no rule code given: name codes or prefixes such as RL101 or RL1, or ALL")
    return tuple(selected)


def _unknown_selector(written: str, code: str, codes: list[str]) -> str:
    message = f"'{written}' matches no rule: no rule code starts with '{code}'"
    suggestion = _closest_code(written, codes)
    if suggestion:
        message += f" (did you mean '{suggestion}'?)"
    return message + "; `recipelint rules` lists the codes (e.g. RL101, or the prefix RL1)"


def _closest_code(written: str, codes: list[str]) -> str | None:
    """The code a mistyped selector probably meant: a rule's name, a letter O for a zero, one slip."""
    from recipelint.catalog import load_catalog

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


def _codes(value: Any, path: Path, key: str, text: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(path, f"'{key}' must be a list of rule codes or prefixes", locate(text, key))
    try:
        return parse_code_selectors(value)
    except ValueError as exc:
        bad = next((p.strip() for v in value for p in v.split(",")
                    if p.strip() and str(exc).startswith(f"'{p.strip()}'")), key)
        raise _fail(path, f"'{key}': {exc}", locate(text, bad, key)) from None


def _severities(table: Any, path: Path, text: str) -> dict[str, Severity]:
    if not isinstance(table, dict):
        raise _fail(path, "'severity' must be a table of CODE = \"error|warning|info\"", locate(text, "severity"))
    from recipelint.catalog import load_catalog

    known = sorted(load_catalog())
    severity: dict[str, Severity] = {}
    for code, level in table.items():
        if code.upper() not in known:  # severity_for looks codes up exactly: a prefix would do nothing
            suggestion = _closest_code(code, known)
            raise _fail(path, f"'severity': '{code}' is not a rule code"
                        + (f" (did you mean '{suggestion}'?)" if suggestion else ""), locate(text, code))
        try:
            severity[code.upper()] = Severity.parse(str(level))
        except ValueError as exc:
            raise _fail(path, str(exc), locate(text, code)) from None
    return severity


def _parse(table: dict[str, Any], path: Path, text: str = "") -> Config:
    known = {"select", "ignore", "severity", "per-file-ignores", "limits", "schema"}
    unknown = sorted(set(table) - known)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        raise _fail(path, f"unknown recipelint setting(s): {', '.join(unknown)}"
                    + (f" (did you mean '{close[0]}'?)" if close else ""), locate(text, unknown[0]))
    severity = _severities(table.get("severity", {}), path, text)
    ignores = table.get("per-file-ignores", {})
    if not isinstance(ignores, dict):
        raise _fail(path, "'per-file-ignores' must be a table of glob = [codes]", locate(text, "per-file-ignores"))
    limits_table = table.get("limits", {})
    if not isinstance(limits_table, dict):
        raise _fail(path, "'limits' must be a table", locate(text, "limits"))
    limit_names = {"max-file-bytes": "max_file_bytes", "max-depth": "max_depth", "max-nodes": "max_nodes"}
    bad = sorted(set(limits_table) - set(limit_names) - {"max-renderings"})
    if bad or not all(type(v) is int and v > 0 for v in limits_table.values()):  # not bool
        raise _fail(path, "limits take positive integers: " + ", ".join([*limit_names, "max-renderings"]),
                    locate(text, *bad, "limits"))
    return Config(
        select=_codes(table.get("select", ["RL"]), path, "select", text),
        ignore=_codes(table.get("ignore", []), path, "ignore", text),
        severity=severity,
        per_file_ignores={glob: _codes(codes, path, f"per-file-ignores.{glob}", text)
                          for glob, codes in ignores.items()},
        limits=LoadLimits(**{limit_names[k]: v for k, v in limits_table.items() if k in limit_names}),
        max_renderings=int(limits_table.get("max-renderings", 5000)),
        source=path,
    )


@dataclass(frozen=True)
class ConfigFile:
    """The configuration file of a tree and its recipelint table (the text is kept for positions)."""

    path: Path
    text: str
    table: dict[str, Any]


def read_config_file(tree_root: Path) -> ConfigFile | None:
    """The first config file at the tree root that has a recipelint table; None when there is none."""
    for name in CONFIG_FILES:
        path = tree_root / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            document = tomllib.loads(text)
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
            return ConfigFile(path, text, table)
    return None


def load_config(tree_root: Path) -> Config:
    """The tree's configuration (defaults without a config file); ConfigError when it cannot be used.

    The schema overlays (``schema`` here and the tree's ``schemas/`` folder) are validated
    too, so a broken overlay stops the check rather than being silently left out.
    """
    found = read_config_file(tree_root)
    config = _parse(found.table, found.path, found.text) if found else Config()
    from recipelint.schema import tree_overlay

    problems = tree_overlay(tree_root).problems
    if problems:
        raise ConfigError(problems[0], problems)
    return config
