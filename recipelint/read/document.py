"""A loaded YAML file: `Document`, its value, the position of every node and its load problems, and `value_at`."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yaml._yaml import CParser

from recipelint.diagnostics import UNKNOWN_SPAN, Diagnostic, Span
from recipelint.jsvalue import JsonValue
from recipelint.read.yaml_builder import (
    Builder,
    LoadLimits,
    Pointer,
)
from recipelint.read.yaml_positions import (
    BLOCK_KEY_PREFIX,
    LINE_BREAK,
    SourceMap,
    Starts,
    block_scalar_starts,
    field_width,
    flow_scalar_starts,
    same_start,
    yaml_text,
)


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
        data: JsonValue = None,
        usable: bool = False,
        problems: list[Diagnostic] | None = None,
        spans: dict[Pointer, int] | None = None,
    ) -> None:
        self.path = path
        self.rel = rel
        self.kind = kind
        self.text = text
        self.data: JsonValue = data
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
        width = field_width(text)
        mask = (1 << width) - 1
        indexed = yaml_text(text)
        start, end = (entry >> width) & mask, entry & mask
        written = indexed[start:end]
        if end > len(indexed) or LINE_BREAK.search(written):
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
        return column if BLOCK_KEY_PREFIX.fullmatch(before) else None

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
            builder = Builder(limits, self.text)
            builder.build(iter(CParser(self.text).get_event, None))
            self._spans = builder.spans
        return self._spans

    @functools.cached_property
    def _map(self) -> SourceMap:
        return SourceMap(self._source)

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
        if not (segment == wanted if starts.literal else same_start(segment, wanted)):
            return node  # the mapping does not account for the value: do not guess
        written = len(segment) if starts.literal else min(len(segment.rstrip(" \t")), len(wanted))
        if end is None or not 0 <= start <= end <= written:
            start, end = 0, written
        return Span(line, column + start, line, column + end)

    def _scalar_line_starts(self, pointer: Pointer, node: Span) -> Starts | None:
        # A guide's findings each ask for one of its lines: the guide is mapped once.
        memo: dict[Pointer, Starts | None] = self.__dict__.setdefault("_scalar_starts", {})
        if pointer not in memo:
            memo[pointer] = self._mapped_scalar_line_starts(pointer, node)
        return memo[pointer]

    def _mapped_scalar_line_starts(self, pointer: Pointer, node: Span) -> Starts | None:
        lines = self._map.lines
        if node.end_line is None or not 0 < node.line <= len(lines):
            return None
        header = lines[node.line - 1][node.column - 1 :]
        if header[:1] in ("|", ">"):
            return block_scalar_starts(lines, node, header, self._parent_indent(pointer, node))
        return flow_scalar_starts(lines, node, header)

    def _parent_indent(self, pointer: Pointer, node: Span) -> int:
        """The indentation an explicit indentation indicator counts from (the enclosing block's)."""
        entry = self._positions().get(pointer)
        key = None if entry is None else self._map.key_span(entry)
        if key is not None and key != node and key.line == node.line:
            return key.column - 1
        before = self._map.lines[node.line - 1][: node.column - 1].rstrip()
        return len(before) - 1 if before.endswith("-") else len(before) - len(before.lstrip())
