"""What several rule families read recipes with: data of any shape, the guide, argument lists.

Checks must accept any data (the schema stage reports wrong types), so they read it
through :func:`as_dict` and :func:`as_list`. An argument list is read as upstream's
dedupe reads it (:mod:`recipelint.argv`), each unit keeping the positions of its items
so that a finding points at the item itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recipelint import argv
from recipelint.diagnostics import Span
from recipelint.flags.catalog import Catalog, catalog_for, newest_catalog, version_key
from recipelint.jsvalue import JsonValue, get, js_string, truthy
from recipelint.read.load import Document
from recipelint.resolve import layers
from recipelint.resolve.layers import Scope

if TYPE_CHECKING:
    pass

Pointer = layers.Pointer  # where a value is in its document, as resolve/ and the loader say


def as_dict(value: object) -> dict[str, JsonValue]:
    """``value`` when it is a mapping (read data's are keyed by strings), else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[JsonValue]:
    """``value`` when it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def guide_text(doc: Document) -> str | None:
    """The recipe's markdown guide, when it has one."""
    guide = doc.data.get("guide") if isinstance(doc.data, dict) else None
    return guide if isinstance(guide, str) else None


def guide_span(doc: Document, line: int, needle: str | None = None) -> Span:
    """Where guide line ``line`` (1-based in the guide text) is written; narrowed to ``needle`` in it."""
    guide = guide_text(doc) or ""
    text = guide.split("\n")[line - 1] if 0 < line <= guide.count("\n") + 1 else ""
    found = text.find(needle) if needle else -1
    if found < 0:
        return doc.scalar_line_span(("guide",), line - 1)
    return doc.scalar_line_span(("guide",), line - 1, found, found + len(needle or ""))


def guide_offset_span(doc: Document, offset: int, length: int) -> Span:
    """Where the guide text's characters [offset, offset + length) are written."""
    guide = guide_text(doc) or ""
    line_start = guide.rfind("\n", 0, offset) + 1
    index = guide.count("\n", 0, offset)
    return doc.scalar_line_span(
        ("guide",), index, offset - line_start, offset - line_start + length
    )


def offered_strategies(data: dict[str, JsonValue]) -> list[str]:
    """effectiveCompatibleStrategies: the listed ids, then strategy_hardware opt-ins."""
    listed = [s for s in as_list(data.get("compatible_strategies")) if isinstance(s, str)]
    for name, gates in as_dict(data.get("strategy_hardware")).items():
        if name not in listed and isinstance(gates, dict) and "supported" in gates.values():
            listed.append(name)
    return listed


# --- env mappings ---------------------------------------------------------------------------


def env_mappings(data: object, document: str) -> Iterator[tuple[Pointer, dict[str, JsonValue]]]:
    """Every env mapping a document of this kind holds at a place layers.PLACES declares."""
    for place in layers.PLACES:
        if place.kind == layers.ENV and place.document == document:
            yield from _expand(data, place.pattern, ())


def _expand(
    value: object, pattern: tuple[str, ...], pointer: Pointer
) -> Iterator[tuple[Pointer, dict[str, JsonValue]]]:
    if not pattern:
        if isinstance(value, dict):
            yield pointer, value
        return
    part, rest = pattern[0], pattern[1:]
    # Only a list has tasks below it and only a mapping anything else: a walk stops at the rest.
    if part == layers.TASK:
        for index, item in enumerate(value if isinstance(value, list) else []):
            yield from _expand(item, rest, (*pointer, index))
    elif not isinstance(value, dict):
        return
    elif part == layers.ROLE:
        for role in layers.PD_ROLES:
            yield from _expand(value.get(role), rest, (*pointer, role))
    elif part.startswith("<"):  # a wildcard over the mapping's keys
        for key, item in value.items():
            yield from _expand(item, rest, (*pointer, key))
    else:
        yield from _expand(value.get(part), rest, (*pointer, part))


# --- argument units -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArgUnit:
    """A flag of an argument list as upstream's dedupe reads it, with where its items are.

    ``value`` is None for a bare flag: a falsy item is never a value, upstream drops those first.
    """

    flag: str
    index: int
    value: JsonValue = None
    value_index: int | None = None

    @property
    def name(self) -> str:
        return self.flag.split("=", 1)[0]

    @property
    def inline_value(self) -> str | None:
        return self.flag.split("=", 1)[1] if "=" in self.flag else None

    @property
    def base(self) -> str:
        """The option name before any dotted JSON sub-key."""
        return self.name.split(".", 1)[0]

    @property
    def canonical(self) -> str:
        """The option vLLM resolves this spelling to: dashes, no negation."""
        base = self.base.replace("_", "-")
        return "--" + base[5:] if base.startswith("--no-") else base

    @property
    def text_value(self) -> str | None:
        """The value as the command prints it (`String(value)`), None for a bare flag."""
        if self.value is None or isinstance(self.value, str):
            return self.value
        return js_string(self.value)


def arg_units(items: list[JsonValue]) -> list[ArgUnit]:
    """The flags of ``items`` as :func:`recipelint.argv.parse` reads them, at their item positions."""
    positions = [index for index, item in enumerate(items) if truthy(item)]
    found: list[ArgUnit] = []
    at = 0  # the next kept item: argv.parse reads only the truthy ones, in order
    for unit in argv.parse(items):
        if unit.flag is not None:
            if unit.is_bare:
                found.append(ArgUnit(unit.flag, positions[at]))
            else:
                found.append(ArgUnit(unit.flag, positions[at], unit.value, positions[at + 1]))
        at += len(unit.tokens())
    return found


Tokeniser = Callable[[list[JsonValue]], list[ArgUnit]]


class SharedUnits:
    """:func:`arg_units` of each list, computed once however many checks and commands read it,
    and once per distinct list (copied recipes and shared snippets repeat lists)."""

    def __init__(self) -> None:
        self._found: dict[int, tuple[list[JsonValue], list[ArgUnit]]] = {}
        # By the items' repr, which tells `1` from `"1"` and `true`: units are positions and text.
        self._by_value: dict[str, list[ArgUnit]] = {}

    def __call__(self, items: list[JsonValue]) -> list[ArgUnit]:
        found = self._found.get(id(items))
        if found is None or found[0] is not items:  # the list is kept: its id stays its own
            written = repr(items)
            units = self._by_value.get(written)
            if units is None:
                units = self._by_value[written] = arg_units(items)
            found = self._found[id(items)] = (items, units)
        return found[1]


# --- argument lists -----------------------------------------------------------------------


class ArgList:
    """An argument list at its place in one document, when it joins a command, and its units.

    Its pointer and scope are worked out from its layer when first asked: a run makes tens
    of thousands of these, and most are read only for their units.
    """

    __slots__ = ("doc", "items", "units", "_layer", "_pointer", "_scope")

    def __init__(self, doc: Document, layer: layers.Layer, units: list[ArgUnit]) -> None:
        self.doc = doc
        self.items: list[JsonValue] = layer.items  # type: ignore[assignment]  # lists() keeps lists
        self.units = units
        self._layer = layer
        self._pointer: Pointer | None = None
        self._scope: Scope | None = None

    @property
    def pointer(self) -> Pointer:
        if self._pointer is None:
            self._pointer = self._layer.pointer
        return self._pointer

    @property
    def scope(self) -> Scope:
        if self._scope is None:
            self._scope = self._layer.scope
        return self._scope

    def at(self, index: int) -> Pointer:
        """The pointer to one item of the list."""
        return (*self.pointer, index)

    def __repr__(self) -> str:
        return f"ArgList({self.doc.rel!r}, {self.pointer!r}, {self.items!r})"


def arg_list(doc: Document, layer: layers.Layer, tokenise: Tokeniser = arg_units) -> ArgList:
    """A list resolve.layers found in ``doc``."""
    return ArgList(doc, layer, tokenise(layer.items))  # type: ignore[arg-type]  # (a list)


def recipe_arg_lists(doc: Document, tokenise: Tokeniser = arg_units) -> Iterator[ArgList]:
    """Every args list of a recipe, at the places resolve.layers declares, with its scope."""
    for layer in layers.lists(doc.data):
        yield arg_list(doc, layer, tokenise)


def shared_arg_lists(
    strategies: dict[str, Document], kv_stores: Iterable[Document], tokenise: Tokeniser
) -> Iterator[ArgList]:
    """Strategy and kv_store files: their args join every recipe command that uses them."""
    for name, doc in strategies.items():
        for layer in layers.lists(doc.data, layers.STRATEGY_FILE, strategy=name):
            yield arg_list(doc, layer, tokenise)
    for doc in kv_stores:
        for layer in layers.lists(doc.data, layers.KV_FILE):
            yield arg_list(doc, layer, tokenise)


def taxonomy_arg_lists(taxonomy: Document | None, tokenise: Tokeniser) -> Iterator[ArgList]:
    """The taxonomy's args lists (its kv_offload options): they join the commands of the recipes
    each option applies to, as strategy and kv_store lists do."""
    if taxonomy is None or not taxonomy.usable:
        return
    for layer in layers.lists(taxonomy.data, layers.TAXONOMY):
        yield arg_list(taxonomy, layer, tokenise)


def flag_catalog(recipe: object) -> Catalog:
    """How the release a recipe's range starts at spells its options (the newest release's
    when the recipe states no release minimum)."""
    minimum = get(get(recipe, "model"), "min_vllm_version")
    if isinstance(minimum, str):
        try:
            version_key(minimum)
        except ValueError:
            return newest_catalog()
        return catalog_for(minimum.strip().lstrip("vV")) or newest_catalog()
    return newest_catalog()
