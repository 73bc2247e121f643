"""Where each value of a YAML file is written: line starts, and the line and column where each line of a block or flow scalar begins."""

from __future__ import annotations

import bisect
import itertools
import re
from array import array
from collections.abc import Sequence
from typing import Any, overload

from recipelint.diagnostics import Span

LINE_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


LINE_BREAK = re.compile("[\r\n\x85\u2028\u2029]")


_UTF8_LINE_BREAKS = re.compile(b"\r\n|[\r\n]|\xc2\x85|\xe2\x80[\xa8\xa9]")


BLOCK_KEY_PREFIX = re.compile(r"(?: *- +)* *")


_BLOCK_HEADER = re.compile(r"^[|>](?:[-+]?([1-9])?|([1-9])[-+])(?:[ \t]|$)")


LineStart = tuple[int, int, int] | None  # (line, column, written length) where a value line begins


def field_width(text: str) -> int:
    """Bits one packed offset takes in a document of this text (offsets run to one past its
    end, where libyaml's end of stream may sit: see _Builder.offset)."""
    return (len(text) + 2).bit_length()


def yaml_text(text: str) -> str:
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
        breaks: re.Pattern[Any] = LINE_BREAKS
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
        return LINE_BREAKS.split(text)[: stop - first]

    def _line(self, index: int) -> str:
        last = index + 1 == len(self.starts)
        end = None if last else self.starts[index + 1]
        piece = self._source[self.starts[index] : end]
        line = piece if isinstance(piece, str) else piece.decode("utf-8")
        if last:
            return line
        return line[:-2] if line.endswith("\r\n") else line[:-1]


class SourceMap:
    """Positions of one document's text: packed entries and offsets -> 1-based line and column."""

    def __init__(self, source: str | bytes) -> None:
        self.lines = _Lines(source)
        text = source if isinstance(source, str) else source.decode("utf-8")
        self._width = field_width(text)
        self._mask = (1 << self._width) - 1
        indexed = yaml_text(text)
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


class Starts(list[LineStart]):
    """The start of every value line of one scalar; literal lines are copied verbatim."""

    literal: bool = False


def same_start(segment: str, wanted: str) -> bool:
    """A folded or flow line begins with the written text of its first source line."""
    text = segment.rstrip(" \t")
    return wanted.startswith(text) if text else not wanted


def block_scalar_starts(
    lines: Sequence[str], node: Span, header: str, parent: int
) -> Starts | None:
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
    starts = Starts()
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


def flow_scalar_starts(lines: Sequence[str], node: Span, header: str) -> Starts | None:
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

    starts = Starts([place(node.line, node.column + len(quote))])
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
