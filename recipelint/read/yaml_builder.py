"""Values built from libyaml's event stream: JavaScript key stringification, duplicate and merge keys, nesting and aliases bounded by `LoadLimits` (else `LoadError`), and a position for every node.

Upstream: docs/upstream-behaviour.md#js-yaml.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import yaml

from recipelint.diagnostics import Span
from recipelint.jsvalue import js_string
from recipelint.read.yaml_positions import (
    field_width,
    pack_entry,
    yaml_text,
)
from recipelint.read.yaml_scalars import (
    EXPLICIT_SCALAR_TAGS,
    MAY_RESOLVE,
    NO_VALUE,
    intern_string,
    resolve_plain_scalar,
)

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
        self.key: Any = NO_VALUE
        self.key_marks: Marks = _NO_MARKS
        self.key_is_merge = False
        self.explicit_keys: dict[str, Marks] = {}  # key -> the marks of its explicit entry


_NO_MARKS: Marks = (None, None)


class Builder:
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
        self.width = field_width(text)  # bits per offset in a packed entry (see pack_entry)
        indexed = yaml_text(text)
        self.end = len(indexed)
        # At the end of the stream libyaml moves its marks to the start of a new line when
        # the last line is not terminated; such a mark is kept as one past the end.
        self.unterminated = indexed[-1:] not in ("", "\r", "\n", "\x85", "\u2028", "\u2029")
        self.spans: dict[Pointer, int] = {}
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.stack: list[_Frame] = []
        self.top: _Frame | None = None  # the innermost open container
        self.nodes = 0
        self.result: Any = NO_VALUE
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
        return None if self.result is NO_VALUE else self.result

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
            if value[:1] in MAY_RESOLVE:
                value = resolve_plain_scalar(value)
        elif tag is not None:
            value = self._tagged_value(event, tag)
        if type(value) is str:
            # Recipes repeat keys and values across the tree; one copy of each is kept.
            value = intern_string(value)
        frame = self.top
        if frame is not None and frame.is_map and frame.key is NO_VALUE:
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
        resolver = EXPLICIT_SCALAR_TAGS.get(short or "")
        span = _span(event.start_mark, event.end_mark)
        if resolver is None:
            raise self._unsupported_tag(tag, span)
        value = resolver(event.value)
        if value is NO_VALUE:
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
        in_key = parent is not None and parent.is_map and parent.key is NO_VALUE
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
        if frame is not None and frame.is_map and frame.key is NO_VALUE:
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
        frame.key, frame.key_marks = NO_VALUE, _NO_MARKS
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
