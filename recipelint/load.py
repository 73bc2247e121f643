"""YAML files -> documents with js-yaml 4 values and a source position for every node.

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

import bisect
import contextlib
import dataclasses
import functools
import itertools
import math
import os
import re
import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, overload

import yaml
from yaml._yaml import CParser

from recipelint.diagnostics import UNKNOWN_SPAN, Diagnostic, Related, Severity, Span
from recipelint.jsvalue import js_string, normalize_number
from recipelint.syntaxerrors import explain

Pointer = tuple[str | int, ...]

YAML_TAG = "tag:yaml.org,2002:"


@dataclass(frozen=True)
class LoadLimits:
    """Resource bounds for one file; every one of them yields a diagnostic when exceeded."""

    max_file_bytes: int = 1_048_576
    # js-yaml 4.3.2 refuses nesting beyond 100 levels, so a deeper recipe cannot compile upstream.
    max_depth: int = 100
    # Nodes after alias expansion: what a consumer walking the data would visit.
    max_nodes: int = 200_000


DEFAULT_LIMITS = LoadLimits()


def value_at(data: Any, pointer: Sequence[str | int], missing: Any = None) -> Any:
    """The value at ``pointer`` in parsed data, or ``missing`` where the path does not exist."""
    for part in pointer:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return missing
    return data


class Document:
    """One file of a tree: its text, js-yaml's value of it, its load problems, and where
    each node is written."""

    def __init__(
        self,
        path: Path,
        rel: str,
        kind: str,
        text: str,
        data: Any = None,
        usable: bool = False,
        problems: list[Diagnostic] | None = None,
        spans: dict[Pointer, int] | None = None,
    ) -> None:
        self.path = path
        self.rel = rel
        self.kind = kind
        self.text = text
        self.data = data
        self.usable = usable
        self.problems: list[Diagnostic] = [] if problems is None else problems
        # Where each node is written, by pointer: the character offsets of its key and of
        # its value packed into one int (see pack_entry). The whole tree stays loaded, and
        # an int per node costs a tenth of a pair of Span objects; positions are derived
        # when asked.
        self._spans: dict[Pointer, int] = {} if spans is None else spans
        # Set when the positions were not recorded while loading: they are read again from
        # the text, under these limits, the first time one is asked for.
        self._positions_limits: LoadLimits | None = None

    @property
    def text(self) -> str:
        source = self._source
        return source if isinstance(source, str) else source.decode("utf-8")

    @text.setter
    def text(self, text: str) -> None:
        # Python stores every character of a text in two or four bytes once one character
        # needs it (an em dash is enough); such a text is kept as UTF-8, about half that.
        # Lone surrogates do not encode: that text is kept as it is.
        self._source: str | bytes = text
        if not text.isascii():
            with contextlib.suppress(UnicodeEncodeError):
                self._source = text.encode("utf-8")
        self.__dict__.pop("_map", None)

    @property
    def stored_text(self) -> str | bytes:
        """The text as the document holds it: UTF-8 bytes unless it is ASCII (see ``text``)."""
        return self._source

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.path,
            self.rel,
            self.kind,
            self._source,
            self.data,
            self.usable,
            self.problems,
            self._positions(),
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Document)
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return (
            f"Document(path={self.path!r}, rel={self.rel!r}, kind={self.kind!r}, "
            f"text={self.text!r}, data={self.data!r}, usable={self.usable!r}, "
            f"problems={self.problems!r})"
        )

    def span(self, pointer: Sequence[str | int]) -> Span:
        """Where the value at ``pointer`` is written (its nearest written ancestor if absent)."""
        entry = self._nearest(tuple(pointer))
        return UNKNOWN_SPAN if entry is None else self._map.value_span(entry)

    def key_span(self, pointer: Sequence[str | int]) -> Span:
        """Where the mapping key naming ``pointer``'s last element is written."""
        entry = self._nearest(tuple(pointer))
        if entry is None:
            return UNKNOWN_SPAN
        return self._map.key_span(entry) or self._map.value_span(entry)

    def one_line_source(self, pointer: Sequence[str | int]) -> str:
        """The text the value at ``pointer`` (its nearest written ancestor if absent) is written
        as, when it is written on one line; "" otherwise. No line is counted to find it."""
        entry = self._nearest(tuple(pointer))
        if entry is None:
            return ""
        text = self.text
        width = _field_width(text)
        mask = (1 << width) - 1
        indexed = _yaml_text(text)
        start, end = (entry >> width) & mask, entry & mask
        written = indexed[start:end]
        if end > len(indexed) or _LINE_BREAK.search(written):
            return ""
        return written

    def has_position(self, pointer: Sequence[str | int]) -> bool:
        return tuple(pointer) in self._positions()

    def block_key_column(self, pointer: Sequence[str | int]) -> int | None:
        """The column of the key naming ``pointer`` when it begins its line in a block mapping
        (after indentation and ``- `` indicators); None for a flow, merged or absent key,
        whose column says nothing about indentation."""
        entry = self._positions().get(tuple(pointer))
        if entry is None:
            return None
        key = self._map.key_offset(entry)
        if key is None:
            return None  # a list item, or a merged key (which carries the merge value's place)
        line, column = self._map.position(key)
        before = self._map.lines[line - 1][: column - 1]
        return column if _BLOCK_KEY_PREFIX.fullmatch(before) else None

    def _nearest(self, pointer: Pointer) -> int | None:
        spans = self._positions()
        while True:
            entry = spans.get(pointer)
            if entry is not None or not pointer:
                return entry
            pointer = pointer[:-1]

    def _positions(self) -> dict[Pointer, int]:
        limits = self._positions_limits
        if limits is not None:
            self._positions_limits = None
            builder = _Builder(limits, self.text)
            builder.build(iter(CParser(self.text).get_event, None))
            self._spans = builder.spans
        return self._spans

    @functools.cached_property
    def _map(self) -> _SourceMap:
        return _SourceMap(self._source)

    def source_line(self, line: int) -> str:
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def scalar_line_span(
        self, pointer: Sequence[str | int], line_index: int, start: int = 0, end: int | None = None
    ) -> Span:
        """Where line ``line_index`` (0-based, lines split at "\\n") of the string at ``pointer`` is written.

        ``start``/``end`` are character offsets inside that value line; they narrow the span
        when that part of the line is written in one piece. Literal and folded block scalars
        (any chomping or indentation indicator) and plain or quoted scalars are mapped; every
        mapped line is checked against the parsed value, and whatever cannot be placed exactly
        (a double-quoted string with escapes, a line the value does not have) gets the node's span.
        """
        node = self.span(pointer)
        value = value_at(self.data, pointer)
        if not isinstance(value, str) or not self.has_position(pointer) or line_index < 0:
            return node
        expected = value.split("\n")
        starts = self._scalar_line_starts(tuple(pointer), node)
        if (
            starts is None
            or line_index >= min(len(starts), len(expected))
            or starts[line_index] is None
        ):
            return node
        line, column, written = starts[line_index]  # type: ignore[misc]
        segment = self._map.lines[line - 1][column - 1 : column - 1 + written]
        wanted = expected[line_index]
        if not (segment == wanted if starts.literal else _same_start(segment, wanted)):
            return node  # the mapping does not account for the value: do not guess
        written = len(segment) if starts.literal else min(len(segment.rstrip(" \t")), len(wanted))
        if end is None or not 0 <= start <= end <= written:
            start, end = 0, written
        return Span(line, column + start, line, column + end)

    def _scalar_line_starts(self, pointer: Pointer, node: Span) -> _Starts | None:
        # A guide's findings each ask for one of its lines: the guide is mapped once.
        memo: dict[Pointer, _Starts | None] = self.__dict__.setdefault("_scalar_starts", {})
        if pointer not in memo:
            memo[pointer] = self._mapped_scalar_line_starts(pointer, node)
        return memo[pointer]

    def _mapped_scalar_line_starts(self, pointer: Pointer, node: Span) -> _Starts | None:
        lines = self._map.lines
        if node.end_line is None or not 0 < node.line <= len(lines):
            return None
        header = lines[node.line - 1][node.column - 1 :]
        if header[:1] in ("|", ">"):
            return _block_scalar_starts(lines, node, header, self._parent_indent(pointer, node))
        return _flow_scalar_starts(lines, node, header)

    def _parent_indent(self, pointer: Pointer, node: Span) -> int:
        """The indentation an explicit indentation indicator counts from (the enclosing block's)."""
        entry = self._positions().get(pointer)
        key = None if entry is None else self._map.key_span(entry)
        if key is not None and key != node and key.line == node.line:
            return key.column - 1
        before = self._map.lines[node.line - 1][: node.column - 1].rstrip()
        return len(before) - 1 if before.endswith("-") else len(before) - len(before.lstrip())


