"""The schema stage's entry point: a loaded document validated against its kind's schema
with its tree's overlay, as sorted, de-duplicated findings."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from recipelint.diagnostics import Diagnostic
from recipelint.read.configfile import NO_OVERLAY, TreeOverlay
from recipelint.read.load import Document
from recipelint.schema.adoption import NONE_UNADOPTED, Unadopted
from recipelint.schema.builtin import SCHEMA_FILES, load_schema
from recipelint.schema.dates import written_dates
from recipelint.schema.errors import listed_errors
from recipelint.schema.messages import ErrorContext, SchemaFinding, diagnose
from recipelint.schema.overlay import tree_overlay, tree_root
from recipelint.schema.validators import known_valid, schema_for

# ----------------------------------------------------------------------------- entry point


def _context(
    doc: Document, overlay: str = "", unadopted: Unadopted = NONE_UNADOPTED
) -> ErrorContext:
    root = schema_for(doc.kind, overlay)
    defs = load_schema(doc.kind).get(
        "$defs", {}
    )  # RL105/RL106 patterns: built in, an overlay cannot change them
    return ErrorContext(
        doc,
        root,
        defs.get("version", {}).get("pattern"),
        defs.get("date", {}).get("pattern"),
        overlay,
        unadopted,
    )


def document_overlay(doc: Document) -> TreeOverlay:
    """The overlays of the tree a document belongs to (found from its path and tree-relative
    name) under the configuration discovery finds: for a document validated on its own."""
    root = tree_root(doc)
    return tree_overlay(root) if root is not None else NO_OVERLAY


def schema_findings(
    doc: Document, overlay: TreeOverlay | None = None, unadopted: Unadopted = NONE_UNADOPTED
) -> list[SchemaFinding]:
    """Schema findings with their pointers, sorted by position; empty for unparsed files or other kinds.
    ``unadopted``: the required keys its tree does not use yet (recipelint.schema.adoption)."""
    if not doc.usable or doc.kind not in SCHEMA_FILES:
        return []
    patches = (overlay or document_overlay(doc)).patches.get(doc.kind, "")
    ctx = _context(doc, patches, unadopted)
    found: list[SchemaFinding] = []
    if not known_valid(doc, patches):
        for error in listed_errors(doc.data, doc.kind, patches):
            found.extend(diagnose(ctx, error))
    found.extend(written_dates(ctx))
    unique: dict[tuple[Any, ...], SchemaFinding] = {}
    for finding in found:
        d = finding.diagnostic
        unique.setdefault((d.code, d.span, d.message), finding)
    return sorted(unique.values(), key=lambda f: f.diagnostic.sort_key())


def validate_documents(
    docs: Iterable[Document], overlay: TreeOverlay, unadopted: Unadopted = NONE_UNADOPTED
) -> list[Diagnostic]:
    """validate_document for each document of one tree, whose overlays are ``overlay``
    (the Config's: load_config read them) and whose unadopted requirements are ``unadopted``
    (computed from the whole tree: recipelint.schema.adoption.unadopted_requirements)."""
    return [diag for found in validate_each(docs, overlay, unadopted) for diag in found]


def validate_each(
    docs: Iterable[Document], overlay: TreeOverlay, unadopted: Unadopted = NONE_UNADOPTED
) -> list[list[Diagnostic]]:
    """validate_document's findings for each document, in order."""
    return [validate_document(doc, overlay, unadopted) for doc in docs]


def validate_document(
    doc: Document, overlay: TreeOverlay | None = None, unadopted: Unadopted = NONE_UNADOPTED
) -> list[Diagnostic]:
    """Schema diagnostics for one loaded document (the `check` pipeline's schema stage).

    The problems of the tree's overlays come with every document's (the check keeps one
    copy of each): they are about the overlay files, whichever document is checked.
    """
    if not doc.usable or doc.kind not in SCHEMA_FILES:
        return []
    overlay = overlay or document_overlay(doc)
    return [finding.diagnostic for finding in schema_findings(doc, overlay, unadopted)] + list(
        overlay.problems
    )
