"""RL321: typographic lookalikes of ASCII in arguments, environment values and model ids.

Word processors, chat tools and web pages turn `--` into an em dash, straight quotes
into curly ones and spaces into no-break spaces; pasted into a recipe they look right
and break the command. Which characters count is derived from Unicode properties, not
listed by hand: dashes (category Pd) and minus signs read as `-`, space separators (Zs)
as a space, invisible format characters (Cf) as nothing, quotation marks as `"` or
`'`, and anything whose compatibility form (NFKC) is plain ASCII (fullwidth `＝`) as
that ASCII text. Inside prose (a multi-line value such as an inline chat template, or
the strings of JSON that parses) dashes and quotes are the writer's; only invisible
characters are reported there. A model_id becomes a file name of the compiled API, where
an invisible character (a bidi override such as U+202E) makes one name display as another.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from recipelint.cachesize import TEXT_KEYED_ENTRIES
from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.resolve import layers
from recipelint.rules.common import Pointer
from recipelint.rules.context import CheckContext
from recipelint.rules.environment import focused_env_mappings
from recipelint.rules.registry import Finding, check

CODE = "RL321"


@dataclass(frozen=True)
class Lookalike:
    """A character standing in for ASCII text, and that text ('' for an invisible one)."""

    char: str
    ascii: str

    @property
    def label(self) -> str:
        return f"U+{ord(self.char):04X} {unicodedata.name(self.char, 'UNNAMED CHARACTER')}"

    def describe(self) -> str:
        return f"{self.label} ({f'ASCII `{self.ascii}`' if self.ascii else 'invisible'})"


@lru_cache(maxsize=TEXT_KEYED_ENTRIES)
def ascii_lookalike(char: str) -> str | None:
    """The ASCII text ``char`` passes for, or None when it is ASCII or passes for nothing."""
    if char.isascii():
        return None
    category = unicodedata.category(char)
    name = unicodedata.name(char, "")
    if category == "Cf":
        return ""
    if category == "Zs":
        return " "
    if category == "Pd" or "MINUS" in name.split():
        return "-"
    compatible = unicodedata.normalize("NFKC", char)
    if compatible.isascii() and compatible.isprintable():
        return compatible  # FULLWIDTH QUOTATION MARK is `"`, though its name says no DOUBLE
    if category in ("Pi", "Pf") or "QUOTATION MARK" in name:
        return '"' if "DOUBLE" in name or "ANGLE QUOTATION" in name else "'"
    return None


def lookalikes(text: str) -> list[Lookalike]:
    """The distinct lookalike characters of ``text``, in the order they first appear."""
    if text.isascii():
        return []  # nearly every value: no character of it passes for another
    found: dict[str, Lookalike] = {}
    for char in text:
        replacement = ascii_lookalike(char)
        if replacement is not None and char not in found:
            found[char] = Lookalike(char, replacement)
    return list(found.values())


def ascii_spelling(text: str, argument: bool) -> str:
    """``text`` with every lookalike replaced by its ASCII text.

    An argument that starts with dashes is an option: an em or en dash there stands for
    the `--` an editor turned into it (`—reasoning-parser`), a single dash only before a
    one-letter option or a number.
    """
    lead = 0
    while (
        argument and lead < len(text) and (text[lead] == "-" or ascii_lookalike(text[lead]) == "-")
    ):
        lead += 1
    rest = "".join(_replaced(char) for char in text[lead:])
    if lead == 0 or text[:lead].isascii():
        return text[:lead] + rest
    name = rest.split("=", 1)[0].split(" ", 1)[0]
    return ("--" if name[:1].isalpha() and len(name) > 1 else "-") + rest


def is_prose(text: str) -> bool:
    """Text inside a value rather than a token: several lines (an inline chat template), or
    JSON that parses, whose lookalikes sit inside its strings. There only invisible
    characters are mistakes; typographic dashes and quotes are the writer's own."""
    if "\n" in text:
        return True
    value = text.split("=", 1)[1] if text.startswith("-") and "=" in text else text
    if not value.lstrip().startswith(("{", "[")):
        return False
    try:
        json.loads(value)
    except (ValueError, RecursionError):  # nesting past the parser's depth is no JSON here
        return False
    return True