_LINE_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_LINE_BREAK = re.compile("[\r\n\x85\u2028\u2029]")
_UTF8_LINE_BREAKS = re.compile(b"\r\n|[\r\n]|\xc2\x85|\xe2\x80[\xa8\xa9]")
_BLOCK_KEY_PREFIX = re.compile(r"(?: *- +)* *")
_BLOCK_HEADER = re.compile(r"^[|>](?:[-+]?([1-9])?|([1-9])[-+])(?:[ \t]|$)")
LineStart = tuple[int, int, int] | None  # (line, column, written length) where a value line begins


def _field_width(text: str) -> int:
    """Bits one packed offset takes in a document of this text (offsets run to one past its
    end, where libyaml's end of stream may sit: see _Builder.offset)."""
    return (len(text) + 2).bit_length()


def _yaml_text(text: str) -> str:
    """The text libyaml indexes: without a leading byte-order mark, which it neither counts
    nor indexes (its offsets, and the columns of the first line, start after it)."""
    return text[1:] if text.startswith("\ufeff") else text


def pack_entry(width: int, start: int, end: int, key: tuple[int, int] | None = None) -> int:
    """One node's key and value offsets as one int: key start + 1 (0: no key), key end,
    value start, value end, ``width`` bits each."""
    key_start, key_end = (key[0] + 1, key[1]) if key is not None else (0, 0)
    return (((key_start << width | key_end) << width | start) << width) | end


