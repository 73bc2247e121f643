"""Where a YAML syntax error really is, and what fixes it (RL001).

libyaml reports the place where it gave up, which is often past the mistake: a missing
`:` is noticed on the next line (a comment, say), an unclosed quote where the string
happens to end or at the end of the file, a key dedented out of its block as "did not
find expected key". libyaml's two marks (where the construct began, where it failed)
and the lines around them tell the usual mistakes apart; each is reported at the
mistake, with its fix. Anything else keeps libyaml's own words (recipelint.read.load).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from yaml._yaml import CParser

from recipelint.diagnostics import Span

# `key:` at the start of a line's content: a plain key, the way recipes write them.
_KEY = re.compile(r"([^\s#'\"\[\]{},:-][^#:]*?):(?=\s|$)")
# Indentation, then the `- ` of sequence items that open on the same line.
_LINE_START = re.compile(r"( *)((?:- +)*)")
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*\s*(?:#.*)?$")
_MISALIGNED = (
    "did not find expected key",
    "did not find expected '-' indicator",
    "expected <block end>",
)
_SHOWN = 60


@dataclass(frozen=True)
class SyntaxProblem:
    """A syntax error described at the mistake: the message, its place, and the fix."""

    message: str
    span: Span
    hint: str


@dataclass(frozen=True)
class _Level:
    """A block of keys open above a line: their column and the nearest of them."""

    column: int
    key: str


Lines = Sequence[str]


def explain(text: str, lines: Lines, error: yaml.MarkedYAMLError) -> SyntaxProblem | None:
    """The usual mistake behind libyaml's ``error`` in ``text`` (split into ``lines`` at
    YAML's line breaks), or None when it is none of them."""
    diagnoses: tuple[Callable[[str, Lines, yaml.MarkedYAMLError], SyntaxProblem | None], ...] = (
        _unclosed_quote,
        _unclosed_bracket,
        _missing_colon,
        _misaligned_key,
        _colon_in_line,
    )
    for diagnose in diagnoses:
        found = diagnose(text, lines, error)
        if found is not None:
            return found
    return None


# --------------------------------------------------------------------- unclosed quote


def _unclosed_quote(text: str, lines: Lines, error: yaml.MarkedYAMLError) -> SyntaxProblem | None:
    problem = error.problem or ""
    runs_to_end = "end of stream" in problem or "document separator" in problem
    if error.context == "while scanning a quoted scalar" and runs_to_end:
        opening = error.context_mark
    else:
        opening = _quote_running_into(text, error.problem_mark)
    if opening is None or not 0 <= opening.line < len(lines):
        return None
    line = lines[opening.line]
    quote = line[opening.column : opening.column + 1]
    if quote not in ("'", '"'):
        return None
    return SyntaxProblem(
        f"YAML syntax error: the string opened with `{quote}` here is not closed on its line",
        _line_span(opening.line, opening.column, line),
        f"close it with `{quote}` at the end of the value; a text over several lines is "
        "clearer as a block scalar (`|` or `>`)",
    )


def _quote_running_into(text: str, mark: Any) -> Any:
    """The start of a quoted string that runs over lines and ends where libyaml failed:
    its closing quote was meant to open the next string on that line."""
    if mark is None:
        return None
    found = None
    scanner = CParser(text)
    try:
        for token in iter(scanner.get_token, None):
            if token.start_mark.index > mark.index:
                break
            if (
                isinstance(token, yaml.ScalarToken)
                and token.style in ("'", '"')
                and token.start_mark.line < token.end_mark.line == mark.line
            ):
                found = token.start_mark
    except yaml.YAMLError:
        pass  # the scanner's own error is past the tokens that matter
    finally:
        scanner.dispose()
    return found


def _unclosed_bracket(text: str, lines: Lines, error: yaml.MarkedYAMLError) -> SyntaxProblem | None:
    """A flow list or mapping still open on a later line: its bracket was never closed."""
    opening, failed = error.context_mark, error.problem_mark
    if (
        error.context not in ("while parsing a flow sequence", "while parsing a flow mapping")
        or opening is None
        or failed is None
        or failed.line <= opening.line
        or not 0 <= opening.line < len(lines)
    ):
        return None
    line = lines[opening.line]
    bracket = line[opening.column : opening.column + 1]
    closing = {"[": "]", "{": "}"}.get(bracket)
    if closing is None or not _without_comment(line[opening.column + 1 :]):
        return None  # a list laid out over lines on purpose: the mistake is inside it
    return SyntaxProblem(
        f"YAML syntax error: the `{bracket}` opened here is not closed on its line",
        _line_span(opening.line, opening.column, line),
        f"close it with `{closing}` after the last item",
    )


