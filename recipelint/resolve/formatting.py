"""From an arg list to the `vllm serve` command line and argv: recipelint.argv dedupes, this lays out.

Upstream: docs/upstream-behaviour.md#formatting (after #last-wins-dedupe).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import cast

from recipelint.argv import dedupe_tokens
from recipelint.jsvalue import JsValue

_BARE_VARIABLE = re.compile(r"\$[A-Z_][A-Z0-9_]*")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_./=:@,+%-]+")
CONTINUATION = " \\\n  "


class RenderError(Exception):
    """A rendering that upstream aborts (it throws inside command synthesis)."""


def shell_quote(value: str) -> str:
    """Single-quote a value unless it is shell-safe or a bare upper-case $VARIABLE."""
    if type(value) is not str or not value:
        return value
    return _quote_string(value)


@functools.lru_cache(maxsize=4096)
def _quote_string(value: str) -> str:
    # Recipes repeat the same few hundred values across thousands of commands: match each once.
    if _BARE_VARIABLE.fullmatch(value) or _SHELL_SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def format_command(model_id: str, deduped: list[JsValue]) -> str:
    """`vllm serve MODEL` with one `--flag value` per continuation line."""
    if not deduped:
        return "vllm serve " + model_id
    return "vllm serve " + model_id + CONTINUATION + _format_lines(deduped)


def _format_lines(deduped: Sequence[JsValue]) -> str:
    """The continuation lines of a non-empty deduped arg list: what follows the model."""
    require_strings(deduped)
    lines = []
    flag = None  # the last flag, until we know whether the next token is its value
    for token in cast("Sequence[str]", deduped):  # (require_strings raised for any other)
        if token[:1] == "-":
            if flag is not None:
                lines.append(flag)
            flag = token
        elif flag is not None:
            lines.append(flag + " " + shell_quote(token))
            flag = None
        else:
            lines.append(token)
    if flag is not None:
        lines.append(flag)
    return CONTINUATION.join(lines)


def require_strings(deduped: Iterable[JsValue]) -> None:
    """Raise for the first token of a deduped arg list that is not a string: a command
    line cannot show it."""
    for token in deduped:
        if type(token) is not str:
            raise RenderError(f"non-string argument {token!r} (quote it in the YAML)")


def check_serve_args(args: list[JsValue]) -> None:
    """Raise what serve_command raises for ``args``, without laying out the command.

    A list of strings always formats; any other token is judged after the dedupe, which
    drops the falsy ones, as serve_command judges it.
    """
    for token in args:
        if type(token) is not str:
            require_strings(dedupe_tokens(args))
            return


def format_argv(model_id: JsValue, deduped: list[JsValue]) -> list[JsValue]:
    return ["vllm", "serve", model_id, *deduped]


def serve_command(
    model_id: JsValue, model_text: str, args: list[JsValue]
) -> tuple[str, list[JsValue]]:
    """The command line and argv for an arg list: dedupe, then format (model_text is String(model_id)).

    The same arg list recurs across hardware and strategies (the corpus has ~3,000 distinct
    lists among ~17,500), so each is deduped and formatted once. Sharing a result between
    lists that compare equal but hold other kinds of tokens (`1` and `true`) is safe: a
    truthy token that is not a string raises (and nothing is kept), a falsy one is dropped.
    A list holding an unhashable token takes the direct path, which raises the same way.
    """
    try:
        command, deduped = _serve_tokens(model_text, tuple(args))
    except TypeError:  # an unhashable token (a mapping or a list in the YAML)
        deduped_list = dedupe_tokens(args)
        return format_command(model_text, deduped_list), format_argv(model_id, deduped_list)
    return command, ["vllm", "serve", model_id, *deduped]


@functools.lru_cache(maxsize=4096)
def _serve_tokens(model_text: str, args: tuple[JsValue, ...]) -> tuple[str, tuple[JsValue, ...]]:
    lines, deduped = _serve_lines(args)
    if not deduped:
        return "vllm serve " + model_text, deduped
    return "vllm serve " + model_text + CONTINUATION + lines, deduped


# The lines after the model: variants serving other models often join the same arg list.
@functools.lru_cache(maxsize=4096)
def _serve_lines(args: tuple[JsValue, ...]) -> tuple[str, tuple[JsValue, ...]]:
    plain = _plain_tokens(args)
    deduped: tuple[JsValue, ...] = plain if plain is not None else tuple(dedupe_tokens(args))
    return (_format_lines(deduped) if deduped else ""), deduped


def _plain_tokens(args: tuple[JsValue, ...]) -> tuple[str, ...] | None:
    """The dedupe of the usual list, strings where no flag repeats, read in one pass: its
    non-empty tokens (the dedupe only drops empty strings then); None for any other list."""
    seen: set[str] = set()
    for token in args:
        if type(token) is not str:
            return None
        if token[:1] == "-":
            if token in seen:
                return None
            seen.add(token)
    return tuple(token for token in args if token)  # type: ignore[misc]  # (strings, above)
