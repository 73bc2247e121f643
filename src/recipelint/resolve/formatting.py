"""From an arg list to the `vllm serve` command line and argv."""

from __future__ import annotations

import functools
import re
from typing import Any

from recipelint.jsvalue import truthy

_BARE_VARIABLE = re.compile(r"\$[A-Z_][A-Z0-9_]*")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_./=:@,+%-]+")
CONTINUATION = " \\\n  "


class RenderError(Exception):
    """A rendering that upstream aborts (it throws inside command synthesis)."""


def _is_flag(token: Any) -> bool:
    return type(token) is str and token[:1] == "-"


def dedupe_args(args: list[Any]) -> list[Any]:
    """Last occurrence of each flag wins; `--flag value` pairs move together.

    Falsy tokens ("" and 0) are dropped first. A token starting with `-` is a flag;
    it takes the next token as its value unless that one is a flag too. Identity is
    the exact flag text, and positionals are always kept.
    """
    tokens: list[Any] = []
    flags: set[str] = set()
    repeated = False
    for token in args:  # nearly every token is a string: test those without the generic truthy()
        if type(token) is str:
            if not token:  # "" is JS-falsy too
                continue
            if token[0] == "-":
                if token in flags:
                    repeated = True
                flags.add(token)
        elif not truthy(token):
            continue
        tokens.append(token)
    if not repeated:
        return tokens  # no flag repeats, so every unit survives in place
    return _keep_last_units(tokens)


def _keep_last_units(tokens: list[Any]) -> list[Any]:
    """Split truthy tokens into units (flag + value, lone flag, positional); drop all but each flag's last."""
    units: list[tuple[Any, tuple[Any, ...]]] = []  # (flag, or None for a positional; its tokens)
    i = 0
    count = len(tokens)
    while i < count:
        token = tokens[i]
        if _is_flag(token):
            if i + 1 < count and not _is_flag(tokens[i + 1]):
                units.append((token, (token, tokens[i + 1])))
                i += 2
                continue
            units.append((token, (token,)))
        else:
            units.append((None, (token,)))
        i += 1
    seen: set[str] = set()
    kept: list[tuple[Any, ...]] = []
    for flag, unit in reversed(units):
        if flag is not None:
            if flag in seen:
                continue
            seen.add(flag)
        kept.append(unit)
    out: list[Any] = []
    for unit in reversed(kept):
        out += unit
    return out


def shell_quote(value: Any) -> Any:
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
        if token[:1] == "-" and i + 1 < count and deduped[i + 1][:1] != "-":
            lines.append(token + " " + shell_quote(deduped[i + 1]))
            i += 2
        else:
            lines.append(token)
            i += 1
    return "vllm serve " + model_id + CONTINUATION + CONTINUATION.join(lines)


def format_argv(model_id: Any, deduped: list[Any]) -> list[Any]:
    return ["vllm", "serve", model_id, *deduped]
