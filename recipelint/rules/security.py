"""RL750–RL759: recipe values that stay dangerous in the commands the API publishes.

Rendered commands are meant to be pasted into a shell. Upstream single-quotes
only the value that follows a flag (``shellQuote``); it leaves flags, positional
arguments, the model id, the container image and every ``docker run -e K=V``
pair unquoted (docs/upstream-behaviour.md#formatting and #docker-env-unquoted). recipelint keeps that
output byte for byte, so the protection is here: report the values a shell
would execute or split, wherever a recipe, strategy or kv_store file holds them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.resolve.layers import ARG_KEYS, ENV, ENV_KEYS, is_list_place
from recipelint.rules.common import Pointer
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

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
# Whether a pointer names a declared args place: asked of every list of every document, and
# the same pointers recur (every copy of a recipe, every strategy's overrides).
_declared_list = functools.lru_cache(maxsize=8192)(is_list_place)


def _shown(text: str) -> str:
    """The value as a message may quote it: escaped, short, inert on any terminal."""
    escaped = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )
    return escaped if len(escaped) <= SHOWN else escaped[:SHOWN] + "…"


def _documents(ctx: CheckContext) -> Iterator[tuple[Document, bool]]:
    """Each usable document findings can be shown for, and whether its values reach commands.

    A document out of focus is left out: the engine shows no rule finding of one (checking
    one recipe in an editor need not walk the taxonomy on every keystroke).
    """
    tree = ctx.tree
    for doc in (tree.taxonomy, tree.platforms):
        if doc is not None and doc.usable and ctx.in_focus(doc):
            yield doc, False
    for doc in [*tree.strategies, *tree.kv_stores]:
        if doc.usable and ctx.in_focus(doc):
            yield doc, True
    for doc in ctx.recipes:
        yield doc, True


# (where, the key or index there, the value there) of an entry of a document.
Entry = tuple[Pointer, str | int, JsonValue]
# The keys whose scalar values the command prints as bare words (see _words).
WORD_KEYS = frozenset({"model_id", "docker_image"})


def _collect(value: object, pointer: Pointer, out: list[Entry]) -> list[Entry]:
    """(pointer, key, value) of every mapping entry and list item below ``value``, depth first,
    appended to ``out`` (no generator per node)."""
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
    return out


def _read(value: object, pointer: Pointer, out: list[Entry], texts: list[str]) -> None:
    """_collect's entries that the command rules read (mappings, lists and WORD_KEYS values),
    in the same order, and every string key and value in ``texts``.

    A recipe is mostly scalars: they are not made entries, and their text is searched for
    control characters all at once (_terminal_controls walks again only on a hit).
    """
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                texts.append(key)
            if isinstance(item, (dict, list)):
                at = pointer + (key,)
                out.append((at, key, item))
                _read(item, at, out, texts)
                continue
            if isinstance(item, str):
                texts.append(item)
            if key in WORD_KEYS:
                out.append((pointer + (key,), key, item))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                at = pointer + (index,)
                out.append((at, index, item))
                _read(item, at, out, texts)
            elif isinstance(item, str):
                texts.append(item)


@check("RL750", "RL751", "RL752", "RL753", "RL754")
def shell_hazards(ctx: CheckContext) -> Iterator[Finding]:
    """Every document is walked once; each rule of the family reads the same entries."""
    for doc, in_commands in _documents(ctx):
        entries: list[Entry] = []
        texts: list[str] = []
        _read(doc.data, (), entries, texts)
        if in_commands:
            yield from _args_that_execute(doc, entries)
            env_maps = [
                (pointer, value)
                for pointer, key, value in entries
                if isinstance(value, dict) and _is_env(doc.kind, pointer, key)
            ]
            yield from _env_values_that_execute(doc, env_maps)
            yield from _env_names_that_are_not_identifiers(doc, env_maps)
            images_judged = ctx.config.is_enabled("RL404") and not ctx.config.is_ignored_for(
                "RL404", doc.rel
            )
            yield from _bare_words_that_execute(doc, entries, images_judged)
        # A control character in the joined text is one in some key or value, and only there.
        if CONTROL.search("".join(texts)):
            yield from _terminal_controls(doc, _collect(doc.data, (), []))


def _is_env(kind: str, pointer: Pointer, key: object) -> bool:
    """Whether a mapping there is an env mapping: under an env key name (defensive, as for
    args), or at a declared env place."""
    return key in ENV_KEYS or _declared_list(kind, pointer, ENV)


def _is_flag(token: object) -> bool:
    return isinstance(token, str) and token.startswith("-")


def _unquoted(tokens: list[JsonValue], index: int) -> bool:
    """Upstream quotes a token only when it is the value right after a flag."""
    return not (index > 0 and _is_flag(tokens[index - 1]) and not _is_flag(tokens[index]))


def _args_that_execute(doc: Document, entries: list[Entry]) -> Iterator[Finding]:
    for pointer, key, tokens in entries:
        # Any list under an args key name is suspect (defensive: wherever it is nested), and
        # every declared args place, whatever its key (a layer keyed by a strategy name).
        if not isinstance(tokens, list):
            continue
        if key not in ARG_KEYS and not _declared_list(doc.kind, pointer):
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


EnvMaps = list[tuple[Pointer, dict[str, JsonValue]]]


def _env_values_that_execute(doc: Document, env_maps: EnvMaps) -> Iterator[Finding]:
    for pointer, env in env_maps:
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


def _env_names_that_are_not_identifiers(doc: Document, env_maps: EnvMaps) -> Iterator[Finding]:
    for pointer, env in env_maps:
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


def _words(entries: list[Entry]) -> Iterator[tuple[Pointer, str, str]]:
    """(pointer, what, text) of the model ids and images the command prints as bare words."""
    for pointer, key, value in entries:
        if key == "model_id" and isinstance(value, str):
            yield pointer, "model id", value
        elif key == "docker_image":
            if isinstance(value, str):
                yield pointer, "container image", value
            for inner, _, item in _collect(value, pointer, []):
                if isinstance(item, str):
                    yield inner, "container image", item


def _image_field(doc: Document, pointer: Pointer) -> bool:
    """A recipe's docker_image field that RL404 judges as an image reference: the model's
    or a variant's (a string or a brand/CUDA map of strings), or a hardware override's."""
    if doc.kind != "recipe" or "docker_image" not in pointer:
        return False
    at = pointer.index("docker_image")
    head = pointer[:at]
    return (
        head == ("model",)
        or (len(head) == 2 and head[0] == "variants")
        or (
            len(head) == 4
            and head[0] == "variants"
            and head[2] == "hardware_overrides"
            and at == len(pointer) - 1
        )
    )


def _bare_words_that_execute(
    doc: Document, entries: list[Entry], images_judged: bool
) -> Iterator[Finding]:
    """RL753. An image that would only be split (a space or a quote, nothing a shell runs) is
    no image reference: where RL404 is on and judges that field, its finding is the one
    cause, and this would repeat it."""
    for pointer, what, text in _words(entries):
        if EXECUTES.search(text) or (
            SPLITS.search(text) and not (images_judged and _image_field(doc, pointer))
        ):
            yield Finding(
                doc,
                pointer,
                f"the {what} `{_shown(text)}` is printed unquoted in `vllm serve` and "
                "`docker run`: a shell would run or split it",
                "a model id is org/name; an image is name[:tag][@digest]",
                code="RL753",
            )


def _terminal_controls(doc: Document, entries: list[Entry]) -> Iterator[Finding]:
    for pointer, key, value in entries:
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
