"""RL750–RL759: recipe values that stay dangerous in the commands the API publishes.

Rendered commands are meant to be pasted into a shell. Upstream single-quotes
only the value that follows a flag (``shellQuote``); it leaves flags, positional
arguments, the model id, the container image and every ``docker run -e K=V``
pair unquoted (docs/upstream-behaviour.md#formatting and #docker-env-unquoted). recipelint keeps that
output byte for byte, so the protection is here: report the values a shell
would execute or split, wherever a recipe, strategy or kv_store file holds them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from recipelint.load import Document
from recipelint.resolve.layers import ARG_KEYS, ENV_KEYS
from recipelint.rules import Finding, check

Pointer = tuple[str | int, ...]
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# What makes a shell run something else: command substitution, command separators,
# pipes, redirections, and line breaks (a new line is a new command).
EXECUTES = re.compile(r"\$\(|[`;&|<>\n\r]")
# Unquoted `-e K=V` and image words sit among docker's own options, so anything that
# splits a word or opens a quote also changes the command.
SPLITS = re.compile(r"[\s'\"\\]")
# C0 and C1 controls other than tab and newline: ESC starts terminal escape sequences.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
SHOWN = 60


def _shown(text: str) -> str:
    """The value as a message may quote it: escaped, short, inert on any terminal."""
    escaped = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )
    return escaped if len(escaped) <= SHOWN else escaped[:SHOWN] + "…"


def _documents(ctx: Any) -> Iterator[Document]:
    yield from ctx.recipes
    for doc in [*ctx.tree.strategies, *ctx.tree.kv_stores]:
        if doc.usable:
            yield doc


def _walk(value: Any, pointer: Pointer = ()) -> Iterator[tuple[Pointer, Any, Any]]:
    """(pointer, key, value) for every mapping entry and list item, depth first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield pointer + (key,), key, item
            yield from _walk(item, pointer + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield pointer + (index,), index, item
            yield from _walk(item, pointer + (index,))


def _collect(value: Any, pointer: Pointer, out: list[tuple[Pointer, Any, Any]]) -> None:
    """_walk's entries, in _walk's order, appended to ``out`` (no generator per node)."""
    if isinstance(value, dict):
        for key, item in value.items():
            at = pointer + (key,)
            out.append((at, key, item))
            _collect(item, at, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            at = pointer + (index,)
            out.append((at, index, item))
            _collect(item, at, out)


def _entries(ctx: Any, doc: Document) -> list[tuple[Pointer, Any, Any]]:
    """_walk(doc.data) as a list, built once per check run: every RL75x check reads it."""
    walked: dict[int, tuple[Document, list[tuple[Pointer, Any, Any]]]] = ctx.memo.setdefault(
        "security.walk", {}
    )
    found = walked.get(id(doc))
    if found is None or found[0] is not doc:
        entries: list[tuple[Pointer, Any, Any]] = []
        _collect(doc.data, (), entries)
        found = walked[id(doc)] = (doc, entries)
    return found[1]


def _is_flag(token: Any) -> bool:
    return isinstance(token, str) and token.startswith("-")


def _unquoted(tokens: list[Any], index: int) -> bool:
    """Upstream quotes a token only when it is the value right after a flag."""
    return not (index > 0 and _is_flag(tokens[index - 1]) and not _is_flag(tokens[index]))


@check("RL750")
def args_that_execute(ctx: Any) -> Iterator[Finding]:
    for doc in _documents(ctx):
        for pointer, key, tokens in _entries(ctx, doc):
            if key not in ARG_KEYS or not isinstance(tokens, list):
                continue
            for index, token in enumerate(tokens):
                if not isinstance(token, str) or not EXECUTES.search(token):
                    continue
                if _unquoted(tokens, index):
                    where = "a flag" if _is_flag(token) else "a positional argument"
                    message = (
                        f"`{_shown(token)}` is {where}, which the rendered command leaves unquoted: "
                        "pasted into a shell it runs commands"
                    )
                elif "\n" in token or "\r" in token:
                    message = (
                        f"the value `{_shown(token)}` holds a line break: the rendered command puts "
                        "one flag per line, so a pasted command is cut or runs a second line"
                    )
                else:
                    continue  # single-quoted in the rendering: inert
                yield Finding(
                    doc,
                    pointer + (index,),
                    message,
                    "pass the value after its flag (`--flag`, `value`) without line breaks",
                    code="RL750",
                )


def _env_maps(ctx: Any, doc: Document) -> Iterator[tuple[Pointer, dict[str, Any]]]:
    for pointer, key, value in _entries(ctx, doc):
        if key in ENV_KEYS and isinstance(value, dict):
            yield pointer, value


@check("RL751")
def env_values_that_execute(ctx: Any) -> Iterator[Finding]:
    for doc in _documents(ctx):
        for pointer, env in _env_maps(ctx, doc):
            for name, value in env.items():
                if isinstance(value, str) and (EXECUTES.search(value) or SPLITS.search(value)):
                    yield Finding(
                        doc,
                        pointer + (name,),
                        f"env `{_shown(name)}` = `{_shown(value)}`: `docker run -e {_shown(name)}=…` "
                        "is published unquoted, so a shell runs or splits this value",
                        "use a value without spaces, quotes, `$(`, backticks, `;`, `&`, `|`, `<`, "
                        "`>` or line breaks",
                        code="RL751",
                    )


@check("RL752")
def env_names_that_are_not_identifiers(ctx: Any) -> Iterator[Finding]:
    for doc in _documents(ctx):
        for pointer, env in _env_maps(ctx, doc):
            for name in env:
                if not ENV_NAME.fullmatch(name):
                    yield Finding(
                        doc,
                        pointer + (name,),
                        f"`{_shown(name)}` is not an environment variable name: it is published "
                        "unquoted as `docker run -e NAME=…`",
                        "use letters, digits and underscores, not starting with a digit",
                        at_key=True,
                        code="RL752",
                    )


def _words(ctx: Any, doc: Document) -> Iterator[tuple[Pointer, str, str]]:
    """(pointer, what, text) of the model ids and images the command prints as bare words."""
    for pointer, key, value in _entries(ctx, doc):
        if key == "model_id" and isinstance(value, str):
            yield pointer, "model id", value
        elif key == "docker_image":
            if isinstance(value, str):
                yield pointer, "container image", value
            for inner, _, item in _walk(value, pointer):
                if isinstance(item, str):
                    yield inner, "container image", item


@check("RL753")
def bare_words_that_execute(ctx: Any) -> Iterator[Finding]:
    for doc in _documents(ctx):
        for pointer, what, text in _words(ctx, doc):
            if EXECUTES.search(text) or SPLITS.search(text):
                yield Finding(
                    doc,
                    pointer,
                    f"the {what} `{_shown(text)}` is printed unquoted in `vllm serve` and "
                    "`docker run`: a shell would run or split it",
                    "a model id is org/name; an image is name[:tag][@digest]",
                    code="RL753",
                )


@check("RL754")
def terminal_controls(ctx: Any) -> Iterator[Finding]:
    for doc in [*ctx.tree.documents()]:
        if not doc.usable:
            continue
        for pointer, key, value in _entries(ctx, doc):
            if isinstance(key, str) and CONTROL.search(key):
                yield Finding(
                    doc,
                    pointer,
                    f"the key `{_shown(key)}` holds a control character",
                    "remove it: terminal escapes can hide or fake text",
                    at_key=True,
                    code="RL754",
                )
            if isinstance(value, str) and CONTROL.search(value):
                yield Finding(
                    doc,
                    pointer,
                    f"`{_shown(value)}` holds a control character (an ANSI escape sequence can "
                    "recolour, hide or rewrite what a terminal shows)",
                    "remove it: recipes are plain text",
                    code="RL754",
                )