def _line_starts(text: str | bytes) -> array[int]:
    """Where each line begins: character offsets in a text, byte offsets in UTF-8."""
    starts = array("I" if len(text) < 2**32 - 2 else "q")
    if isinstance(text, str):
        others: tuple[Any, ...] = ("\r",) if text.isascii() else ("\r", "\x85", "\u2028", "\u2029")
        breaks: re.Pattern[Any] = _LINE_BREAKS
    else:
        others = (b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")
        breaks = _UTF8_LINE_BREAKS
    newline_only = not any(other in text for other in others)
    if newline_only:  # nearly every file: the running sum of the line lengths, all in C
        lengths = map(len, text.split("\n" if isinstance(text, str) else b"\n"))  # type: ignore[arg-type]
        starts.extend(itertools.accumulate(map((1).__add__, lengths), initial=0))
        starts.pop()  # the end of the last line
    else:
        starts.append(0)
        starts.extend(found.end() for found in breaks.finditer(text))
    return starts


class _Lines(Sequence[str]):
    """A text's lines at the breaks libyaml counts (CR LF once), cut out when asked."""

    def __init__(self, source: str | bytes) -> None:
        self._source = source
        self.starts = _line_starts(source)

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            numbers = range(*index.indices(len(self)))
            if numbers.step != 1 or not numbers:
                return [self._line(number) for number in numbers]
            return self._run(numbers.start, numbers.stop)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._line(index)

    def _run(self, first: int, stop: int) -> list[str]:
        """Lines ``first`` to ``stop`` (excluded), cut out of the text in one piece."""
        end = self.starts[stop] if stop < len(self.starts) else None
        piece = self._source[self.starts[first] : end]
        text = piece if isinstance(piece, str) else piece.decode("utf-8")
        return _LINE_BREAKS.split(text)[: stop - first]

    def _line(self, index: int) -> str:
        last = index + 1 == len(self.starts)
        end = None if last else self.starts[index + 1]
        piece = self._source[self.starts[index] : end]
        line = piece if isinstance(piece, str) else piece.decode("utf-8")
        if last:
            return line
        return line[:-2] if line.endswith("\r\n") else line[:-1]


class _SourceMap:
    """Positions of one document's text: packed entries and offsets -> 1-based line and column."""

    def __init__(self, source: str | bytes) -> None:
        self.lines = _Lines(source)
        text = source if isinstance(source, str) else source.decode("utf-8")
        self._width = _field_width(text)
        self._mask = (1 << self._width) - 1
        indexed = _yaml_text(text)
        same = indexed is source
        self._starts = self.lines.starts if same else _line_starts(indexed)
        self._end = len(indexed)

    def position(self, offset: int) -> tuple[int, int]:
        if offset > self._end:  # libyaml's end of stream after an unterminated last line
            return len(self._starts) + 1, 1
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def _span(self, start: int, end: int) -> Span:
        return Span(*self.position(start), *self.position(end))

    def value_span(self, entry: int) -> Span:
        return self._span((entry >> self._width) & self._mask, entry & self._mask)

    def key_span(self, entry: int) -> Span | None:
        key_start = entry >> 3 * self._width
        if not key_start:
            return None
        return self._span(key_start - 1, (entry >> 2 * self._width) & self._mask)

    def key_offset(self, entry: int) -> int | None:
        """Where an explicitly written key begins; None for a list item, the root or a merged key."""
        key_start = entry >> 3 * self._width
        value = entry & ((1 << 2 * self._width) - 1)
        if not key_start or (key_start - 1, (entry >> 2 * self._width) & self._mask) == (
            value >> self._width,
            value & self._mask,
        ):
            return None
        return key_start - 1


class _Starts(list[LineStart]):
    """The start of every value line of one scalar; literal lines are copied verbatim."""

    literal: bool = False


def _same_start(segment: str, wanted: str) -> bool:
    """A folded or flow line begins with the written text of its first source line."""
    text = segment.rstrip(" \t")
    return wanted.startswith(text) if text else not wanted


def _block_scalar_starts(
    lines: Sequence[str], node: Span, header: str, parent: int
) -> _Starts | None:
    """Value lines of a `|` or `>` scalar: its content lines follow the header at one indentation."""
    match = _BLOCK_HEADER.match(header)
    if not match or node.end_line is None:
        return None
    # libyaml ends a block scalar at column 1 of the line after it, or inside its last line at end of file.
    last = node.end_line - 1 if node.end_column == 1 else node.end_line
    content = lines[node.line : max(node.line, last)]
    digit = match.group(1) or match.group(2)
    indent = parent + int(digit) if digit else _auto_indent(content)
    if indent is None:
        return None
    starts = _Starts()
    starts.literal = header[0] == "|"
    previous: str | None = None  # the kind of the last non-empty line: "text" or "spaced"
    empties = 0
    for number, raw in enumerate(content, start=node.line + 1):
        if not raw.strip(" "):
            empties += 1
            if starts.literal or previous is None:
                starts.append((number, min(len(raw), indent) + 1, max(0, len(raw) - indent)))
            continue
        if len(raw) - len(raw.lstrip(" ")) < indent:
            break  # a less indented line is no longer the scalar's
        kind = "spaced" if raw[indent] in " \t" else "text"
        place = (number, indent + 1, len(raw) - indent)
        if not starts.literal and previous is not None:
            # Folding: the break between two text lines becomes a space; each empty line keeps one.
            breaks = empties if previous == kind == "text" else empties + 1
            starts.extend([None] * max(0, breaks - 1))
            if not breaks:
                previous, empties = kind, 0
                continue
        starts.append(place)
        previous, empties = kind, 0
    if not starts.literal:
        starts.extend([None] * empties)
    return starts


def _auto_indent(content: Sequence[str]) -> int | None:
    """The indentation of the first non-empty content line (YAML's auto-detection)."""
    for raw in content:
        if raw.strip(" "):
            return (len(raw) - len(raw.lstrip(" "))) or None
    return None


def _flow_scalar_starts(lines: Sequence[str], node: Span, header: str) -> _Starts | None:
    """Value lines of a plain or quoted scalar: breaks fold to spaces, each empty line keeps one."""
    quote = header[:1] if header[:1] in ("'", '"') else ""
    last = min(node.end_line or node.line, len(lines))
    if quote == '"' and "\\" in "\n".join(lines[node.line - 1 : last]):
        return None  # escapes can write line breaks of their own

    def place(number: int, column: int) -> LineStart:
        # On the scalar's last line, stop before its closing quote (and any comment after it).
        stop = (
            (node.end_column or 1) - len(quote)
            if number == node.end_line
            else len(lines[number - 1]) + 1
        )
        return number, column, max(0, stop - column)

    starts = _Starts([place(node.line, node.column + len(quote))])
    empties = 0
    for number in range(node.line + 1, last + 1):
        raw = lines[number - 1]
        if not raw.strip(" \t"):
            empties += 1
            continue
        if empties:
            starts.extend([None] * (empties - 1))
            starts.append(place(number, len(raw) - len(raw.lstrip(" \t")) + 1))
        empties = 0
    return starts


class LoadError(Exception):
    """Stops building a document; carries the diagnostic that explains why."""

    def __init__(
        self,
        code: str,
        message: str,
        span: Span,
        hint: str | None = None,
        other: tuple[Span, str] | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.span = span
        self.hint = hint
        # Another place the problem is written (the first occurrence of a duplicate key).
        self.other = other


# --------------------------------------------------------------------------- scalars

_FLOAT_PATTERN = re.compile(
    r"^(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN))$"
)
_DATE_PATTERN = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
_TIMESTAMP_PATTERN = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]*))?"
    r"(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?$"
)
_NULLS = frozenset({"~", "null", "Null", "NULL", ""})
_TRUES = frozenset({"true", "True", "TRUE"})
_FALSES = frozenset({"false", "False", "FALSE"})
_DIGITS = {"b": "01", "o": "01234567", "x": "0123456789abcdefABCDEF"}
_BASES = {"b": 2, "o": 8, "x": 16}
_NO_VALUE = object()
_NUMBER_STARTS = frozenset(".0123456789")
# The first characters of every plain scalar that resolves to something other than itself
# (null, booleans, numbers, dates; "" is the empty scalar): any other is a string as written.
_MAY_RESOLVE = frozenset(["", "~", "n", "N", "t", "T", "f", "F", "+", "-", *_NUMBER_STARTS])
_intern = sys.intern


