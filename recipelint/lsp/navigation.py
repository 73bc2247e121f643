"""Go to definition (strategies, kv stores, hardware profiles, related recipes) and the outline."""

from __future__ import annotations

from lsprotocol import types

from recipelint.lsp import knowledge, library
from recipelint.lsp.convert import Lines, path_uri
from recipelint.lsp.cursor import Cursor, Role, role_of
from recipelint.lsp.library import Document, JsonValue, RecipeTree

Symbol = types.SymbolKind
# Outline sections of a recipe: the key, its symbol kind, and the kind of each entry under it.
SECTIONS: tuple[tuple[str, types.SymbolKind, types.SymbolKind], ...] = (
    ("variants", Symbol.Namespace, Symbol.Class),
    ("features", Symbol.Namespace, Symbol.Function),
    ("hardware_overrides", Symbol.Namespace, Symbol.Object),
    ("strategy_overrides", Symbol.Namespace, Symbol.Object),
)
# Entries whose own overrides are listed under them in the outline.
NESTED = ("hardware_overrides", "modes")


def definition(tree: RecipeTree, current: Document, cursor: Cursor) -> types.Location | None:
    role = role_of(cursor, current.kind)
    word = cursor.word
    target: tuple[Document, tuple[str | int, ...]] | None = None
    if role in (Role.STRATEGY, Role.KV_STORE):
        doc = knowledge.strategies(tree).get(word) or knowledge.kv_stores(tree).get(word)
        target = (doc, ("name",)) if doc is not None else None
    elif role is Role.HARDWARE and word in knowledge.profiles(tree) and tree.taxonomy is not None:
        target = (tree.taxonomy, ("hardware_profiles", word))
    elif role is Role.RELATED:
        doc = knowledge.recipe_ids(tree).get(word)
        target = (doc, ()) if doc is not None else None
    if target is None:
        return None
    doc, pointer = target
    span = doc.key_span(pointer) if pointer else library.Span(1, 1, 1, 1)
    return types.Location(path_uri(doc.path), Lines(doc.text).span_range(span))


def outline(doc: Document) -> list[types.DocumentSymbol]:
    """Variants, features and overrides of a recipe, with the overrides and modes inside them."""
    if not doc.usable or not isinstance(doc.data, dict):
        return []
    lines = Lines(doc.text)
    symbols = []
    for key, kind, entry_kind in SECTIONS:
        if isinstance(doc.data.get(key), dict) and doc.has_position((key,)):
            children = _entries(doc, lines, (key,), entry_kind)
            symbols.append(_symbol(doc, lines, (key,), kind, children))
    return symbols


def _entries(
    doc: Document, lines: Lines, pointer: tuple[str, ...], kind: types.SymbolKind
) -> list[types.DocumentSymbol]:
    value = library.value_at(doc.data, pointer)
    entries = []
    for name, entry in (value if isinstance(value, dict) else {}).items():
        here = (*pointer, name)
        if not doc.has_position(here):
            continue
        children = [
            _symbol(
                doc,
                lines,
                (*here, nested),
                Symbol.Namespace,
                _entries(doc, lines, (*here, nested), Symbol.Object),
            )
            for nested in NESTED
            if isinstance(_get(entry, nested), dict) and doc.has_position((*here, nested))
        ]
        entries.append(_symbol(doc, lines, here, kind, children))
    return entries


def _get(value: JsonValue, key: str) -> JsonValue:
    return value.get(key) if isinstance(value, dict) else None


def _symbol(
    doc: Document,
    lines: Lines,
    pointer: tuple[str, ...],
    kind: types.SymbolKind,
    children: list[types.DocumentSymbol],
) -> types.DocumentSymbol:
    key, value = doc.key_span(pointer), doc.span(pointer)
    whole = library.Span(
        key.line, key.column, value.end_line or key.end_line, value.end_column or key.end_column
    )
    return types.DocumentSymbol(
        name=str(pointer[-1]),
        kind=kind,
        range=lines.span_range(whole),
        selection_range=lines.span_range(key),
        children=children or None,
    )
