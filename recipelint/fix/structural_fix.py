"""Structural fixes (rename or insert mapping keys) through ruamel.yaml's round trip.

ruamel keeps comments, key order, quoting and indentation, but dumping a whole document
still re-flows a few constructs nobody asked to change (nested sequences indented
unlike the rest of the file, trailing spaces, whitespace-only lines; docs/autofix.md has
the corpus figures). So the document is dumped with the indentation detected in the
document itself, compared line by line with the original, and only the differences
inside the lines the fix names are kept, as text replacements. Every other line stays
byte for byte; fix.py then re-reads the result and checks the data changed exactly as
intended, so a change ruamel could only make by touching other lines is refused.
"""

from __future__ import annotations

import copy
import difflib
import io
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import ScalarString
from ruamel.yaml.tokens import CommentToken

# Edits ruamel's round-trip data in place; False when the data is not of the expected shape.
Change = Callable[[CommentedMap], bool]
WIDTH = 1 << 20  # never fold a long line: folding would rewrite it
DEFAULT_MAPPING_STEP = 2
# Errors (and warnings, made errors) ruamel raises on input recipelint reads but ruamel does
# not (duplicate keys, reused anchors, exotic merges); such a document gets no structural fix.
_RUAMEL_ERRORS = (
    YAMLError,
    Warning,
    ValueError,
    TypeError,
    AttributeError,
    KeyError,
    IndexError,
    RecursionError,
)


@dataclass(frozen=True)
class Replacement:
    """Replace text[start:end] (character offsets into the original) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Allowed:
    """Where a structural fix may write: whole lines it may rewrite (1-based), and the
    line boundaries it may insert at (``b`` is the boundary after line ``b``)."""

    lines: frozenset[int] = frozenset()
    boundaries: frozenset[int] = frozenset()

    def covers(self, first: int, last: int) -> bool:
        """Lines first..last (1-based, inclusive) may all be rewritten."""
        return all(line in self.lines for line in range(first, last + 1))

    def admits_insert(self, boundary: int) -> bool:
        return boundary in self.boundaries or boundary in self.lines or boundary + 1 in self.lines


# ---------------------------------------------------------------- indentation


@dataclass(frozen=True)
class Indentation:
    """ruamel's three settings: a nested mapping's step, a block sequence's item column and
    dash column, both relative to the key that holds them."""

    mapping: int = DEFAULT_MAPPING_STEP
    sequence: int = DEFAULT_MAPPING_STEP
    offset: int = 0


def detect_indentation(data: Any) -> Indentation:
    """The indentation most block collections of the document use."""
    mappings: Counter[int] = Counter()
    sequences: Counter[tuple[int, int]] = Counter()
    for key_column, value in _block_children(data):
        first = next(iter(value.lc.data.values()))  # (line, column) of the first own key or item
        if isinstance(value, CommentedMap):
            mappings[first[1] - key_column] += 1
        else:
            sequences[(first[1] - key_column, value.lc.col - key_column)] += 1
    mapping = _most_common(mappings, DEFAULT_MAPPING_STEP)
    sequence, offset = _most_common(sequences, (mapping, 0))
    if mapping < 1 or offset < 0 or sequence < offset + 2:
        return Indentation(max(mapping, 1))  # not expressible in ruamel's settings
    return Indentation(mapping, sequence, offset)


def _most_common(counts: Counter[Any], default: Any) -> Any:
    # Ties go to the smaller step, so the result never depends on the order of the file.
    return min(counts, key=lambda step: (-counts[step], step)) if counts else default


def _block_children(node: Any) -> Iterator[tuple[int, Any]]:
    """(key column, value) for every block mapping or sequence written below its own key
    (merged keys have no position of their own and are skipped)."""
    if isinstance(node, CommentedMap):
        for key, (key_line, key_column, *_) in (node.lc.data or {}).items():
            value = node.get(key)
            if (
                isinstance(value, (CommentedMap, CommentedSeq))
                and value.lc.data
                and not value.fa.flow_style()
                and value.lc.line > key_line
            ):
                yield key_column, value
            yield from _block_children(value)
    elif isinstance(node, CommentedSeq):
        for value in node:
            yield from _block_children(value)


# ---------------------------------------------------------------- round trip


def _round_trip(text: str) -> tuple[YAML, CommentedMap] | None:
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = WIDTH
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a reused anchor and the like: not a file to rewrite
            data = yaml.load(text)
    except _RUAMEL_ERRORS:
        return None
    if not isinstance(data, CommentedMap):
        return None
    try:
        found = detect_indentation(data)
    except _RUAMEL_ERRORS:
        return None
    yaml.indent(mapping=found.mapping, sequence=found.sequence, offset=found.offset)
    return yaml, data


def _dump(yaml: YAML, data: CommentedMap) -> str | None:
    stream = io.StringIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            yaml.dump(data, stream)
    except _RUAMEL_ERRORS:
        return None
    return stream.getvalue()


def rewrite(text: str, change: Change, allowed: Allowed) -> list[Replacement] | None:
    """The replacements that make ``change`` to ``text`` within ``allowed``; None when ruamel
    cannot read the document or the change does not apply. Differences ruamel makes outside
    ``allowed`` are dropped, never written."""
    if "\r" in text.replace("\r\n", "\n"):
        return None  # a lone carriage return breaks lines for YAML but not for the line map
    normal = text.replace("\r\n", "\n")
    loaded = _round_trip(normal)
    if loaded is None:
        return None
    yaml, data = loaded
    try:
        applies = change(data)
    except _RUAMEL_ERRORS:
        return None
    dumped = _dump(yaml, data) if applies else None
    if dumped is None:
        return None
    newline = "\r\n" if "\r\n" in text else "\n"
    return list(_kept_hunks(text, normal, dumped, allowed, newline))


def _kept_hunks(
    text: str, normal: str, dumped: str, allowed: Allowed, newline: str
) -> Iterator[Replacement]:
    before = normal.splitlines(keepends=True)
    after = dumped.splitlines(keepends=True)
    starts = _line_offsets(text)
    for i1, i2, j1, j2 in _hunks(before, after):
        kept = allowed.admits_insert(i1) if i1 == i2 else allowed.covers(i1 + 1, i2)
        if not kept:
            continue
        new = "".join(after[j1:j2])
        if i2 == len(before) and not normal.endswith("\n"):
            new = new.removesuffix("\n")  # ruamel ends every document with a newline
        yield Replacement(starts[i1], starts[i2], new.replace("\n", newline))


def _hunks(before: list[str], after: list[str]) -> Iterator[tuple[int, int, int, int]]:
    """Differing line ranges; a block replaced by as many lines is split line by line, so a
    line ruamel re-flowed next to a renamed key does not take the key's line with it."""
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for step in range(i2 - i1):
                if before[i1 + step] != after[j1 + step]:
                    yield i1 + step, i1 + step + 1, j1 + step, j1 + step + 1
        else:
            yield i1, i2, j1, j2


