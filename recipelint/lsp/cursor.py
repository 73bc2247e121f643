"""What the cursor is on, read from the buffer's text alone.

Hover and completion must work while the buffer does not parse (the author is in
the middle of typing a key), so the place is read from indentation: the keys that
enclose the cursor's line, the key written on it, and the word under the cursor.
Recipe files are block YAML; a flow list (`[a, b]`) is read as values of its key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from recipelint.lsp import library

LINE_BREAK = re.compile(r"\r\n|\r|\n")
# `key:` at the start of a line, after indentation and any `- ` item indicators.
KEY_LINE = re.compile(
    r"(?P<indent>[ ]*)(?P<items>(?:-[ ]+)*)"
    r"(?P<key>\"[^\"\n]*\"|'[^'\n]*'|[^\s#'\"\-\[\]{},][^#\n]*?|-[^\s#\n][^#\n]*?)[ \t]*:(?:[ \t]|$)"
)
ITEM_LINE = re.compile(r"(?P<indent>[ ]*)-(?:[ \t]|$)")
WORD_CHARS = re.compile(r"[A-Za-z0-9_.\-=+/@]+")
RULE_CODE = re.compile(r"RL\d{3}", re.IGNORECASE)
# Scanning up for enclosing keys stops after this many lines: a hostile buffer of a
# million lines costs a bounded walk per request.
MAX_SCAN_LINES = 20_000
HARDWARE_PARENTS = frozenset(
    {"hardware", "hardware_overrides", "hardware_notes", "hardware_opt_in_features"}
)


Pointer = tuple[str | int, ...]


class Role(Enum):
    HARDWARE = "hardware"
    STRATEGY = "strategy"
    KV_STORE = "kv_store"
    VARIANT = "variant"
    FEATURE = "feature"
    MODE = "mode"
    RELATED = "related recipe"
    FLAG = "flag"
    FLAG_VALUE = "flag value"
    TASK = "task"
    PLATFORM = "platform"
    KV_OFFLOAD = "kv offload option"


@dataclass(frozen=True)
class Cursor:
    """The place of a position in a YAML buffer (0-based line, character offset in the line)."""

    line: int
    path: tuple[str, ...]  # keys enclosing the line, outermost first
    pointer: Pointer  # the same keys with the index of each list item between them
    key: str | None  # the key written on the line
    own_item: int | None  # the index of the list item the line opens, when its key is in it
    on_key: bool  # the cursor is on that key
    item: bool  # the line is a list item
    word: str  # the word under (or just before) the cursor; "" when none
    word_start: int
    word_end: int
    in_comment: bool
    previous_item: str | None  # the list item on the line above, in the same list

    @property
    def variant(self) -> str | None:
        """The variant whose block holds the cursor (its own min_vllm_version judges flags)."""
        return self.path[1] if len(self.path) >= 2 and self.path[0] == "variants" else None

    @property
    def keys(self) -> tuple[str, ...]:
        """Enclosing keys and the line's own key, when the cursor is past it (on its value)."""
        return self.path + ((self.key,) if self.key is not None and not self.on_key else ())

    @property
    def holder(self) -> Pointer:
        """Where the value under the cursor is held, as a pointer into the document: the
        enclosing collections, then the line's own key when the cursor is past it."""
        if self.key is None or self.on_key:
            return self.pointer
        own = (self.own_item,) if self.own_item is not None else ()
        return (*self.pointer, *own, self.key)


def split_lines(text: str) -> list[str]:
    return LINE_BREAK.split(text)


def cursor_at(lines: list[str], line: int, character: int) -> Cursor:
    text = lines[line] if 0 <= line < len(lines) else ""
    character = max(0, min(character, len(text)))
    comment = _comment_start(text)
    in_comment = comment is not None and character > comment
    code = text if comment is None else text[:comment]
    match = KEY_LINE.match(code)
    key = _unquote(match.group("key")) if match else None
    key_end = match.end("key") if match else -1
    start, end = _word_span(text, character)
    on_key = match is not None and match.start("key") <= character <= key_end
    item = ITEM_LINE.match(code) is not None
    path, pointer = _enclosing(lines, line)
    own_item = None
    if match is not None and match.group("items"):
        own_item = _item_index(lines, line, len(match.group("indent")))
    return Cursor(
        line=line,
        path=path,
        pointer=pointer,
        key=key,
        own_item=own_item,
        on_key=on_key and not in_comment,
        item=item,
        word=_unquote(text[start:end]) if not on_key else (key or ""),
        word_start=start,
        word_end=end,
        in_comment=in_comment,
        previous_item=_previous_item(lines, line) if item else None,
    )


def _enclosing(lines: list[str], line: int) -> tuple[tuple[str, ...], Pointer]:
    """The keys of the block mappings that hold ``line``, read from indentation; and the
    same keys with the index of each list item that holds it between them."""
    column = _content_column(lines[line]) if 0 <= line < len(lines) else 0
    if column is None:
        column = len(lines[line]) if 0 <= line < len(lines) else 0
    keys: list[str] = []
    parts: list[str | int] = []
    for number in range(line - 1, max(-1, line - 1 - MAX_SCAN_LINES), -1):
        if column == 0:
            break
        text = lines[number]
        start = _content_column(text)
        if start is None or start >= column:
            continue
        match = KEY_LINE.match(text)
        if match is not None and match.start("key") < column:
            key = _unquote(match.group("key"))
            keys.append(key)
            parts.append(key)
        if text[start] == "-" and ITEM_LINE.match(text) is not None:
            parts.append(_item_index(lines, number, start))
        column = start
    keys.reverse()
    parts.reverse()
    return tuple(keys), tuple(parts)


