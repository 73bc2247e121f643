"""recipelint's findings and spans in the protocol's terms.

recipelint counts 1-based lines and characters; the protocol counts 0-based lines and,
by default, UTF-16 code units, so a column is converted through its line's text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls import uris

from recipelint.lsp.cursor import split_lines
from recipelint.lsp.library import Diagnostic, Severity, Span, rule_url

SOURCE = "recipelint"
SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
UNUSED_SUPPRESSION = "RL015"
UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def _units(text: str, encoding: str) -> int:
    """How many code units of the negotiated position encoding ``text`` takes."""
    if text.isascii() or encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Lines:
    """A text's lines, to turn character columns into the client's code units and back."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.lines = split_lines(text)
        self.encoding = encoding

    def line(self, number: int) -> str:
        return self.lines[number] if 0 <= number < len(self.lines) else ""

    def to_units(self, line: int, character: int) -> int:
        return _units(self.line(line)[:character], self.encoding)

    def from_units(self, line: int, units: int) -> int:
        """The character offset of a position the client gave in its code units."""
        text = self.line(line)
        if text.isascii() or self.encoding == UTF32:
            return max(0, min(units, len(text)))
        count = 0
        for index, char in enumerate(text):
            if count >= units:
                return index
            count += _units(char, self.encoding)
        return len(text)

    def position(self, line: int, character: int) -> types.Position:
        """A 0-based line and character offset as a protocol position."""
        return types.Position(max(line, 0), self.to_units(line, max(character, 0)))

    def span_range(self, span: Span) -> types.Range:
        """A 1-based span; one without an end runs to the end of its word."""
        line, column = max(span.line - 1, 0), max(span.column - 1, 0)
        if span.end_line is None or span.end_column is None:
            end_line, end_column = line, _word_end(self.line(line), column)
        else:
            end_line, end_column = span.end_line - 1, max(span.end_column - 1, 0)
        return types.Range(self.position(line, column), self.position(end_line, end_column))


def _word_end(text: str, column: int) -> int:
    end = column
    while end < len(text) and not text[end].isspace():
        end += 1
    return end if end > column else min(column + 1, len(text)) if text else column


def path_uri(path: Path) -> str:
    return uris.from_fs_path(str(path)) or path.as_uri()


def uri_path(uri: str) -> Path | None:
    fs_path = uris.to_fs_path(uri)
    return Path(fs_path).resolve() if fs_path else None


def to_protocol(
    diagnostic: Diagnostic, lines: Lines, lines_of: Callable[[Path], Lines]
) -> types.Diagnostic:
    """One finding as a protocol diagnostic; the hint follows the message as `check` prints it."""
    message = diagnostic.message + (f"\nhint: {diagnostic.hint}" if diagnostic.hint else "")
    related = [
        types.DiagnosticRelatedInformation(
            types.Location(path_uri(item.path), lines_of(item.path).span_range(item.span)),
            item.message,
        )
        for item in diagnostic.related
    ]
    url = rule_url(diagnostic.code)  # None without a documentation base: no dead link
    return types.Diagnostic(
        range=lines.span_range(diagnostic.span),
        message=message,
        severity=SEVERITIES[diagnostic.severity],
        code=diagnostic.code,
        code_description=types.CodeDescription(href=url) if url else None,
        source=SOURCE,
        related_information=related or None,
        tags=[types.DiagnosticTag.Unnecessary] if diagnostic.code == UNUSED_SUPPRESSION else None,
    )
