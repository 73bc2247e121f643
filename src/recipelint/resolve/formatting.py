"""From an arg list to the `vllm serve` command line and argv."""

from __future__ import annotations

import re
from typing import Any

from recipelint.jsvalue import truthy

_BARE_VARIABLE = re.compile(r"\$[A-Z_][A-Z0-9_]*")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_./=:@,+%-]+")
CONTINUATION = " \\\n  "


class RenderError(Exception):
    """A rendering that upstream aborts (it throws inside command synthesis)."""


def _is_flag(token: Any) -> bool:
    return type(token) is str and token.startswith("-")


def dedupe_args(args: list[Any]) -> list[Any]:
    """Last occurrence of each flag wins; `--flag value` pairs move together.

    Falsy tokens ("" and 0) are dropped first. A token starting with `-` is a flag;
    it takes the next token as its value unless that one is a flag too. Identity is
    the exact flag text, and positionals are always kept.
    """
    tokens = [t for t in args if truthy(t)]
    flags = [t for t in tokens if type(t) is str and t.startswith("-")]
    if len(set(flags)) == len(flags):
        return tokens  # no flag repeats, so every unit survives in place
    units: list[tuple[Any, Any, bool]] = []  # (flag_or_positional, value, has_value)
    i = 0
    count = len(tokens)
    while i < count:
        token = tokens[i]
        if _is_flag(token):
            if i + 1 < count and not _is_flag(tokens[i + 1]):
                units.append((token, tokens[i + 1], True))
                i += 2
                continue
            units.append((token, None, False))
        else:
            units.append((None, token, True))
        i += 1
    seen: set[str] = set()
    keep = [False] * len(units)
    for index in range(len(units) - 1, -1, -1):
        flag = units[index][0]
        if flag is None:
            keep[index] = True
        elif flag not in seen:
            seen.add(flag)
            keep[index] = True
    out: list[Any] = []
    for unit, kept in zip(units, keep):
        if not kept:
            continue
        flag, value, has_value = unit
        if flag is not None:
            out.append(flag)
        if has_value:
            out.append(value)
    return out


def shell_quote(value: Any) -> Any:
    """Single-quote a value unless it is shell-safe or a bare upper-case $VARIABLE."""
    if type(value) is not str or not value:
        return value
    if _BARE_VARIABLE.fullmatch(value) or _SHELL_SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def format_command(model_id: str, deduped: list[Any]) -> str:
    """`vllm serve MODEL` with one `--flag value` per continuation line."""
    if not deduped:
        return "vllm serve " + model_id
    for token in deduped:
        if type(token) is not str:
            raise RenderError(f"non-string argument {token!r} (quote it in the YAML)")
    lines = []
    i = 0
    count = len(deduped)
    while i < count:
        token = deduped[i]
        if token.startswith("-") and i + 1 < count and not deduped[i + 1].startswith("-"):
            lines.append(token + " " + shell_quote(deduped[i + 1]))
            i += 2
        else:
            lines.append(token)
            i += 1
    return "vllm serve " + model_id + CONTINUATION + CONTINUATION.join(lines)


def format_argv(model_id: Any, deduped: list[Any]) -> list[Any]:
    return ["vllm", "serve", model_id, *deduped]
