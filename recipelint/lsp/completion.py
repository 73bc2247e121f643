"""Completion: the names the tree and the flag catalogs allow at the cursor."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from recipelint.lsp import knowledge, library
from recipelint.lsp.convert import Lines
from recipelint.lsp.cursor import Cursor, Role, key_role, value_role
from recipelint.lsp.library import Document, JsonValue, RecipeTree

Kind = types.CompletionItemKind


def completion_role(cursor: Cursor, kind: str) -> Role | None:
    """A line with no value yet is a key being typed; after `key:` or `- ` it is a value."""
    if cursor.in_comment:
        return None
    if cursor.item or (cursor.key is not None and not cursor.on_key):
        return value_role(cursor, kind, typing=True)
    return key_role(cursor.path)


def complete(
    tree: RecipeTree, doc: Document, cursor: Cursor, lines: Lines, claims: Any = None
) -> list[types.CompletionItem]:
    """What may be written at the cursor. ``claims``: what the document says of itself when
    its text does not parse (see LoadedTree.claims), so that flags still come from the
    recipe's own release while a line is half typed."""
    role = completion_role(cursor, doc.kind)
    data = doc.data if doc.usable else claims
    if role is None:
        return []
    names = _candidates(tree, data, cursor, role)
    edit_range = types.Range(
        lines.position(cursor.line, cursor.word_start), lines.position(cursor.line, cursor.word_end)
    )
    return [
        types.CompletionItem(
            label=name,
            kind=kind,
            detail=detail,
            text_edit=types.TextEdit(edit_range, name),
            sort_text=f"{index:05d}",
            tags=[types.CompletionItemTag.Deprecated] if deprecated else None,
        )
        for index, (name, kind, detail, deprecated) in enumerate(names)
    ]


Candidate = tuple[str, types.CompletionItemKind, str | None, bool]


def _candidates(tree: RecipeTree, data: JsonValue, cursor: Cursor, role: Role) -> list[Candidate]:
    if role is Role.HARDWARE:
        return _hardware(tree, cursor)
    if role is Role.STRATEGY:
        strategies = knowledge.strategies(tree)
        return [(name, Kind.Module, doc.rel, False) for name, doc in strategies.items()]
    if role is Role.KV_STORE:
        return [
            (name, Kind.Module, doc.rel, False) for name, doc in knowledge.kv_stores(tree).items()
        ]
    if role is Role.VARIANT:
        return [(name, Kind.Class, "variant", False) for name in knowledge.variant_names(data)]
    if role is Role.FEATURE:
        return [
            (name, Kind.Property, "feature", False) for name in knowledge.feature_names(tree, data)
        ]
    if role is Role.MODE:
        feature = _feature_of(cursor)
        modes = knowledge.mode_names(tree, data, feature) if feature else []
        return [(name, Kind.EnumMember, f"{feature} mode", False) for name in modes]
    if role is Role.RELATED:
        return [
            (hf_id, Kind.Reference, doc.rel, False)
            for hf_id, doc in knowledge.recipe_ids(tree).items()
        ]
    if role in (Role.TASK, Role.PLATFORM, Role.KV_OFFLOAD):
        defined = knowledge.vocabulary(tree, role)
        return [(name, Kind.EnumMember, label, False) for name, label in defined.items()]
    if role is Role.FLAG:
        return _flags(data, cursor)
    if role is Role.FLAG_VALUE:
        # An empty item after a flag that takes no value starts the next flag.
        return _flag_values(data, cursor) or (_flags(data, cursor) if not cursor.word else [])
    return []


def _feature_of(cursor: Cursor) -> str | None:
    """The feature whose modes are wanted: `default_modes.<feature>: …` or `features.<feature>.modes`."""
    keys = cursor.keys
    if len(keys) >= 2 and keys[-2] == "default_modes":
        return keys[-1]
    if len(keys) >= 3 and keys[0] == "features" and keys[2] == "modes":
        return keys[1]
    return None


def _hardware(tree: RecipeTree, cursor: Cursor) -> list[Candidate]:
    found: list[Candidate] = []
    for hw_id, profile in knowledge.profiles(tree).items():
        name = profile.get("display_name") if isinstance(profile, dict) else None
        found.append((hw_id, Kind.Value, name if isinstance(name, str) else None, False))
    if cursor.path and cursor.path[-1] == "hardware_overrides":
        for group, members in knowledge.generations(tree).items():
            found.append((group, Kind.Folder, ", ".join(members), False))
    return found


def _flags(data: JsonValue, cursor: Cursor) -> list[Candidate]:
    """Every `--` flag the recipe's minimum release accepts, deprecated ones last."""
    catalog = library.flag_catalogs(data, cursor.variant).judged
    found: list[Candidate] = []
    for name in sorted(catalog.flags):
        spec = catalog.flags[name]
        detail = f"{spec.type or spec.value} · vllm {catalog.version}"
        found.append((name, Kind.Field, detail, spec.deprecated))
    return sorted(found, key=lambda item: item[3])


def _flag_values(data: JsonValue, cursor: Cursor) -> list[Candidate]:
    """The choices (or known values) of the flag on the list item above."""
    flag = (cursor.previous_item or "").split("=", 1)[0]
    if not flag.startswith("-"):
        return []
    catalog = library.flag_catalogs(data, cursor.variant).judged
    found = catalog.lookup(flag)
    if found.canonical is None:
        return []
    spec = catalog.flags[found.canonical]
    values = spec.choices or spec.values
    return [(value, Kind.EnumMember, found.canonical, False) for value in values]