def _resolve_int(text: str) -> int | float | object:
    body = text[1:] if text[:1] in "+-" else text
    negative = text[:1] == "-"
    if not body:
        return _NO_VALUE
    if body == "0":
        return 0
    if body[0] == "0" and len(body) > 2 and body[1] in _BASES:
        digits = body[2:]
        if not all(ch in _DIGITS[body[1]] for ch in digits):
            return _NO_VALUE
        number = float(int(digits, _BASES[body[1]]))
    elif body.isascii() and body.isdigit():
        number = float(int(body, 10)) if len(body) < 400 else math.inf
    else:
        return _NO_VALUE
    if not math.isfinite(number):
        return _NO_VALUE
    return normalize_number(-number if negative else number)


def _resolve_float(text: str) -> int | float | object:
    if not _FLOAT_PATTERN.match(text):
        return _NO_VALUE
    lowered = text.lower().lstrip("+")
    if lowered in (".inf", "-.inf"):
        return -math.inf if lowered.startswith("-") else math.inf
    if lowered == ".nan":
        return math.nan
    value = float(text)
    return normalize_number(value) if math.isfinite(value) else _NO_VALUE


def _js_utc_date(year: int, month0: int, day: int, millis_offset: float = 0.0) -> str | None:
    """Date.UTC semantics: months and days roll over, years 0-99 mean 1900-1999."""
    if 0 <= year <= 99:
        year += 1900
    year += month0 // 12
    month0 %= 12
    try:
        start = datetime(year, month0 + 1, 1, tzinfo=UTC)
        moment = start + timedelta(days=day - 1, milliseconds=millis_offset)
    except (OverflowError, ValueError):
        return None
    return moment.date().isoformat()