def mistaken_lookalikes(text: str) -> list[Lookalike]:
    """The lookalikes of ``text`` that stand in for ASCII by mistake."""
    found = lookalikes(text)
    if found and is_prose(text):
        return [item for item in found if item.ascii == ""]
    return found


def corrected(text: str, argument: bool) -> str:
    """``text`` with its mistaken lookalikes written in ASCII (what RL321's fix writes)."""
    if is_prose(text):
        return "".join(char for char in text if ascii_lookalike(char) != "")
    return ascii_spelling(text, argument)


def _replaced(char: str) -> str:
    replacement = ascii_lookalike(char)
    return char if replacement is None else replacement


def shown(text: str) -> str:
    """``text`` for a message: invisible and space-like characters written as escapes."""
    return "".join(
        f"\\u{ord(char):04x}" if ascii_lookalike(char) in ("", " ") else char for char in text
    )


# -- where arguments and environment values live ----------------------------------------


@dataclass(frozen=True)
class Value:
    doc: Document
    pointer: Pointer
    text: str
    argument: bool  # an args item (else an env value or a model id)
    label: str = ""  # how a message names a value that is neither


# Only a text with a character beyond ASCII can hold a lookalike: the others, nearly every
# value, are passed over before anything is made for them.


def _arguments(ctx: CheckContext) -> Iterator[Value]:
    for arg_list in ctx.arg_lists:
        for index, item in enumerate(arg_list.items):
            if isinstance(item, str) and not item.isascii():
                yield Value(arg_list.doc, arg_list.at(index), item, True)
    taxonomy = ctx.tree.taxonomy
    if taxonomy is not None and taxonomy.usable and ctx.in_focus(taxonomy):
        for layer in layers.lists(taxonomy.data, layers.TAXONOMY):
            for index, item in enumerate(layer.items):  # type: ignore[arg-type]  # lists(): lists
                if isinstance(item, str) and not item.isascii():
                    yield Value(taxonomy, (*layer.pointer, index), item, True)


def _environment(ctx: CheckContext) -> Iterator[Value]:
    for mapping in focused_env_mappings(ctx):
        for name, value in mapping.values.items():
            if isinstance(value, str) and not value.isascii():
                yield Value(mapping.doc, (*mapping.pointer, name), value, False)


def _model_ids(ctx: CheckContext) -> Iterator[Value]:
    """A recipe's model_id and its variants' (a promoted variant's is an output path)."""
    for doc in ctx.recipes:
        if not isinstance(doc.data, dict):
            continue
        places: list[tuple[Pointer, JsonValue]] = [(("model",), doc.data.get("model"))]
        variants = doc.data.get("variants")
        if isinstance(variants, dict):
            places += [(("variants", name), value) for name, value in variants.items()]
        for pointer, mapping in places:
            model_id = mapping.get("model_id") if isinstance(mapping, dict) else None
            if isinstance(model_id, str) and not model_id.isascii():
                yield Value(doc, (*pointer, "model_id"), model_id, False, "model_id")


def _what(value: Value) -> str:
    if value.argument:
        return "argument"
    return value.label or f"env `{value.pointer[-1]}`"


@check(CODE)
def typographic_lookalikes(ctx: CheckContext) -> Iterator[Finding]:
    for value in [*_arguments(ctx), *_environment(ctx), *_model_ids(ctx)]:
        found = mistaken_lookalikes(value.text)
        if found:
            what = _what(value)
            yield Finding(
                value.doc,
                value.pointer,
                f"{what} `{shown(value.text)}` holds "
                + " and ".join(item.describe() for item in found)
                + ": vLLM and the shell read it as written, not as the ASCII it looks like",
                f"write `{shown(corrected(value.text, value.argument))}`",
            )
