"""The ``[tool.recipelint]`` table as a typed model (pydantic), and its problems as RL016.

recipelint.configuration.config imports this module only when a tree has a configuration file: a
check of a tree without one never pays for importing pydantic. ``settings_of`` validates
the table as TOML parsed it and returns a ``SettingsTable``, or raises ConfigError with
the first problem in the order an author fixes them (an unknown setting, then severity,
the shape of per-file-ignores, limits, select, ignore, the per-file-ignores codes), at
the place in the file where it is written.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

from recipelint.configuration.selectors import SelectorError, closest_code, parse_code_selectors
from recipelint.diagnostics import Severity
from recipelint.read.configfile import ConfigError, config_diagnostic, locate
from recipelint.read.load import LoadLimits

LIMIT_NAMES = ("max-file-bytes", "max-depth", "max-nodes", "max-renderings")


def _selectors(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise PydanticCustomError("code_list", "not a list of rule codes")
    try:
        return parse_code_selectors(value)
    except SelectorError as exc:
        parts = (part.strip() for item in value for part in item.split(","))
        bad = next((p for p in parts if p and str(exc).startswith(f"'{p}'")), None)
        raise PydanticCustomError("selector", "{error}", {"error": str(exc), "part": bad}) from None


def _rule_code(code: str) -> str:
    """An exact catalog code (severity_for looks codes up exactly: a prefix would do nothing)."""
    from recipelint.rulebook.catalog import load_rulebook

    known = sorted(load_rulebook())
    if code.upper() not in known:
        suggestion = closest_code(code, known)
        message = f"'severity': '{code}' is not a rule code" + (
            f" (did you mean '{suggestion}'?)" if suggestion else ""
        )
        raise PydanticCustomError("rule_code", "{message}", {"message": message})
    return code.upper()


def _severity(level: Any) -> Severity:
    try:
        return Severity.parse(str(level))
    except ValueError as exc:
        raise PydanticCustomError("severity", "{message}", {"message": str(exc)}) from None


def _docs_url(value: Any) -> str:
    from recipelint.rulebook.catalog import is_docs_url

    if not isinstance(value, str) or not is_docs_url(value):
        raise PydanticCustomError("docs_url", "not an http(s) URL")
    return value


Selectors = Annotated[tuple[str, ...], BeforeValidator(_selectors)]
RuleCode = Annotated[str, BeforeValidator(_rule_code)]
Level = Annotated[Severity, BeforeValidator(_severity)]
PositiveCount = Annotated[int, Field(gt=0)]
DocsUrl = Annotated[str, BeforeValidator(_docs_url)]


class LimitsTable(BaseModel):
    """``[tool.recipelint.limits]``: positive integers (not booleans, not floats)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    max_file_bytes: PositiveCount | None = Field(None, alias="max-file-bytes")
    max_depth: PositiveCount | None = Field(None, alias="max-depth")
    max_nodes: PositiveCount | None = Field(None, alias="max-nodes")
    max_renderings: PositiveCount = Field(5000, alias="max-renderings")

    def load_limits(self) -> LoadLimits:
        given = {
            "max_file_bytes": self.max_file_bytes,
            "max_depth": self.max_depth,
            "max_nodes": self.max_nodes,
        }
        return LoadLimits(**{name: value for name, value in given.items() if value is not None})


class SettingsTable(BaseModel):
    """``[tool.recipelint]`` (or the top level of a ``.recipelint.toml``)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    select: Selectors = ("RL",)
    ignore: Selectors = ()
    severity: dict[RuleCode, Level] = Field(default_factory=dict)
    per_file_ignores: dict[str, Selectors] = Field(default_factory=dict, alias="per-file-ignores")
    limits: LimitsTable = Field(default_factory=lambda: LimitsTable.model_validate({}))
    docs_url: DocsUrl | None = Field(None, alias="docs-url")
    # As written: the overlay reader (recipelint.schema.tree_overlay) reports its problems.
    schema_table: Any = Field(None, alias="schema")

    @classmethod
    def setting_names(cls) -> list[str]:
        return sorted(field.alias or name for name, field in cls.model_fields.items())


def settings_of(table: dict[str, Any], path: Path, text: str) -> SettingsTable:
    """The validated table; ConfigError with the first problem (module docstring) otherwise."""
    try:
        return SettingsTable.model_validate(table)
    except ValidationError as exc:
        message, needles = _first_problem(exc.errors())
    raise ConfigError(config_diagnostic(path, message, locate(text, *needles)))


def _first_problem(errors: list[ErrorDetails]) -> tuple[str, tuple[str, ...]]:
    unknown = sorted(str(e["loc"][0]) for e in errors if _is_unknown_setting(e))
    if unknown:
        close = difflib.get_close_matches(unknown[0], SettingsTable.setting_names(), n=1)
        suggestion = f" (did you mean '{close[0]}'?)" if close else ""
        return f"unknown recipelint setting(s): {', '.join(unknown)}{suggestion}", (unknown[0],)
    ranked = sorted(enumerate(errors), key=lambda item: (_rank(item[1]), item[0]))
    return _problem(ranked[0][1], errors)


def _is_unknown_setting(error: ErrorDetails) -> bool:
    return error["type"] == "extra_forbidden" and len(error["loc"]) == 1


def _rank(error: ErrorDetails) -> int:
    setting, depth = str(error["loc"][0]), len(error["loc"])
    if setting == "per-file-ignores":
        return 2 if depth == 1 else 6
    return {"severity": 1, "limits": 3, "select": 4, "ignore": 5}.get(setting, 7)


def _problem(error: ErrorDetails, errors: list[ErrorDetails]) -> tuple[str, tuple[str, ...]]:
    loc = [str(part) for part in error["loc"]]
    context = error.get("ctx", {})
    if loc[0] == "severity":
        if len(loc) == 1:
            return "'severity' must be a table of CODE = \"error|warning|info\"", ("severity",)
        return str(context.get("message", error["msg"])), (loc[1],)
    if loc == ["per-file-ignores"]:
        return "'per-file-ignores' must be a table of glob = [codes]", ("per-file-ignores",)
    if loc[0] == "limits":
        return _limits_problem(loc, errors)
    if loc[0] == "docs-url":
        return (
            "'docs-url' must be an http(s) URL: the folder holding rules.md, "
            "e.g. https://github.com/<owner>/recipelint/blob/<tag>/docs"
        ), ("docs-url",)
    key = ".".join(loc[:2])
    if error["type"] == "selector":
        part = context.get("part")
        return f"'{key}': {context['error']}", (*([part] if part else []), key)
    return f"'{key}' must be a list of rule codes or prefixes", (key,)


def _limits_problem(loc: list[str], errors: list[ErrorDetails]) -> tuple[str, tuple[str, ...]]:
    if len(loc) == 1:
        return "'limits' must be a table", ("limits",)
    return "limits take positive integers: " + ", ".join(LIMIT_NAMES), (
        *sorted(_unknown_limits(errors)),
        "limits",
    )


def _unknown_limits(errors: list[ErrorDetails]) -> Iterator[str]:
    for error in errors:
        loc = error["loc"]
        if error["type"] == "extra_forbidden" and len(loc) == 2 and loc[0] == "limits":
            yield str(loc[1])