# ----------------------------------------------------------------------- missing colon


def _missing_colon(text: str, lines: Lines, error: yaml.MarkedYAMLError) -> SyntaxProblem | None:
    mark = error.context_mark
    if (
        error.context != "while scanning a simple key"
        or error.problem != "could not find expected ':'"
        or mark is None
        or not 0 <= mark.line < len(lines)
    ):
        return None
    return _no_colon(lines, mark.line, mark.column)


def _no_colon(lines: Lines, number: int, column: int) -> SyntaxProblem:
    """The entry at ``column`` of line ``number`` (0-based) lacks the colon after its key."""
    line = lines[number]
    entry = _without_comment(line[column:])
    key, _, value = entry.partition(" ")
    written = f"{key}: {value.strip()}" if value.strip() else f"{key}:"
    return SyntaxProblem(
        f"YAML syntax error: `{_shown(entry)}` has no `:` after its key",
        _line_span(number, column, line),
        f"write `{_shown(written)}`: a key, a colon and a space, then the value",
    )


# ---------------------------------------------------------------- indentation of a key


def _misaligned_key(text: str, lines: Lines, error: yaml.MarkedYAMLError) -> SyntaxProblem | None:
    mark = error.problem_mark
    if not (error.problem or "").startswith(_MISALIGNED) or mark is None:
        return None
    if not 0 <= mark.line < len(lines):
        return None
    line = lines[mark.line]
    column = len(line) - len(line.lstrip(" "))
    key = _KEY.match(line, column)
    if mark.column != column or key is None:
        return None
    levels = _key_levels(lines, mark.line)
    deeper = [level for level in levels if level.column > column]
    shallower = [level for level in levels if level.column < column]
    name = key.group(1)
    if not deeper and shallower:
        return _key_continuing_a_value(lines, mark.line, column, name)
    if not deeper or not shallower or any(level.column == column for level in levels):
        return None
    inner, outer = deeper[-1], shallower[0]
    return SyntaxProblem(
        f"YAML syntax error: key `{name}` is indented {_spaces(column)}, which matches no block "
        f"around it: `{inner.key}` above is at {inner.column}, `{outer.key}` at {outer.column}",
        Span(mark.line + 1, column + 1, mark.line + 1, column + len(name) + 1),
        f"indent `{name}` {_spaces(inner.column)} to keep it beside `{inner.key}`, or "
        f"{outer.column} to put it beside `{outer.key}`",
    )


def _key_levels(lines: Lines, below: int) -> list[_Level]:
    """The blocks of keys open at line ``below`` (0-based), innermost first, each with the
    nearest key written at its column above that line."""
    levels: list[_Level] = []
    limit = float("inf")
    for number in range(below - 1, -1, -1):
        line = lines[number]
        content = line.lstrip(" ")
        if not content or content.startswith("#"):
            continue
        start = _LINE_START.match(line)
        assert start is not None  # the pattern matches the empty string
        indent, key_column = len(start.group(1)), start.end()
        key = _KEY.match(line, key_column)
        if key is not None and key_column < limit:
            if _BLOCK_SCALAR.match(line[key.end() :].strip()):
                levels.clear()  # the lines below it were the block scalar's text
            levels.append(_Level(key_column, key.group(1)))
            limit = key_column
        limit = min(limit, indent)
        if limit == 0:
            break
    return levels


# ------------------------------------------------------- a colon where none may be


def _colon_in_line(text: str, lines: Lines, error: yaml.MarkedYAMLError) -> SyntaxProblem | None:
    """`mapping values are not allowed here`: a key indented under a plain value (which
    it continues), or a value holding `: `."""
    mark = error.problem_mark
    if error.problem != "mapping values are not allowed in this context" or mark is None:
        return None
    if not 0 <= mark.line < len(lines):
        return None
    line = lines[mark.line]
    start = _LINE_START.match(line)
    assert start is not None
    key = _KEY.match(line, start.end())
    if key is None:
        return None
    name = key.group(1)
    if key.end() - 1 == mark.column:
        return _key_continuing_a_value(lines, mark.line, start.end(), name)
    rest = line[key.end() :]
    value_column = key.end() + len(rest) - len(rest.lstrip())
    return SyntaxProblem(
        f"YAML syntax error: the value of `{name}` holds `: `, which YAML reads as another key",
        _line_span(mark.line, value_column, line),
        f"quote the value: `{name}: {_shown(_quoted(_without_comment(line[value_column:])))}`",
    )


