"""YAML files -> documents with js-yaml 4 values and a source position for every node.

This module reads and decodes a file and runs the parse; the parts it wires live in
`document` (the Document), `yaml_builder`, `yaml_scalars` and `yaml_positions`.

The upstream compiler reads recipes with js-yaml 4.3.2 (YAML 1.2 core schema plus
timestamps and merge keys).  We take libyaml's event stream (C speed, exact marks)
and build the values ourselves, so that:

* plain scalars resolve the way js-yaml resolves them (``yes`` stays a string,
  ``010`` is ten, ``1e3`` is a number, dates become UTC ``YYYY-MM-DD`` strings);
* numbers behave as JavaScript doubles (huge integers lose precision, integral
  floats are integers);
* mapping keys are stringified as JavaScript does (a key holding nested arrays is
  refused, as js-yaml refuses it), and duplicates are errors that name both places;
* nesting depth and alias expansion are bounded, so hostile input costs bounded
  time and memory; no tag ever constructs a Python object.

Upstream: docs/upstream-behaviour.md#js-yaml.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any

import yaml
from yaml._yaml import CParser

from recipelint.diagnostics import Diagnostic, Related, Severity, Span
from recipelint.read.document import Document, value_at
from recipelint.read.syntaxerrors import explain
from recipelint.read.yaml_builder import (
    DEFAULT_LIMITS,
    YAML_TAG,
    Builder,
    LoadError,
    LoadLimits,
    Pointer,
)
from recipelint.read.yaml_positions import (
    LINE_BREAKS,
    pack_entry,
)
from recipelint.read.yaml_scalars import (
    NO_VALUE,
    resolve_plain_scalar,
)

# Where the rest of the package reads YAML from; the parts live in document, yaml_builder,
# yaml_scalars and yaml_positions.
__all__ = [
    "DEFAULT_LIMITS",
    "TAB_FIX",
    "YAML_TAG",
    "Document",
    "LoadError",
    "LoadLimits",
    "Pointer",
    "load_document",
    "pack_entry",
    "parse_yaml",
    "read_within",
    "resolve_plain_scalar",
    "value_at",
]


def _error(doc: Document, code: str, message: str, span: Span, hint: str | None = None) -> Document:
    doc.problems.append(Diagnostic(doc.path, span, code, Severity.ERROR, message, hint))
    doc.usable = False
    doc.data = None
    return doc


def _position_of_offset(text: str, offset: int) -> Span:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Span(line, column)


def decode_source(raw: bytes, doc: Document) -> str | None:
    nul = raw.find(b"\x00")
    if nul >= 0:
        span = _position_of_offset(raw[:nul].decode("utf-8", "replace"), nul)
        _error(doc, "RL004", "the file contains a NUL byte", span, "recipes are UTF-8 text files")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = raw[: exc.start].decode("utf-8", "replace")
        _error(
            doc,
            "RL004",
            f"invalid UTF-8 at byte {exc.start}",
            _position_of_offset(prefix, len(prefix)),
            "save the file as UTF-8",
        )
        return None
    return text[1:] if text.startswith("\ufeff") else text


TAB_FIX = "indent with spaces; YAML forbids tabs in indentation"


# What may precede a tab that breaks parsing: indentation and block indicators ("- ", "? ", ": ").
_LINE_PREFIX = re.compile(r"(?:[ \t]|[-?:](?=[ \t]))*")


def _indenting_tab(text: str, mark: Any, message: str) -> Span | None:
    """The tab libyaml stopped at, when a tab in a line's indentation is what it refused.

    libyaml says "found character that cannot start any token" or "a tab character that
    violates indentation", which names neither the tab's place nor the fix; it marks the
    tab itself, so the tab is taken at the mark, else as the first tab of the mark's line
    prefix (spaces, tabs, block indicators) when the message is about a tab.
    """
    lines = LINE_BREAKS.split(text)
    if not 0 <= mark.line < len(lines):
        return None
    line = lines[mark.line]
    if line[mark.column : mark.column + 1] == "\t":
        column = mark.column
    elif "tab" in message:
        prefix = _LINE_PREFIX.match(line)
        column = prefix.group().find("\t") if prefix else -1
        if column < 0:
            return None
    else:
        return None
    return Span(mark.line + 1, column + 1, mark.line + 1, column + 2)


def parse_yaml(
    text: str,
    path: Path = Path("<string>"),
    kind: str = "other",
    rel: str | None = None,
    limits: LoadLimits = DEFAULT_LIMITS,
    positions: bool = True,
) -> Document:
    """Build a Document from text; never raises for bad input.

    Without ``positions`` the places of the nodes are read from the text again when the
    first one is asked for: cheaper for a document that will most likely report nothing.
    """
    doc = Document(path=path, rel=rel if rel is not None else path.as_posix(), kind=kind, text=text)
    # Four bytes at most per character: only a text that could be too large is encoded.
    if (
        len(text) * 4 > limits.max_file_bytes
        and len(text.encode("utf-8", "surrogatepass")) > limits.max_file_bytes
    ):
        return _error(
            doc,
            "RL003",
            f"file is larger than {limits.max_file_bytes} bytes",
            Span(1, 1),
            "split the file or raise the limit in the recipelint configuration",
        )
    builder = Builder(limits, text, positions)
    try:
        data = builder.build(iter(CParser(text).get_event, None))
    except LoadError as exc:
        _error(doc, exc.code, str(exc), exc.span, exc.hint)
        if exc.other is not None:
            found = doc.problems[-1]
            related = Related(doc.path, exc.other[0], exc.other[1])
            doc.problems[-1] = dataclasses.replace(found, related=(related,))
        return doc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = Span(mark.line + 1, mark.column + 1) if mark else Span(1, 1)
        message = " ".join(part for part in (exc.context, exc.problem) if part) or "invalid YAML"
        if "nesting depth" in message:  # libyaml's own bound (1000 levels) came before ours
            return _error(
                doc,
                "RL009",
                f"nesting deeper than {limits.max_depth} levels",
                span,
                "flatten the structure; the upstream compiler refuses it too",
            )
        tab = _indenting_tab(text, mark, message) if mark else None
        if tab is not None:
            return _error(
                doc,
                "RL001",
                f"tab character in the indentation at line {tab.line}, column {tab.column}",
                tab,
                TAB_FIX,
            )
        explained = explain(text, LINE_BREAKS.split(text), exc)
        if explained is not None:
            return _error(doc, "RL001", explained.message, explained.span, explained.hint)
        return _error(doc, "RL001", f"YAML syntax error: {message}", span)
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        return _error(doc, "RL001", f"YAML syntax error: {exc}", Span(1, 1))
    doc.data = data
    if positions:
        doc._spans = builder.spans
    else:
        doc._positions_limits = limits
    if builder.result is NO_VALUE:
        return _error(
            doc,
            "RL006",
            "the file is empty",
            Span(1, 1),
            "write the document's keys, or delete the file",
        )
    if not isinstance(data, dict):
        kind_name = "list" if isinstance(data, list) else "single value"
        _error(
            doc,
            "RL007",
            f"the top level is a {kind_name}, not a mapping",
            doc.span(()),
            "a recipe file is a mapping of keys such as meta, model and variants",
        )
        return doc
    doc.usable = True
    return doc


def read_within(path: Path, limit: int) -> tuple[bytes | None, int]:
    """The file's bytes (None when it is larger than ``limit``, which is not read) and its size."""
    try:
        with path.open("rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            return (stream.read() if size <= limit else None), size
    except OSError:
        # A file that cannot be opened is judged as if its size had been asked first.
        size = path.stat().st_size
        if size > limit:
            return None, size
        raise


def load_document(
    path: Path,
    rel: str | None = None,
    kind: str = "other",
    limits: LoadLimits = DEFAULT_LIMITS,
) -> Document:
    """Read and parse one file; size is checked before the file is read whole."""
    doc = Document(path=path, rel=rel if rel is not None else path.as_posix(), kind=kind, text="")
    try:
        raw, size = read_within(path, limits.max_file_bytes)
    except OSError as exc:
        return _error(doc, "RL011", f"cannot read the file: {exc.strerror or exc}", Span(1, 1))
    if raw is None:
        return _error(
            doc,
            "RL003",
            f"file is {size} bytes, more than the {limits.max_file_bytes}-byte limit",
            Span(1, 1),
            "split the file or raise the limit in the recipelint configuration",
        )
    text = decode_source(raw, doc)
    if text is None:
        return doc
    return parse_yaml(text, path=path, kind=kind, rel=doc.rel, limits=limits)
