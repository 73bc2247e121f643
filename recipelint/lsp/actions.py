"""Code actions: each finding's safe fix and did-you-mean as quick fixes, and a suppression.

A safe fix is `recipelint check --fix`'s own (recipelint.fix.fixers), applied to the buffer
as one minimal text edit; a did-you-mean replaces the misspelt word the finding quotes
inside the finding's own range.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lsprotocol import types

from recipelint.lsp import library
from recipelint.lsp.convert import Lines
from recipelint.lsp.library import Diagnostic, Document

DID_YOU_MEAN = re.compile(r"did you mean [`'](?P<suggestion>[^`'\s]+)[`']\?")
QUOTED = re.compile(r"[`'](?P<word>[^`'\s]+)[`']")
LINE_BREAK = re.compile(r"\r\n|\r|\n")
FIX_ALL = types.CodeActionKind.SourceFixAll.value + ".recipelint"


@dataclass(frozen=True)
class SentFinding:
    """A recipelint finding and the protocol diagnostic the client was sent for it."""

    diagnostic: Diagnostic
    shown: types.Diagnostic


def code_actions(
    doc: Document, uri: str, findings: list[SentFinding], encoding: str
) -> list[types.CodeAction]:
    """Quick fixes for these findings of the document, and one action for all its safe fixes."""
    lines = Lines(doc.text, encoding)
    actions: list[types.CodeAction] = []
    for finding in findings:
        actions += _quick_fixes(doc, uri, lines, finding)
    fixable = [f.diagnostic for f in findings if f.diagnostic.code in library.fixable_codes()]
    whole = library.fixed_text(doc, fixable) if len(fixable) > 1 else None
    if whole is not None:
        actions.append(
            types.CodeAction(
                title="Apply every safe recipelint fix in this file",
                kind=FIX_ALL,
                edit=_edit(uri, doc.text, whole, lines),
            )
        )
    return actions


def _quick_fixes(
    doc: Document, uri: str, lines: Lines, finding: SentFinding
) -> Iterator[types.CodeAction]:
    diagnostic = finding.diagnostic
    edits: set[str] = set()
    if diagnostic.code in library.fixable_codes():
        fixed = library.fixed_text(doc, [diagnostic])
        if fixed is not None:
            edits.add(fixed)
            title = f"Fix {diagnostic.code}: {diagnostic.hint or diagnostic.message}"
            yield _quick_fix(title, uri, doc.text, fixed, lines, finding, preferred=True)
    respelt = _respelt(doc, lines, diagnostic)
    if respelt is not None and respelt[1] not in edits:
        yield _quick_fix(respelt[0], uri, doc.text, respelt[1], lines, finding, preferred=not edits)
    # A file that does not parse has no keys to attach a suppression to.
    suppressed = suppressed_text(doc, lines, diagnostic) if doc.usable else None
    if suppressed is not None:
        title = f"Suppress {diagnostic.code} here (# recipelint: disable={diagnostic.code})"
        yield _quick_fix(title, uri, doc.text, suppressed, lines, finding, preferred=False)


def _quick_fix(
    title: str,
    uri: str,
    old: str,
    new: str,
    lines: Lines,
    finding: SentFinding,
    preferred: bool,
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[finding.shown],
        is_preferred=preferred,
        edit=_edit(uri, old, new, lines),
    )


def _edit(uri: str, old: str, new: str, lines: Lines) -> types.WorkspaceEdit:
    """One text edit covering what differs between ``old`` and ``new``."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    start, end = _position(old, prefix, lines), _position(old, len(old) - suffix, lines)
    edit = types.TextEdit(types.Range(start, end), new[prefix : len(new) - suffix])
    return types.WorkspaceEdit(changes={uri: [edit]})


def _position(text: str, offset: int, lines: Lines) -> types.Position:
    line = len(LINE_BREAK.findall(text, 0, offset))
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    return lines.position(line, offset - start)


def _respelt(doc: Document, lines: Lines, diagnostic: Diagnostic) -> tuple[str, str] | None:
    """(title, text) replacing the misspelt word the finding quotes with its suggestion."""
    match = DID_YOU_MEAN.search(diagnostic.hint or "") or DID_YOU_MEAN.search(diagnostic.message)
    if match is None:
        return None
    suggestion = match.group("suggestion")
    quoted = [m.group("word") for m in QUOTED.finditer(diagnostic.message)]
    span = diagnostic.span
    line = lines.line(span.line - 1)
    start = span.column - 1
    end = span.end_column - 1 if span.end_line == span.line and span.end_column else len(line)
    written = line[start:end]
    for word in quoted:
        if word != suggestion and word in written:
            at = start + written.index(word)
            offset = _offset(doc.text, span.line - 1) + at
            text = doc.text[:offset] + suggestion + doc.text[offset + len(word) :]
            return f"Replace `{word}` with `{suggestion}`", text
    return None


def _offset(text: str, line: int) -> int:
    """The character offset where 0-based ``line`` starts."""
    offset = 0
    for _ in range(line):
        match = LINE_BREAK.search(text, offset)
        if match is None:
            return len(text)
        offset = match.end()
    return offset


def suppressed_text(doc: Document, lines: Lines, diagnostic: Diagnostic) -> str | None:
    """The text with a `# recipelint: disable=CODE` comment where the engine looks for it:
    the finding's line, or the key above when the line is inside a multi-line string."""
    number = _comment_line(doc, diagnostic) - 1
    line = lines.line(number)
    offset = _offset(doc.text, number)
    existing = library.SUPPRESSION.search(line)
    if existing is not None:
        codes = existing.group(1).rstrip(" -,")
        at = offset + existing.start(1) + len(codes)
        return doc.text[:at] + f",{diagnostic.code}" + doc.text[at:]
    at = offset + len(line)
    comment = f"  # recipelint: disable={diagnostic.code}" if line.strip() else ""
    return doc.text[:at] + comment + doc.text[at:] if comment else None


def _comment_line(doc: Document, diagnostic: Diagnostic) -> int:
    pointer = diagnostic.pointer
    while pointer:
        if doc.has_position(pointer):
            value = doc.span(pointer)
            inside = value.end_line is not None and value.line < diagnostic.span.line
            if inside and isinstance(library.value_at(doc.data, pointer), str):
                return doc.key_span(pointer).line
            return diagnostic.span.line
        pointer = pointer[:-1]
    return diagnostic.span.line