def _key_continuing_a_value(
    lines: Lines, number: int, column: int, name: str
) -> SyntaxProblem | None:
    """A key that libyaml read as more of the plain text on the line above: that line lacks
    its own colon, or this key is indented deeper than the key above it."""
    line_above = _line_above(lines, number)
    if line_above is None:
        return None
    above_number, above_start, above_key = line_above
    if above_key is None:
        # A line of a block scalar's text needs no colon, nor does a list item unless this
        # key sits beside its text, as the next key of a mapping item.
        item = bool(above_start.group(2))
        if (item and above_start.end() != column) or _in_block_scalar(lines, above_number):
            return None
        return _no_colon(lines, above_number, above_start.end())
    levels = _key_levels(lines, number)
    if not levels or levels[0].column >= column:
        return None
    above = levels[0]
    if above.key == above_key.group(1) and not above_start.group(2):
        left = _key_left_its_block(lines, above_number, above_key, column, name)
        if left is not None:
            return left
    return SyntaxProblem(
        f"YAML syntax error: key `{name}` is indented {_spaces(column)}, deeper than `{above.key}` "
        f"above ({above.column}), so it reads as part of that key's value",
        Span(number + 1, column + 1, number + 1, column + len(name) + 1),
        f"indent `{name}` {_spaces(above.column)} like `{above.key}`",
    )


def _key_left_its_block(
    lines: Lines, number: int, key: re.Match[str], column: int, below: str
) -> SyntaxProblem | None:
    """The key on line ``number`` holds a value on its own line yet the key below it sits
    deeper: when the key before it stands at that deeper column, the block goes on around
    it and this one line was dedented out of it."""
    line_before = _line_above(lines, number)
    if line_before is None:
        return None
    _, before_start, before = line_before
    if before is None or before_start.end() != column or before_start.group(2):
        return None
    name, sibling, key_column = key.group(1), before.group(1), key.start()
    return SyntaxProblem(
        f"YAML syntax error: key `{name}` is indented {_spaces(key_column)}, out of the block "
        f"that `{sibling}` above it and `{below}` below it are in ({column}), so `{below}` "
        "reads as part of its value",
        Span(number + 1, key_column + 1, number + 1, key_column + len(name) + 1),
        f"indent `{name}` {_spaces(column)} like `{sibling}`",
    )


# ---------------------------------------------------------------------------- helpers


def _in_block_scalar(lines: Lines, number: int) -> bool:
    """Whether line ``number`` is text of a block scalar (`key: |` on a line above, less
    indented than it)."""
    indent = len(lines[number]) - len(lines[number].lstrip(" "))
    for above in range(number - 1, -1, -1):
        line = lines[above]
        content = line.strip()
        if not content or content.startswith("#") or len(line) - len(line.lstrip(" ")) >= indent:
            continue
        start = _LINE_START.match(line)
        assert start is not None
        key = _KEY.match(line, start.end())
        return key is not None and _BLOCK_SCALAR.match(line[key.end() :].strip()) is not None
    return False


def _line_above(
    lines: Lines, number: int
) -> tuple[int, re.Match[str], re.Match[str] | None] | None:
    """The nearest line of content above ``number``: its number, its start (indent and
    list dash) and the key written there, if any."""
    above = _content_line_above(lines, number)
    if above is None:
        return None
    start = _LINE_START.match(lines[above])
    assert start is not None  # the pattern matches the empty string
    return above, start, _KEY.match(lines[above], start.end())


def _content_line_above(lines: Lines, number: int) -> int | None:
    """The nearest line above ``number`` that holds more than blanks or a comment."""
    for above in range(number - 1, -1, -1):
        content = lines[above].strip()
        if content and not content.startswith("#"):
            return above
    return None


def _without_comment(text: str) -> str:
    comment = re.search(r"(?:^|\s)#", text)
    return (text[: comment.start()] if comment else text).rstrip()


def _line_span(number: int, column: int, line: str) -> Span:
    """From ``column`` to the end of the line's content, comment left out."""
    end = column + len(_without_comment(line[column:]))
    return Span(number + 1, column + 1, number + 1, max(end, column + 1) + 1)


def _spaces(count: int) -> str:
    return f"{count} space{'s' * (count != 1)}"


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
