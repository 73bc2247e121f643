"""The primitives every fixer builds with: text edits, a document's node offsets, data helpers.

:mod:`recipelint.fix.fixers` (the fixer table and the fix loop) and the fixers kept in their own
modules (:mod:`recipelint.fix.typography_fix`) both import these; this module imports neither,
so the fixers and the table form no import circle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from recipelint.diagnostics import Span
from recipelint.fix.structural_fix import Allowed
from recipelint.read.load import Document, parse_yaml

Pointer = tuple[str | int, ...]
Transform = Callable[[Any], None]  # edits a deep copy of the document's data in place
_PLAIN_SAFE = re.compile(r"[A-Za-z0-9_$/-][A-Za-z0-9_.$/=+@-]*")
_BLOCK_ITEM_PREFIX = re.compile(r"[ \t]*-[ \t]+")
_LINE_REST = re.compile(r"[ \t]*(#[^\r\n]*)?(\r?\n|$)")


@dataclass(frozen=True, order=True)
class Edit:
    """Replace text[start:end] (character offsets) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Fix:
    code: str
    pointer: Pointer
    edits: tuple[Edit, ...]
    transform: Transform  # the intended change to the data
    anchor: int  # text offset that orders fixes (later ones are applied to the data first)


# ---------------------------------------------------------------- positions


class Source:
    """Offsets of a document's nodes, from the loader's 1-based, character-column spans."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.text = doc.text
        self._line_starts = [0] + [m.end() for m in re.finditer(r"\n", self.text)]

    def offset(self, line: int, column: int) -> int:
        return self._line_starts[line - 1] + column - 1

    def value_range(self, pointer: Pointer) -> tuple[int, int] | None:
        return self._range(pointer, self.doc.span(pointer))

    def _range(self, pointer: Pointer, span: Span) -> tuple[int, int] | None:
        if not self.doc.has_position(pointer) or span.end_line is None or span.end_column is None:
            return None  # absent: the span would be an ancestor's
        return self.offset(span.line, span.column), self.offset(span.end_line, span.end_column)

    def lines(self, pointer: Pointer, key: bool = False) -> range | None:
        """The 1-based lines the key (or value) at ``pointer`` is written on."""
        if not self.doc.has_position(pointer):
            return None
        span = self.doc.key_span(pointer) if key else self.doc.span(pointer)
        return range(span.line, (span.end_line or span.line) + 1)

    def insertion(self, pointer: Pointer) -> Allowed | None:
        """Where a key may be added to the mapping at ``pointer``: between its lines for a
        block mapping, its own lines for a flow mapping (written on them)."""
        found = self.value_range(pointer)
        lines = self.lines(pointer)
        if found is None or lines is None:
            return None
        if self.text.startswith("{", found[0]):
            return Allowed(lines=frozenset(lines))
        last = lines.stop - 1
        if not self.text[self.line_start(found[1]) : found[1]].strip():
            last -= 1  # a block mapping ends where the next key begins, on that key's line
        return Allowed(boundaries=frozenset(range(lines.start, last + 1)))

    def line_start(self, offset: int) -> int:
        return self.text.rfind("\n", 0, offset) + 1

    def line_end(self, offset: int) -> int | None:
        """Offset after the newline ending ``offset``'s line, if only spaces or a comment follow."""
        match = _LINE_REST.match(self.text, offset)
        return match.end() if match else None


def render_like(value: str, original: str) -> str:
    """``value`` as a YAML scalar in the quoting style of ``original`` (plain only when unambiguous)."""
    if original.startswith("'"):
        return "'" + value.replace("'", "''") + "'"
    if not original.startswith('"') and _plain_ok(value):
        return value
    return json.dumps(
        value, ensure_ascii=False
    )  # JSON strings are valid YAML double-quoted scalars


def _plain_ok(value: str) -> bool:
    if not _PLAIN_SAFE.fullmatch(value):
        return False
    probe = parse_yaml(f"k: {value}\n")
    return probe.usable and probe.data == {"k": value}


# ---------------------------------------------------------------- data helpers


def at(data: Any, pointer: Pointer) -> Any:
    for part in pointer:
        data = data[part]
    return data


def exists_at(data: Any, pointer: Pointer) -> bool:
    try:
        at(data, pointer)
    except (KeyError, IndexError, TypeError):
        return False
    return True


def rename_in_place(mapping: dict[str, Any], old: str, new: str) -> None:
    """Rename in place, keeping the key's position."""
    items = list(mapping.items())
    mapping.clear()
    mapping.update((new if key == old else key, value) for key, value in items)


def same_data(left: Any, right: Any) -> bool:
    """Equality that also compares types (Python says 1 == 1.0 == True)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same_data(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(
            same_data(a, b) for a, b in zip(left, right, strict=False)
        )
    if isinstance(left, float) and left != left:
        return bool(right != right)
    return bool(left == right)


# ---------------------------------------------------------------- sequences


def is_flow(source: Source, list_pointer: Pointer) -> bool | None:
    found = source.value_range(list_pointer)
    return None if found is None else source.text.startswith("[", found[0])


def remove_items(source: Source, list_pointer: Pointer, first: int, last: int) -> Edit | None:
    """Delete items first..last (inclusive) of a sequence: whole lines in block style,
    the items and one separating comma in flow style."""
    flow = is_flow(source, list_pointer)
    start_range = source.value_range((*list_pointer, first))
    end_range = source.value_range((*list_pointer, last))
    if flow is None or start_range is None or end_range is None:
        return None
    start, end = start_range[0], end_range[1]
    text = source.text
    if flow:
        after = re.compile(r"\s*,[ \t]*").match(text, end)
        if after:
            return Edit(start, after.end(), "")
        before = re.search(r",\s*$", text[:start])
        return Edit(before.start(), end, "") if before else None
    line_start = source.line_start(start)
    line_end = source.line_end(end)
    if not _BLOCK_ITEM_PREFIX.fullmatch(text, line_start, start) or line_end is None:
        return None  # an item sharing its line with other content: leave it to the author
    return Edit(line_start, line_end, "")


def replace_item_with_two(
    source: Source, list_pointer: Pointer, index: int, one: str, two: str
) -> Edit | None:
    flow = is_flow(source, list_pointer)
    found = source.value_range((*list_pointer, index))
    if flow is None or found is None:
        return None
    start, end = found
    original = source.text[start:end]
    first, second = render_like(one, original), render_like(two, original)
    if flow:
        return Edit(start, end, f"{first}, {second}")
    line_start = source.line_start(start)
    if not _BLOCK_ITEM_PREFIX.fullmatch(source.text, line_start, start):
        return None
    line_break = source.text.find("\n", end)
    newline = "\r\n" if line_break > 0 and source.text[line_break - 1] == "\r" else "\n"
    return Edit(start, end, f"{first}{newline}{source.text[line_start:start]}{second}")


def replace_scalar(source: Source, pointer: Pointer, value: str) -> Edit | None:
    found = source.value_range(pointer)
    if found is None:
        return None
    start, end = found
    original = source.text[start:end]
    if original.startswith(("|", ">", "&", "!", "*")):
        return None  # block scalars, anchors, tags, aliases: not a plain token to swap
    rendered = render_like(value, original) if original else json.dumps(value, ensure_ascii=False)
    if start == end and not source.text[:start].endswith((" ", "\t")):
        rendered = " " + rendered  # an empty value right after `key:`
    return Edit(start, end, rendered)
