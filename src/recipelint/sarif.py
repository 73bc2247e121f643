"""SARIF 2.1.0 output: rule metadata from the catalog, one result per diagnostic."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from recipelint import __version__
from recipelint.catalog import RuleInfo, load_catalog
from recipelint.diagnostics import Diagnostic, Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Relative artifact URIs are relative to the folder recipelint ran in; code-scanning
# uploads resolve them against the checkout root.
SRCROOT = "%SRCROOT%"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule_descriptor(info: RuleInfo) -> dict[str, Any]:
    help_text = "\n\n".join(
        part for part in (info.rationale, f"Fix: {info.fix}" if info.fix else "") if part
    )
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary or info.name},
        "fullDescription": {"text": info.rationale or info.summary or info.name},
        "help": {"text": help_text or info.summary or info.name},
        "defaultConfiguration": {"level": _LEVELS[info.severity]},
    }


def _artifact(path: Path, base: Path) -> dict[str, Any]:
    """A percent-encoded URI: file names may hold `%`, `:`, `#`, spaces or newlines.

    A path below ``base`` becomes a relative reference against %SRCROOT%; any other
    path an absolute file URI (a `..` reference would climb out of the checkout).
    """
    absolute = path if path.is_absolute() else base / path
    try:
        relative = absolute.relative_to(base).as_posix()
    except ValueError:
        return {"uri": absolute.as_uri()}
    # quote() with safe="/" also encodes ":", so no first segment reads as a scheme.
    # A file name that is not UTF-8 keeps its own bytes (%80), as as_uri() does.
    return {"uri": quote(relative, safe="/", errors="surrogateescape"), "uriBaseId": SRCROOT}


def _location(diag: Diagnostic, base: Path) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": diag.span.line, "startColumn": diag.span.column}
    if diag.span.end_line:
        region["endLine"] = diag.span.end_line
    if diag.span.end_column:
        region["endColumn"] = diag.span.end_column
    return {"physicalLocation": {"artifactLocation": _artifact(diag.path, base), "region": region}}


def build_sarif(diagnostics: Sequence[Diagnostic], base: Path | None = None) -> dict[str, Any]:
    base = Path(os.path.abspath(base or Path.cwd()))
    catalog = load_catalog()
    codes = sorted({d.code for d in diagnostics} | set(catalog))
    rules = [_rule_descriptor(catalog[c]) if c in catalog else {"id": c} for c in codes]
    index = {rule["id"]: n for n, rule in enumerate(rules)}
    results = []
    for diag in diagnostics:
        text = diag.message + (f" (hint: {diag.hint})" if diag.hint else "")
        results.append(
            {
                "ruleId": diag.code,
                "ruleIndex": index[diag.code],
                "level": _LEVELS[diag.severity],
                "message": {"text": text},
                "locations": [_location(diag, base)],
            }
        )
    driver = {
        "name": "recipelint",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": "https://github.com/vllm-project/recipes",
        "rules": rules,
    }
    run = {
        "tool": {"driver": driver},
        # Spans count characters (YAML marks), not SARIF's default UTF-16 code units.
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
