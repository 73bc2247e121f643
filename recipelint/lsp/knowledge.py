"""What the loaded tree knows that an author asks about: ids, profiles and combinations."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from recipelint.lsp import library
from recipelint.lsp.cursor import Cursor, Role
from recipelint.lsp.library import Document, JsonValue, RecipeTree


def _mapping(value: object) -> dict[str, JsonValue]:
    return value if isinstance(value, dict) else {}


def profiles(tree: RecipeTree) -> dict[str, JsonValue]:
    return library.profiles_of(tree)


def generations(tree: RecipeTree) -> dict[str, list[str]]:
    """Each generation and brand (lower-cased, as overrides name it) with its profiles."""
    groups: dict[str, list[str]] = {}
    for hw_id, profile in profiles(tree).items():
        for group in _groups(_mapping(profile)):
            groups.setdefault(group, []).append(hw_id)
    return groups


def _groups(profile: dict[str, JsonValue]) -> list[str]:
    found: list[str] = []
    for key in ("generation", "gpu_generation"):
        value = profile.get(key)
        found += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
    brand = profile.get("brand")
    return found + ([brand.lower()] if isinstance(brand, str) else [])


def strategies(tree: RecipeTree) -> dict[str, Document]:
    return dict(library.named_documents(tree.strategies))


def kv_stores(tree: RecipeTree) -> dict[str, Document]:
    return dict(library.named_documents(tree.kv_stores))


def recipe_ids(tree: RecipeTree) -> dict[str, Document]:
    ids: dict[str, Document] = {}
    for doc in tree.recipes:
        hf_id = library.recipe_hf_id(doc.rel)
        if hf_id is not None:
            ids.setdefault(hf_id, doc)
    return ids


def feature_names(tree: RecipeTree, data: JsonValue) -> list[str]:
    """The recipe's own features first, then those other recipes of the tree use, most used first."""
    own = list(_mapping(_mapping(data).get("features")))
    used: Counter[str] = Counter()
    for doc in tree.recipes:
        used.update(_mapping(_mapping(doc.data).get("features")))
    return own + [name for name, _ in used.most_common() if name not in own]


def mode_names(tree: RecipeTree, data: JsonValue, feature: str) -> list[str]:
    """The feature's modes in this recipe, then the modes other recipes give a feature so named."""
    own = list(_mapping(_feature(data, feature).get("modes")))
    used: Counter[str] = Counter()
    for doc in tree.recipes:
        used.update(_mapping(_feature(doc.data, feature).get("modes")))
    return own + [name for name, _ in used.most_common() if name not in own]


def _feature(data: JsonValue, name: str) -> dict[str, JsonValue]:
    return _mapping(_mapping(_mapping(data).get("features")).get(name))


def vocabulary(tree: RecipeTree, role: Role) -> dict[str, str | None]:
    """Ids the tree-wide files define for a role, with their display names: the taxonomy's
    tasks and kv offload options, the platforms of platforms.yaml."""
    taxonomy = _mapping(tree.taxonomy.data if tree.taxonomy is not None else None)
    platforms = _mapping(tree.platforms.data if tree.platforms is not None else None)
    if role is Role.TASK:
        return _listed_ids(taxonomy.get("tasks"), "display_name")
    if role is Role.PLATFORM:
        return _listed_ids(platforms.get("platforms"), "name")
    if role is Role.KV_OFFLOAD:
        options = _mapping(taxonomy.get("kv_offload"))
        return {
            str(key): _text(_mapping(value).get("display_name")) for key, value in options.items()
        }
    return {}


def _listed_ids(entries: JsonValue, label: str) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for item in entries if isinstance(entries, list) else []:
        entry = _mapping(item)
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            found.setdefault(entry_id, _text(entry.get(label)))
    return found


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def variant_names(data: JsonValue) -> list[str]:
    return list(_mapping(_mapping(data).get("variants")))


# ---------------------------------------------------------------- the combination under the cursor


@dataclass(frozen=True)
class CursorRendering:
    """The variant, hardware and strategy the cursor stands for (one of the renderings the
    compiler makes, :class:`recipelint.resolve.command.Combination`, named by its choices)."""

    variant: str
    hardware: str
    strategy: str


def rendering_at(
    tree: RecipeTree, data: JsonValue, cursor: Cursor, role: Role | None
) -> CursorRendering:
    """The rendering an author at this place most likely means: the variant, hardware and
    strategy the cursor names or is inside; for the rest, those the API publishes first
    (the variant's default hardware, the recipe's recommended strategy)."""
    path = cursor.path + ((cursor.word,) if cursor.on_key else ())
    variant = _variant(data, cursor, role, path)
    return CursorRendering(
        variant,
        _hardware(tree, data, variant, cursor, role, path),
        _strategy(tree, data, cursor, role, path),
    )


def _after(path: tuple[str, ...], key: str) -> str | None:
    """The key just inside the first ``key`` of ``path``."""
    if key in path:
        index = path.index(key)
        return path[index + 1] if index + 1 < len(path) else None
    return None


def _variant(data: JsonValue, cursor: Cursor, role: Role | None, path: tuple[str, ...]) -> str:
    names = variant_names(data)
    if role is Role.VARIANT and cursor.word in names:
        return cursor.word
    named = path[1] if len(path) >= 2 and path[0] == "variants" else None
    if named in names:
        return str(named)
    return "default" if "default" in names or not names else names[0]


def _hardware(
    tree: RecipeTree,
    data: JsonValue,
    variant: str,
    cursor: Cursor,
    role: Role | None,
    path: tuple[str, ...],
) -> str:
    known = profiles(tree)
    default = library.default_hardware(tree, data, variant)
    candidates = [cursor.word] if role is Role.HARDWARE else []
    candidates += [key for key in (_after(path, "hardware_overrides"),) if key]
    for candidate in candidates:
        if candidate in known:
            return candidate
        group = generations(tree).get(candidate, [])
        if default in group:
            return str(default)
        if group:
            return group[0]
    return default or next(iter(known), "")


def _strategy(
    tree: RecipeTree, data: JsonValue, cursor: Cursor, role: Role | None, path: tuple[str, ...]
) -> str:
    serving = strategies(tree)
    candidates: list[str | None] = [cursor.word] if role is Role.STRATEGY else []
    candidates += [key for key in (_after(path, "strategy_overrides"),) if key]
    candidates.append(library.default_strategy(data))
    for candidate in candidates:
        if isinstance(candidate, str) and candidate in serving:
            return candidate
    return next(iter(serving), "")
