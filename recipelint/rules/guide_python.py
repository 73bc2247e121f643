"""A guide's python blocks read with the ast module: whether each parses, and the `model=` arguments its client calls pass."""

from __future__ import annotations

import ast
import bisect
from collections import deque
from collections.abc import Iterator

PythonFacts = tuple[BaseException | None, tuple[tuple[str, int], ...]]


def python_facts(code: str) -> PythonFacts:
    """(CPython's refusal of a block or None, its model_arguments): RL601 and RL602 read the same blocks.

    Only these facts are kept, not the syntax tree: thousands of nodes kept alive per
    block made the cyclic collector walk them over and over for the rest of the run.
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return error.with_traceback(None), ()  # kept without the frames it was raised in
    return None, _model_arguments(tree, code)


def _model_arguments(tree: ast.Module, code: str) -> tuple[tuple[str, int], ...]:
    lines = _model_lines(code)
    if lines == []:
        return ()
    found = []
    for node in _calls(tree, lines):
        for keyword in node.keywords:
            value = keyword.value
            if (
                keyword.arg == "model"
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ):
                found.append((value.value, keyword.lineno))
    return tuple(sorted(found, key=lambda item: item[1]))


def _model_lines(code: str) -> list[int] | None:
    """The lines (1-based, in order) that spell the word `model`; None when any line may.

    In ASCII code a `model=` keyword is spelled `model` (no other spelling of the name), so
    a node written on none of these lines holds none; code beyond ASCII may spell an
    identifier in characters that normalise to it, and a carriage return ends a line for
    Python but not for this count.
    """
    if not code.isascii() or "\r" in code:
        return None
    return [number for number, line in enumerate(code.split("\n"), start=1) if "model" in line]


def _calls(tree: ast.Module, lines: list[int] | None) -> Iterator[ast.Call]:
    """The calls of ``tree`` in ast.walk's order, leaving out the nodes written on none of
    ``lines`` (none left out when ``lines`` is None).

    A node's lines hold those of every node below it, but for the decorators above a
    definition (counted in) and the expressions inside an f-string, whose positions Python
    3.11 does not always get right: below an f-string nothing is left out.
    """
    pending: deque[tuple[ast.AST, list[int] | None]] = deque([(tree, lines)])
    while pending:
        node, within = pending.popleft()
        if isinstance(node, ast.Call):
            yield node
        if isinstance(node, ast.JoinedStr):
            within = None
        for child in ast.iter_child_nodes(node):
            if within is None or _written_on(child, within):
                pending.append((child, within))


def _written_on(node: ast.AST, lines: list[int]) -> bool:
    """Whether some of ``lines`` falls within a node (its decorators included); a node
    without a position may be anywhere."""
    last = getattr(node, "end_lineno", None)
    if last is None:
        return True
    decorators = getattr(node, "decorator_list", ())
    first = min([getattr(node, "lineno", last), *(d.lineno for d in decorators)])
    index = bisect.bisect_left(lines, first)
    return index < len(lines) and lines[index] <= last


def syntax_error(code: str) -> tuple[str, int] | None:
    """libcst's verdict on a block: (message, line) when it does not parse."""
    return syntax_verdict(code, python_facts(code)[0])


def syntax_verdict(code: str, refusal: BaseException | None) -> tuple[str, int] | None:
    """libcst's verdict on a block CPython refused (``refusal``), or None.

    CPython's own parser answers first (it is fast, and code it accepts libcst
    accepts too); libcst decides, and words the message, only for what it refuses.
    """
    if refusal is None:
        return None
    if _too_deep(code, refusal):
        # libcst's native parser overflows its stack on such input: CPython's refusal is the verdict.
        line = refusal.lineno if isinstance(refusal, SyntaxError) and refusal.lineno else 1
        return str(getattr(refusal, "msg", refusal)) or "nested too deeply", line
    import libcst  # costs ~0.3 s to import: only when CPython already refused the block

    try:
        libcst.parse_module(code)
    except libcst.ParserSyntaxError as error:
        return error.message.splitlines()[0], error.raw_line
    return None


MAX_NESTING = 100


def _too_deep(code: str, refusal: BaseException) -> bool:
    """Nesting beyond what CPython accepts (brackets or indentation), counted without parsing."""
    if not isinstance(refusal, SyntaxError) or "too many" in str(refusal.msg):
        return True
    depth = deepest = 0
    for char in code:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(0, depth - 1)
    indents = (len(line) - len(line.lstrip(" \t")) for line in code.splitlines())
    return deepest > MAX_NESTING or max(indents, default=0) > 4 * MAX_NESTING


def model_arguments(code: str) -> tuple[tuple[str, int], ...]:
    """(value, line) of every string literal passed as `model=` to a call."""
    return python_facts(code)[1]


def notebook_style(code: str) -> bool:
    """Interactive transcripts and notebook shell escapes are not meant to parse as a module."""
    marks = (">>>", "!", "%", "$ ")
    if not any(mark in code for mark in marks):
        return False  # no line can start with a mark the code does not hold
    return any(line.lstrip().startswith(marks) for line in code.splitlines())
