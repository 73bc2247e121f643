"""SARIF 2.1.0 output: rule metadata from the catalog, one result per diagnostic."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from recipelint import __version__
from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.rulebook.catalog import RuleInfo, load_rulebook, rule_url, rules_page_url

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Relative artifact URIs are relative to %SRCROOT%, the base a caller gives (the report
# gives the repository root, which code scanning resolves them against).
SRCROOT = "%SRCROOT%"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule_descriptor(info: RuleInfo, docs_url: str | None) -> dict[str, Any]:
    help_text = "\n\n".join(
        part for part in (info.rationale, f"Fix: {info.fix}" if info.fix else "") if part
    )
    descriptor = {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary or info.name},
        "fullDescription": {"text": info.rationale or info.summary or info.name},
        "help": {"text": help_text or info.summary or info.name},
        "defaultConfiguration": {"level": _LEVELS[info.severity]},
    }
    # Optional in SARIF: left out rather than pointing at a placeholder.
    help_uri = rule_url(info.code, docs_url)
    if help_uri:
        descriptor["helpUri"] = help_uri
    return descriptor


def _artifact(path: Path, base: Path) -> dict[str, Any]:
    """A percent-encoded URI: file names may hold `%`, `:`, `#`, spaces or newlines.

    A path below ``base`` becomes a relative reference against %SRCROOT%; any other
    path an absolute file URI (a `..` reference would climb out of the checkout).
    """
    absolute = Path(os.path.realpath(path))  # a relative path is relative to the current folder
    try:
        relative = absolute.relative_to(base).as_posix()
    except ValueError:
        return {"uri": absolute.as_uri()}
    # quote() with safe="/" also encodes ":", so no first segment reads as a scheme.
    # A file name that is not UTF-8 keeps its own bytes (%80), as as_uri() does.
    return {"uri": quote(relative, safe="/", errors="surrogateescape"), "uriBaseId": SRCROOT}


def _location(path: Path, span: Span, base: Path) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": span.line, "startColumn": span.column}
    if span.end_line:
        region["endLine"] = span.end_line
    if span.end_column:
        region["endColumn"] = span.end_column
    return {"physicalLocation": {"artifactLocation": _artifact(path, base), "region": region}}


def _result(
    diag: Diagnostic, rule_index: int, base: Path, fingerprint: str | None
) -> dict[str, Any]:
    text = diag.message + (f" (hint: {diag.hint})" if diag.hint else "")
    result: dict[str, Any] = {
        "ruleId": diag.code,
        "ruleIndex": rule_index,
        "level": _LEVELS[diag.severity],
        "message": {"text": text},
        "locations": [_location(diag.path, diag.span, base)],
    }
    if diag.related:
        result["relatedLocations"] = [
            {"id": number, **_location(r.path, r.span, base), "message": {"text": r.message}}
            for number, r in enumerate(diag.related, start=1)
        ]
    if fingerprint:
        # Code scanning matches alerts across runs by these: no line in them, so an
        # edit above a finding does not reopen it.
        result["partialFingerprints"] = {"recipelintFingerprint/v2": fingerprint}
    return result


def build_sarif(
    diagnostics: Sequence[Diagnostic],
    base: Path | None = None,
    fingerprints: Sequence[str] | None = None,
    docs_url: str | None = None,
) -> dict[str, Any]:
    """The SARIF log of a check; ``docs_url`` is the configured documentation base
    (rulebook.docs_url): without one no rule and not the tool carries a link."""
    base = Path(os.path.realpath(base or Path.cwd()))
    catalog = load_rulebook()
    codes = sorted({d.code for d in diagnostics} | set(catalog))
    rules = [_rule_descriptor(catalog[c], docs_url) if c in catalog else {"id": c} for c in codes]
    index = {rule["id"]: n for n, rule in enumerate(rules)}
    keys = list(fingerprints) if fingerprints is not None else [None] * len(diagnostics)
    results = [
        _result(diag, index[diag.code], base, key)
        for diag, key in zip(diagnostics, keys, strict=False)
    ]
    driver: dict[str, Any] = {
        "name": "recipelint",
        "version": __version__,
        "semanticVersion": __version__,
    }
    information_uri = rules_page_url(docs_url)
    if information_uri:
        driver["informationUri"] = information_uri
    driver["rules"] = rules
    run = {
        "tool": {"driver": driver},
        # Spans count characters (YAML marks), not SARIF's default UTF-16 code units.
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