def _item_index(lines: list[str], line: int, indent: int) -> int:
    """How many items of the same list come before the item that ``line`` opens."""
    index = 0
    for number in range(line - 1, max(-1, line - 1 - MAX_SCAN_LINES), -1):
        start = _content_column(lines[number])
        if start is None or start > indent:
            continue
        if start < indent or ITEM_LINE.match(lines[number]) is None:
            break
        index += 1
    return index


def _content_column(text: str) -> int | None:
    """Where the line's content starts; None for a blank or comment-only line."""
    stripped = text.lstrip(" ")
    if not stripped.strip() or stripped.startswith("#"):
        return None
    return len(text) - len(stripped)


def _previous_item(lines: list[str], line: int) -> str | None:
    """The value of the nearest list item above ``line`` at the same indentation."""
    here = ITEM_LINE.match(lines[line])
    if here is None:
        return None
    indent = len(here.group("indent"))
    for number in range(line - 1, max(-1, line - 1 - MAX_SCAN_LINES), -1):
        text = lines[number]
        start = _content_column(text)
        if start is None or start > indent:
            continue
        item = ITEM_LINE.match(text)
        if start < indent or item is None:
            return None
        value = text[item.end() :]
        comment = _comment_start(value)
        return _unquote((value if comment is None else value[:comment]).strip())
    return None


def _word_span(text: str, character: int) -> tuple[int, int]:
    for match in WORD_CHARS.finditer(text):
        if match.start() <= character <= match.end():
            return match.start(), match.end()
        if match.start() > character:
            break
    return character, character


def _comment_start(text: str) -> int | None:
    """The offset of the `#` that starts a comment, outside quotes."""
    quote: str | None = None
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"" and (index == 0 or text[index - 1] in " \t-[{,:"):
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t"):
            return index
    return None


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text.strip("'\"")


def scalar_in_text(lines: list[str], keys: tuple[str, ...]) -> str | None:
    """The scalar written at ``keys`` (a block mapping path), read from indentation alone:
    what a buffer that does not parse still says of, say, its `model.min_vllm_version`."""
    for number, text in enumerate(lines):
        match = KEY_LINE.match(text)
        if match is None or match.group("items") or _unquote(match.group("key")) != keys[-1]:
            continue
        if _enclosing(lines, number)[0] != keys[:-1]:
            continue
        value = text[match.end() :]
        comment = _comment_start(value)
        value = _unquote(value if comment is None else value[:comment])
        return value or None
    return None


def rule_code_at(lines: list[str], line: int, character: int) -> str | None:
    """The rule code under the cursor in a `# recipelint: disable=…` comment."""
    text = lines[line] if 0 <= line < len(lines) else ""
    comment = _comment_start(text)
    if comment is None or "recipelint:" not in text[comment:]:
        return None
    for match in RULE_CODE.finditer(text, comment):
        if match.start() <= character <= match.end():
            return match.group(0).upper()
    return None


def role_of(cursor: Cursor, kind: str) -> Role | None:
    """What the word under the cursor names in a document of ``kind``, judged by where it is written."""
    if cursor.in_comment:
        return None
    if cursor.on_key:
        return key_role(cursor.path)
    return value_role(cursor, kind)


def key_role(path: tuple[str, ...]) -> Role | None:
    """What a key written inside ``path`` names."""
    parent = path[-1] if path else None
    if parent in HARDWARE_PARENTS:
        return Role.HARDWARE
    if len(path) >= 2 and path[-2] in ("strategy_hardware", "kv_cache_strategy_hardware"):
        return Role.HARDWARE
    if path in (("strategy_overrides",), ("strategy_hardware",)):
        return Role.STRATEGY
    if path == ("kv_cache_strategy_hardware",):
        return Role.KV_STORE
    if path == ("kv_offload_support",):
        return Role.KV_OFFLOAD
    if path == ("variants",):
        return Role.VARIANT
    if path == ("features",) or parent == "default_modes":
        return Role.FEATURE
    if len(path) == 3 and path[0] == "features" and path[2] == "modes":
        return Role.MODE
    return None


def value_role(cursor: Cursor, kind: str, typing: bool = False) -> Role | None:
    """What the value (or list item) under the cursor names; ``typing``: the word may be unfinished.

    A list holds `vllm serve` arguments where the layers declare one for this kind of
    document, whatever its key is called: a key named like one elsewhere is not read.
    """
    keys = cursor.keys
    last = keys[-1] if keys else None
    if keys in (("default_strategy",), ("compatible_strategies",)):
        return Role.STRATEGY
    if keys == ("meta", "related_recipes"):
        return Role.RELATED
    if keys == ("meta", "tasks"):
        return Role.TASK
    if keys == ("meta", "platforms"):
        return Role.PLATFORM
    if last == "opt_in_features" or (len(keys) >= 2 and keys[-2] == "hardware_opt_in_features"):
        return Role.FEATURE
    if len(keys) >= 2 and keys[-2] == "default_modes":
        return Role.MODE
    if last == "variants" and len(keys) >= 3 and keys[-3] == "modes":
        return Role.VARIANT
    if library.is_args_list(kind, cursor.holder):
        if cursor.word.startswith("-") and (typing or cursor.word != "-"):
            return Role.FLAG
        return Role.FLAG_VALUE if cursor.item or typing else None
    return None