def _resolve_timestamp(text: str) -> str | object:
    match = _DATE_PATTERN.match(text)
    if match:
        year, month, day = (int(g) for g in match.groups())
        return _js_utc_date(year, month - 1, day) or _NO_VALUE
    match = _TIMESTAMP_PATTERN.match(text)
    if not match:
        return _NO_VALUE
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = int((match.group(7) or "")[:3].ljust(3, "0") or 0)
    millis = ((hour * 60 + minute) * 60 + second) * 1000 + fraction
    if match.group(9):
        delta = (int(match.group(10)) * 60 + int(match.group(11) or 0)) * 60000
        millis -= delta if match.group(9) == "+" else -delta
    return _js_utc_date(year, month - 1, day, millis) or _NO_VALUE


def resolve_plain_scalar(text: str) -> Any:
    """The value js-yaml's default schema gives an untagged plain scalar (docs/upstream-behaviour.md#js-yaml)."""
    if text in _NULLS:
        return None
    if text in _TRUES:
        return True
    if text in _FALSES:
        return False
    first = text[0]
    # A number or a date starts with a digit or a dot, after at most one sign: this turns
    # away command-line flags ("--tensor-parallel-size") without trying every resolver.
    if first in "+-.0123456789" and (first not in "+-" or text[1:2] in _NUMBER_STARTS):
        for resolver in (_resolve_int, _resolve_float, _resolve_timestamp):
            value = resolver(text)
            if value is not _NO_VALUE:
                return value
    return text