def _line_offsets(text: str) -> list[int]:
    """Offset of each line's start, and the text's end as the start of a line after the last."""
    offsets = [0]
    position = text.find("\n")
    while position != -1:
        offsets.append(position + 1)
        position = text.find("\n", position + 1)
    if offsets[-1] != len(text):
        offsets.append(len(text))
    return offsets


# ---------------------------------------------------------------- changes to round-trip data


def same_style(new: str, old: Any) -> Any:
    """``new`` as a scalar of ``old``'s quoting style (ruamel keeps the style in the type)."""
    return type(old)(new) if isinstance(old, ScalarString) else new


def rename_key(mapping: CommentedMap, old: Any, new: str) -> bool:
    """Rename in place, keeping the key's position, quoting and comments."""
    if old not in mapping or new in mapping:
        return False
    keys = list(mapping)
    position = keys.index(old)
    old = keys[position]  # the key as written, with its quoting style
    value = mapping.pop(old)
    renamed = same_style(new, old)
    mapping.insert(position, renamed, value)
    comments = mapping.ca.items.pop(old, None)
    if comments is not None:
        mapping.ca.items[renamed] = comments
        _shift_end_of_line_comments(comments, len(str(renamed)) - len(str(old)))
    return True


def _shift_end_of_line_comments(comments: list[Any], shift: int) -> None:
    """Keep the gap between a renamed key and the comment after it on its line (ruamel
    places the comment at its original column, or one space after a longer key)."""
    for token in comments:
        if isinstance(token, CommentToken) and not token.value.startswith("\n"):
            token.column = max(token.column + shift, 0)


def append_key(mapping: CommentedMap, key: str, value: Any) -> bool:
    """Add ``key`` after the mapping's last entry, before the comment lines and blank lines
    that follow that entry (ruamel keeps them with the entry, so the new key would land
    after them, inside whatever they separate)."""
    if key in mapping or not mapping:
        return False
    before, before_key = _last_entry(mapping, next(reversed(mapping)))
    mapping.insert(len(mapping), key, value)
    comments = before.ca.items.get(before_key)
    token = comments[2] if comments and len(comments) > 2 else None
    if token is None:
        return True
    end_of_line, _, following = token.value.partition("\n")
    if not following:
        return True
    token.value = end_of_line + "\n"
    moved = copy.copy(token)
    moved.value = "\n" + following
    holder, holder_key = _last_entry(mapping, key)
    holder.ca.items[holder_key] = [None, None, moved, None]
    return True


def _last_entry(mapping: CommentedMap, key: Any) -> tuple[CommentedMap, Any]:
    """The innermost last entry written under ``key``: where comments after it belong."""
    value = mapping[key]
    while isinstance(value, CommentedMap) and value:
        mapping, key = value, next(reversed(value))
        value = mapping[key]
    return mapping, key
