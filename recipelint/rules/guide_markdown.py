"""A markdown guide's fenced code blocks: where each starts, its language and its dedented text."""

from __future__ import annotations

import operator
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress, count, repeat

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")


PYTHON = {"python", "py", "python3"}


SHELL = {"bash", "sh", "shell", "console", "zsh"}


SERVE = re.compile(r"(?:^|[\s;&|(])vllm\s+serve\s+(\S+)")


PLACEHOLDER = re.compile(r"^[$<{/.~]|[<>{}*]")


@dataclass(frozen=True, slots=True)
class Block:
    language: str
    code: str
    line: int  # 1-based line of the first code line inside the guide text


def fenced_blocks(markdown: str) -> tuple[Block, ...]:
    """Every fenced code block of a markdown text."""
    return tuple(_fenced_blocks(markdown))


def _fenced_blocks(markdown: str) -> Iterator[Block]:
    lines = markdown.splitlines()
    # Only a line holding three backticks or tildes can open or close a fence.
    marked = iter(_lines_holding(lines, "```", "~~~" in markdown))
    for index in marked:
        opening = FENCE.match(lines[index])
        if not opening:
            continue
        fence, language = opening.group(2), opening.group(3).lower()
        end = next((i for i in marked if lines[i].lstrip().startswith(fence)), len(lines))
        yield Block(language, dedented("\n".join(lines[index + 1 : end])), index + 2)


def _lines_holding(lines: list[str], ticks: str, tildes: bool) -> list[int]:
    """The indices of the lines holding ``ticks`` (or, with ``tildes``, three tildes), in order.

    Asked of every line of every guide: the lines are tested by map(), not one by one in Python.
    """
    found = list(compress(count(), map(operator.contains, lines, repeat(ticks))))
    if tildes:
        found = sorted({*found, *compress(count(), map(operator.contains, lines, repeat("~~~")))})
    return found


# A line of spaces and tabs only: textwrap.dedent empties it.
BLANK_LINE = re.compile(r"^[ \t]+$", re.MULTILINE)


def dedented(code: str) -> str:
    """textwrap.dedent(code), without its work where the answer is plain.

    With no line starting with a space or a tab, nothing is indented and no line is blank
    but empty: the text is its own dedent. With a first line that starts with other text,
    the common margin is empty: only the blank lines are emptied.
    """
    if not code.startswith((" ", "\t")):
        if "\n " not in code and "\n\t" not in code:
            return code
        if code[:1] not in ("", "\n"):
            return BLANK_LINE.sub("", code)
    return textwrap.dedent(code)