_EXPLICIT_SCALAR_TAGS = {
    "null": lambda t: None if t in _NULLS else _NO_VALUE,
    "bool": lambda t: True if t in _TRUES else (False if t in _FALSES else _NO_VALUE),
    "int": _resolve_int,
    "float": lambda t: _resolve_float(t) if _FLOAT_PATTERN.match(t) else _resolve_int(t),
    "timestamp": _resolve_timestamp,
}


# --------------------------------------------------------------------------- building


def _mapping_key(value: Any, marks: Marks) -> str:
    """The key js-yaml stores for a mapping entry: ``String(key)``, but never of nested arrays.

    js-yaml refuses them because stringifying aliased nested arrays can take exponential time.
    """
    if type(value) is str:  # nearly every key
        return value
    if type(value) is list and any(type(item) is list for item in value):
        raise LoadError(
            "RL001",
            "nested arrays are not supported inside keys",
            _span(*marks),
            "use a plain scalar as the key; the upstream compiler refuses this one",
        )
    return sys.intern(js_string(value))


def _span(start: Any, end: Any) -> Span:
    return Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)


Marks = tuple[Any, Any]  # libyaml's start and end marks of one node


class _Frame:
    """One open mapping or sequence."""

    __slots__ = (
        "container",
        "is_map",
        "pointer",
        "start",
        "anchor",
        "first_node",
        "key_frame_parent",
        "key",
        "key_marks",
        "key_is_merge",
        "explicit_keys",
    )

    def __init__(
        self, is_map: bool, pointer: Pointer, start: Any, anchor: str | None, first_node: int
    ) -> None:
        self.container: dict[str, Any] | list[Any] = {} if is_map else []
        self.is_map = is_map
        self.pointer = pointer
        self.start = start
        self.anchor = anchor
        # Nodes counted before this one: its weight (itself and everything inside, aliases
        # expanded) is the count when it closes minus this.
        self.first_node = first_node
        self.key_frame_parent = False
        # mapping state
        self.key: Any = _NO_VALUE
        self.key_marks: Marks = _NO_MARKS
        self.key_is_merge = False
        self.explicit_keys: dict[str, Marks] = {}  # key -> the marks of its explicit entry


_NO_MARKS: Marks = (None, None)


