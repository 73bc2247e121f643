"""The finding every stage produces: one problem at one place in one file."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, replace
from pathlib import Path


class Severity(enum.IntEnum):
    """Ordered so that a larger value is more serious."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Span:
    """A 1-based source range; end is exclusive in column, like most editors report."""

    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None


UNKNOWN_SPAN = Span(1, 1)
# The notice that checks were held back for a cause outside the file (a broken taxonomy):
# the engine emits it and the reports fold its copies into one.
CHECKS_SKIPPED = "RL020"


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that belongs to the same problem (the cause, or more places it affects)."""

    path: Path
    span: Span
    message: str
    pointer: tuple[str | int, ...] = ()


@dataclass(frozen=True, slots=True)
class Diagnostic:
    path: Path
    span: Span
    code: str
    severity: Severity
    message: str
    hint: str | None = None
    # Where in the document the finding points; suppression comments on any
    # enclosing key apply to it.
    pointer: tuple[str | int, ...] = ()
    related: tuple[Related, ...] = ()

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def with_severity(self, severity: Severity) -> Diagnostic:
        return replace(self, severity=severity)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (str(self.path), self.span.line, self.span.column, self.code, self.message)


def display_path(path: Path, base: Path | None = None) -> str:
    """The path relative to the current directory when it is below it, else as given.

    File names come with the pull request: bytes that are not UTF-8 become U+FFFD, so a
    name cannot make a report invalid UTF-8. Each format escapes the rest by its own rules.
    """
    base = base or Path.cwd()
    try:
        shown = os.path.relpath(path, base) if path.is_absolute() else str(path)
    except ValueError:
        shown = str(path)
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
