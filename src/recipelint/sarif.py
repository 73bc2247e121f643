"""SARIF 2.1.0 output: rule metadata from the catalog, one result per diagnostic."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recipelint import __version__
from recipelint.catalog import RuleInfo, load_catalog
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.report import display_path

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule_descriptor(info: RuleInfo) -> dict[str, Any]:
    help_text = "\n\n".join(part for part in (info.rationale, f"Fix: {info.fix}" if info.fix else "") if part)
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary or info.name},
        "fullDescription": {"text": info.rationale or info.summary or info.name},
        "help": {"text": help_text or info.summary or info.name},
        "defaultConfiguration": {"level": _LEVELS[info.severity]},
    }


def _location(diag: Diagnostic) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": diag.span.line, "startColumn": diag.span.column}
    if diag.span.end_line:
        region["endLine"] = diag.span.end_line
    if diag.span.end_column:
        region["endColumn"] = diag.span.end_column
    uri = Path(display_path(diag.path)).as_posix()
    return {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}


def build_sarif(diagnostics: Sequence[Diagnostic]) -> dict[str, Any]:
    catalog = load_catalog()
    codes = sorted({d.code for d in diagnostics} | set(catalog))
    rules = [_rule_descriptor(catalog[c]) if c in catalog else {"id": c} for c in codes]
    index = {rule["id"]: n for n, rule in enumerate(rules)}
    results = []
    for diag in diagnostics:
        text = diag.message + (f" (hint: {diag.hint})" if diag.hint else "")
        results.append({
            "ruleId": diag.code,
            "ruleIndex": index[diag.code],
            "level": _LEVELS[diag.severity],
            "message": {"text": text},
            "locations": [_location(diag)],
        })
    driver = {"name": "recipelint", "version": __version__,
              "informationUri": "https://github.com/vllm-project/recipes", "rules": rules}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": results}]}