class _Builder:
    """Turns libyaml events into js-yaml values, recording where every node is written.

    Every event passes through here (hundreds of thousands for a large tree), so each
    kind of event is handled by one method that reads the builder's state directly.
    """

    def __init__(self, limits: LoadLimits, text: str = "", positions: bool = True):
        self.limits = limits
        # Without positions no node's pointer or place is recorded: most of a compile's
        # recipes report nothing, and the one that does reads its text again (Document._positions).
        self.positions = positions
        self.max_nodes = limits.max_nodes
        self.width = _field_width(text)  # bits per offset in a packed entry (see pack_entry)
        indexed = _yaml_text(text)
        self.end = len(indexed)
        # At the end of the stream libyaml moves its marks to the start of a new line when
        # the last line is not terminated; such a mark is kept as one past the end.
        self.unterminated = indexed[-1:] not in ("", "\r", "\n", "\x85", "\u2028", "\u2029")
        self.spans: dict[Pointer, int] = {}
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.stack: list[_Frame] = []
        self.top: _Frame | None = None  # the innermost open container
        self.nodes = 0
        self.result: Any = _NO_VALUE
        self.documents = 0

    def build(self, events: Iterable[Any]) -> Any:
        scalar, scalar_event = self._scalar, yaml.ScalarEvent
        handlers: dict[type, Callable[[Any], None]] = {
            yaml.MappingStartEvent: self._open,
            yaml.SequenceStartEvent: self._open,
            yaml.MappingEndEvent: self._close,
            yaml.SequenceEndEvent: self._close,
            yaml.AliasEvent: self._alias,
            yaml.DocumentStartEvent: self._document,
        }
        for event in events:
            if type(event) is scalar_event:  # two events in three
                scalar(event)
                continue
            handler = handlers.get(type(event))
            if handler is not None:
                handler(event)
        return None if self.result is _NO_VALUE else self.result

    def _document(self, event: yaml.DocumentStartEvent) -> None:
        self.documents += 1
        if self.documents > 1:
            raise LoadError(
                "RL005",
                "more than one YAML document in this file",
                _span(event.start_mark, event.end_mark),
                "a recipe file holds exactly one document: remove the extra '---'",
            )

    # -- nodes

    def _scalar(self, event: yaml.ScalarEvent) -> None:
        tag, value = event.tag, event.value
        plain = tag is None and not event.style  # libyaml's style of a plain scalar is ""
        if plain:
            if value[:1] in _MAY_RESOLVE:
                value = resolve_plain_scalar(value)
        elif tag is not None:
            value = self._tagged_value(event, tag)
        if type(value) is str:
            # Recipes repeat keys and values across the tree; one copy of each is kept.
            value = _intern(value)
        frame = self.top
        if frame is not None and frame.is_map and frame.key is _NO_VALUE:
            frame.key_is_merge = plain and value == "<<"
            marks = (event.start_mark, event.end_mark)
            frame.key = value if type(value) is str else _mapping_key(value, marks)
            frame.key_marks = marks
        else:
            self._place(value, event.start_mark, event.end_mark, 1)
        if event.anchor:
            self.anchors[event.anchor] = (value, 1)

    def _tagged_value(self, event: yaml.ScalarEvent, tag: str) -> Any:
        if tag == "!" or tag == YAML_TAG + "str":
            return event.value
        short = tag[len(YAML_TAG) :] if tag.startswith(YAML_TAG) else None
        resolver = _EXPLICIT_SCALAR_TAGS.get(short or "")
        span = _span(event.start_mark, event.end_mark)
        if resolver is None:
            raise self._unsupported_tag(tag, span)
        value = resolver(event.value)
        if value is _NO_VALUE:
            raise LoadError("RL001", f"cannot read {event.value!r} as !!{short}", span)
        return value

    def _unsupported_tag(self, tag: str, span: Span) -> LoadError:
        return LoadError(
            "RL008",
            f"unsupported YAML tag {tag!r}",
            span,
            "recipes use plain YAML values only: remove the tag",
        )

    def _open(self, event: Any) -> None:
        is_map = type(event) is yaml.MappingStartEvent
        tag = event.tag
        if tag is not None and tag != "!" and tag != YAML_TAG + ("map" if is_map else "seq"):
            raise self._unsupported_tag(event.tag, _span(event.start_mark, event.end_mark))
        if len(self.stack) >= self.limits.max_depth:
            raise LoadError(
                "RL009",
                f"nesting deeper than {self.limits.max_depth} levels",
                _span(event.start_mark, event.end_mark),
                "flatten the structure; the upstream compiler refuses it too",
            )
        parent = self.top
        in_key = parent is not None and parent.is_map and parent.key is _NO_VALUE
        if parent is None or in_key or not self.positions:
            pointer: Pointer = ()
        elif parent.is_map:
            pointer = parent.pointer + (parent.key,)
        else:
            pointer = parent.pointer + (len(parent.container),)
        first_node = self.nodes
        self._count(1, (event.start_mark, event.end_mark))
        frame = _Frame(is_map, pointer, event.start_mark, event.anchor, first_node)
        frame.key_frame_parent = in_key
        self.stack.append(frame)
        self.top = frame

    def _close(self, event: Any) -> None:
        stack = self.stack
        frame = stack.pop()
        self.top = stack[-1] if stack else None
        weight = self.nodes - frame.first_node
        if frame.anchor:
            self.anchors[frame.anchor] = (frame.container, weight)
        if frame.key_frame_parent:
            self._set_key(frame.container, (frame.start, event.end_mark))
            return
        self._place(frame.container, frame.start, event.end_mark, weight, counted=True)

    def _alias(self, event: yaml.AliasEvent) -> None:
        marks = (event.start_mark, event.end_mark)
        if event.anchor not in self.anchors:
            raise LoadError("RL001", f"unknown alias *{event.anchor}", _span(*marks))
        value, weight = self.anchors[event.anchor]
        self._count(weight, marks)
        frame = self.top
        if frame is not None and frame.is_map and frame.key is _NO_VALUE:
            frame.key_is_merge = False
            self._set_key(value, marks)
        else:
            self._place(value, event.start_mark, event.end_mark, weight, counted=True)

    # -- bookkeeping

    def _count(self, weight: int, marks: Marks) -> None:
        self.nodes += weight
        if self.nodes > self.max_nodes:
            raise self._too_many_nodes(marks)

    def _too_many_nodes(self, marks: Marks) -> LoadError:
        return LoadError(
            "RL010",
            f"more than {self.max_nodes} nodes once aliases are expanded",
            _span(*marks),
            "remove the alias chain; recipes do not need anchors",
        )

    def _set_key(self, value: Any, marks: Marks) -> None:
        frame = self.top
        assert frame is not None
        frame.key = _mapping_key(value, marks)
        frame.key_marks = marks

    def offset(self, mark: Any) -> int:
        index: int = mark.index
        if index == self.end and self.unterminated and mark.column == 0:
            return index + 1
        return index

    def _place(
        self, value: Any, start_mark: Any, end_mark: Any, weight: int, counted: bool = False
    ) -> None:
        """Puts a finished node into the open container (or makes it the result) and records
        where it is written, as one packed entry (see pack_entry)."""
        if not counted:
            self.nodes += weight
            if self.nodes > self.max_nodes:
                raise self._too_many_nodes((start_mark, end_mark))
        frame = self.top
        if frame is None:
            self.result = value
            if self.positions:
                self.spans[()] = self._entry((start_mark, end_mark))
            return
        container = frame.container
        if not frame.is_map:
            if self.positions:
                start, end = start_mark.index, end_mark.index
                if end == self.end:  # only a node at the end of the stream needs offset()'s care
                    start, end = self.offset(start_mark), self.offset(end_mark)
                self.spans[frame.pointer + (len(container),)] = start << self.width | end
            container.append(value)  # type: ignore[union-attr]
            return
        key, key_marks = frame.key, frame.key_marks
        frame.key, frame.key_marks = _NO_VALUE, _NO_MARKS
        if frame.key_is_merge:
            frame.key_is_merge = False
            self._merge(frame, value, (start_mark, end_mark))
            return
        if key_marks is _NO_MARKS:
            key_marks = (start_mark, end_mark)
        first = frame.explicit_keys.get(key)
        if first is not None:
            raise self._duplicate(key, first, key_marks)
        frame.explicit_keys[key] = key_marks
        container[key] = value
        if not self.positions:
            return
        width = self.width
        start, end = start_mark.index, end_mark.index
        if end == self.end:
            start, end = self.offset(start_mark), self.offset(end_mark)
        key_start, key_end = key_marks[0].index, key_marks[1].index
        if key_end == self.end:
            key_start, key_end = self.offset(key_marks[0]), self.offset(key_marks[1])
        self.spans[frame.pointer + (key,)] = (
            ((key_start + 1) << width | key_end) << width | start
        ) << width | end

    def _duplicate(self, key: str, first: Marks, key_marks: Marks) -> LoadError:
        # Both places are given: a change that adds the first occurrence above an untouched
        # one is annotated at the line it added (baseline.anchored_at_change).
        start = first[0]
        return LoadError(
            "RL002",
            f"duplicate key {key!r} (first defined at line {start.line + 1}, "
            f"column {start.column + 1})",
            _span(*key_marks),
            "keep one of the two entries; the upstream compiler refuses duplicate keys",
            (_span(*first), f"{key!r} first defined here"),
        )

    def _entry(self, marks: Marks, key: Marks | None = None) -> int:
        start, end = marks
        key_offsets = (self.offset(key[0]), self.offset(key[1])) if key is not None else None
        return pack_entry(self.width, self.offset(start), self.offset(end), key_offsets)

    def _merge(self, frame: _Frame, value: Any, marks: Marks) -> None:
        sources = value if isinstance(value, list) else [value]
        mapping = frame.container
        assert isinstance(mapping, dict)
        for source in sources:
            if not isinstance(source, dict):
                raise LoadError(
                    "RL001", "a merge key '<<' needs a mapping or a list of mappings", _span(*marks)
                )
            for key, item in source.items():
                if key not in mapping:
                    mapping[key] = item
                    if self.positions:
                        self.spans[frame.pointer + (key,)] = self._entry(marks, marks)


# --------------------------------------------------------------------------- entry points


def _error(doc: Document, code: str, message: str, span: Span, hint: str | None = None) -> Document:
    doc.problems.append(Diagnostic(doc.path, span, code, Severity.ERROR, message, hint))
    doc.usable = False
    doc.data = None
    return doc


def _position_of_offset(text: str, offset: int) -> Span:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Span(line, column)


def _decode(raw: bytes, doc: Document) -> str | None:
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
    lines = _LINE_BREAKS.split(text)
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
    builder = _Builder(limits, text, positions)
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
        explained = explain(text, _LINE_BREAKS.split(text), exc)
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
    if builder.result is _NO_VALUE:
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
    text = _decode(raw, doc)
    if text is None:
        return doc
    return parse_yaml(text, path=path, kind=kind, rel=doc.rel, limits=limits)
