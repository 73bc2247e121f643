"""RL2xx: names that must resolve to something else in the tree.

It is long because RL2xx is one family of name lookups sharing the tree's indexes of
hardware, strategies, features, modes and models; each check in it is short.

Upstream never validates these (docs/upstream-behaviour.md#unvalidated-references): an unknown hardware id, strategy, feature
or mode is silently ignored or rendered with a fallback.  The feature-mode
checks mirror ``validateFeatureModes``, the one validator that does abort the
upstream build.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from recipelint.diagnostics import Related
from recipelint.jsvalue import UNDEFINED, JsonValue
from recipelint.read.load import Document
from recipelint.read.tree import recipe_hf_id
from recipelint.resolve.layers import PD_ROLES
from recipelint.rules.common import Pointer, as_dict, as_list, offered_strategies
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

PD_POOL_KEYS = frozenset({"tp", "tep", "dep"})


MAX_SUGGESTION_INPUT = 200


def suggestion(name: str, known: Iterable[str]) -> str | None:
    close = closest_name(name, known)
    return f"did you mean `{close}`?" if close else None


def closest_name(name: str, known: Iterable[str]) -> str | None:
    if len(name) > MAX_SUGGESTION_INPUT:
        return None  # no id is this long; fuzzy matching it only costs time
    return _closest(name, tuple(sorted(known)))


@functools.lru_cache(maxsize=4096)
def _closest(name: str, known: tuple[str, ...]) -> str | None:
    """The closest of sorted candidates (kept: a tree repeats the same dead links)."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
    return close[0] if close else None


class Suggester:
    """The closest known name for one document, up to a budget: a file of thousands of typos
    stays fast."""

    def __init__(self, known: Iterable[str], budget: int = 50):
        self.known, self.budget = sorted(known), budget

    def __call__(self, name: str) -> str | None:
        if self.budget <= 0:
            return None
        self.budget -= 1
        return closest_name(name, self.known)


# --- hardware keyspaces ---------------------------------------------------------


@dataclass(frozen=True)
class Keyspace:
    """Which kinds of hardware key one place of a recipe reads (docs/upstream-behaviour.md#hardware-keyspaces)."""

    exact: bool = False
    generation: bool = False
    nvidia: bool = False  # the brand-wide `nvidia` fallback of generation layers
    brand: bool = False
    default: bool = False

    def describe(self) -> str:
        kinds = [
            name
            for name, on in (
                ("exact hardware ids", self.exact),
                ("generations", self.generation),
                ("`nvidia`", self.nvidia and not self.brand),
                ("brands", self.brand),
                ("`default`", self.default),
            )
            if on
        ]
        return ", ".join(kinds)


EXACT = Keyspace(exact=True)
GENERATION = Keyspace(generation=True, nvidia=True)
EXACT_OR_GENERATION = Keyspace(exact=True, generation=True, nvidia=True)
MODE_SUPPORT = Keyspace(exact=True, generation=True)
FULL = Keyspace(exact=True, generation=True, nvidia=True, brand=True, default=True)


KIND_NAMES = {
    "exact": "an exact hardware",
    "generation": "a generation",
    "brand": "a brand",
    "default": "the `default`",
}


def key_kinds(key: str, ctx: CheckContext) -> set[str]:
    """What a hardware key names in the taxonomy: exact, generation, brand, default."""
    kinds: set[str] = set()
    if key in ctx.profiles:
        kinds.add("exact")
    if key in ctx.generations:
        kinds.add("generation")
    if key in ctx.brands:
        kinds.add("brand")
    if key == "default":
        kinds.add("default")
    return kinds


def accepts(space: Keyspace, key: str, kinds: set[str]) -> bool:
    return bool(
        (space.exact and "exact" in kinds)
        or (space.generation and "generation" in kinds)
        or (space.nvidia and key == "nvidia")
        or (space.brand and "brand" in kinds)
        or (space.default and "default" in kinds)
    )


@dataclass(frozen=True)
class HardwareRef:
    pointer: Pointer
    key: str
    space: Keyspace
    place: str
    at_key: bool = True


def _keys(mapping: object, pointer: Pointer, space: Keyspace, place: str) -> Iterator[HardwareRef]:
    for key in as_dict(mapping):
        yield HardwareRef(pointer + (key,), key, space, place)


def hardware_refs(data: dict[str, JsonValue]) -> Iterator[HardwareRef]:
    """Every hardware key or id a recipe writes, with the keyspace that place reads."""
    meta = as_dict(data.get("meta"))
    yield from _keys(meta.get("hardware"), ("meta", "hardware"), EXACT, "meta.hardware")
    default_hardware = meta.get("default_hardware")
    if isinstance(default_hardware, str):
        yield HardwareRef(
            ("meta", "default_hardware"),
            default_hardware,
            EXACT,
            "meta.default_hardware",
            at_key=False,
        )
    yield from _keys(
        data.get("hardware_overrides"),
        ("hardware_overrides",),
        GENERATION,
        "recipe-level hardware_overrides",
    )
    yield from _variant_refs(data)
    yield from _strategy_override_refs(data)
    yield from _feature_refs(data)
    for strategy, gates in as_dict(data.get("strategy_hardware")).items():
        yield from _keys(gates, ("strategy_hardware", strategy), FULL, "strategy_hardware")
    for kv, gates in as_dict(data.get("kv_cache_strategy_hardware")).items():
        yield from _keys(
            gates, ("kv_cache_strategy_hardware", kv), EXACT, "kv_cache_strategy_hardware"
        )
    yield from _keys(
        data.get("hardware_opt_in_features"),
        ("hardware_opt_in_features",),
        EXACT,
        "hardware_opt_in_features",
    )
    yield from _keys(data.get("hardware_notes"), ("hardware_notes",), EXACT, "hardware_notes")


def _variant_refs(data: dict[str, JsonValue]) -> Iterator[HardwareRef]:
    for name, variant in as_dict(data.get("variants")).items():
        variant = as_dict(variant)
        base = ("variants", name)
        yield from _keys(
            variant.get("hardware_overrides"),
            base + ("hardware_overrides",),
            EXACT_OR_GENERATION,
            "variant hardware_overrides",
        )
        for index, hw in enumerate(as_list(variant.get("supported_hardware"))):
            if isinstance(hw, str):
                yield HardwareRef(
                    base + ("supported_hardware", index), hw, EXACT, "supported_hardware", False
                )
        yield from _keys(variant.get("tp"), base + ("tp",), FULL, "variant tp map")


def _strategy_override_refs(data: dict[str, JsonValue]) -> Iterator[HardwareRef]:
    for strategy, override in as_dict(data.get("strategy_overrides")).items():
        override = as_dict(override)
        base = ("strategy_overrides", strategy)
        yield from _keys(
            override.get("hardware_overrides"),
            base + ("hardware_overrides",),
            EXACT_OR_GENERATION,
            "strategy_overrides hardware_overrides",
        )
        yield from _keys(override.get("tp"), base + ("tp",), FULL, "strategy_overrides tp map")
        for role in PD_ROLES:
            role_data = as_dict(override.get(role))
            yield from _keys(
                role_data.get("hardware_overrides"),
                base + (role, "hardware_overrides"),
                EXACT,
                f"pd_cluster {role} hardware_overrides",
            )


def _feature_refs(data: dict[str, JsonValue]) -> Iterator[HardwareRef]:
    for feature, spec in as_dict(data.get("features")).items():
        spec = as_dict(spec)
        base = ("features", feature)
        yield from _keys(
            spec.get("hardware_overrides"),
            base + ("hardware_overrides",),
            GENERATION,
            "feature hardware_overrides",
        )
        for mode, mode_spec in as_dict(spec.get("modes")).items():
            mode_spec = as_dict(mode_spec)
            yield from _keys(
                mode_spec.get("hardware_overrides"),
                base + ("modes", mode, "hardware_overrides"),
                FULL,
                "mode hardware_overrides",
            )
            yield from _keys(
                mode_spec.get("hardware"),
                base + ("modes", mode, "hardware"),
                MODE_SUPPORT,
                "mode hardware",
            )


def _min_gpu_findings(ctx: CheckContext, doc: Document) -> Iterator[Finding]:
    floors = as_dict(doc.data).get("strategy_min_gpus")
    for key, value in as_dict(floors).items():
        if key in PD_POOL_KEYS:
            continue  # a PD pool's floor, read through its parallelism (tp, tep, dep)
        if key in ctx.strategies or key in ctx.profiles:
            if key in ctx.profiles:
                for strategy in as_dict(value):
                    if strategy not in ctx.strategies:
                        yield _unknown_strategy(
                            doc, ("strategy_min_gpus", key, strategy), strategy, ctx
                        )
            continue
        kinds = key_kinds(key, ctx)
        if kinds:
            yield Finding(
                doc,
                ("strategy_min_gpus", key),
                f"strategy_min_gpus key `{key}` is {'/'.join(KIND_NAMES[k] for k in sorted(kinds))} key; "
                "this map reads only "
                "strategy ids and exact hardware ids, so the floor is ignored",
                "key the floor by each exact hardware id of that family",
                at_key=True,
                code="RL202",
            )
        else:
            yield Finding(
                doc,
                ("strategy_min_gpus", key),
                f"strategy_min_gpus key `{key}` is neither a strategy nor a hardware profile",
                suggestion(key, [*ctx.strategies, *ctx.profiles]),
                at_key=True,
                code="RL201",
            )


@check("RL201", "RL202")
def hardware_keys(ctx: CheckContext) -> Iterator[Finding]:
    known = [*ctx.profiles, *ctx.generations, *ctx.brands, "nvidia", "default"]
    for doc in ctx.recipes:
        if not isinstance(doc.data, dict):
            continue
        suggest = Suggester(known)
        for ref in hardware_refs(doc.data):
            kinds = key_kinds(ref.key, ctx)
            if accepts(ref.space, ref.key, kinds):
                continue
            if kinds or ref.key == "nvidia":
                what = "/".join(KIND_NAMES[k] for k in sorted(kinds)) or "brand"
                yield Finding(
                    doc,
                    ref.pointer,
                    f"`{ref.key}` is {what} key, but {ref.place} reads only {ref.space.describe()}: "
                    "this entry is silently ignored",
                    _keyspace_hint(ref, ctx),
                    at_key=ref.at_key,
                    code="RL202",
                )
            else:
                yield Finding(
                    doc,
                    ref.pointer,
                    f"`{ref.key}` in {ref.place} names no hardware profile, generation or brand "
                    "in taxonomy.yaml",
                    _unknown_hardware_hint(ref, suggest(ref.key)),
                    at_key=ref.at_key,
                    code="RL201",
                )
        yield from _min_gpu_findings(ctx, doc)
        yield from _precision_hardware(ctx, doc)


def _unknown_hardware_hint(ref: HardwareRef, close: str | None) -> str:
    """Both readings of an unknown hardware key: a hardware id one character from a known one
    is as often another product (`h20` beside `h200`, `a100` beside `h100`) as a typo."""
    add = "add its profile there" if ref.space.exact else "add a profile of it there"
    other = f"`{ref.key}` is hardware taxonomy.yaml does not describe, {add}"
    if close:
        return f"did you mean `{close}`? If {other} instead"
    return f"if {other}; otherwise remove it"


def _keyspace_hint(ref: HardwareRef, ctx: CheckContext) -> str:
    if ref.space.exact and not ref.space.generation:
        members = sorted(hw for hw, p in ctx.profiles.items() if ref.key in _profile_keys(p))
        listed = ", ".join(members[:6]) + (", …" if len(members) > 6 else "")
        return (
            f"list the exact hardware ids instead ({listed})"
            if members
            else "use an exact hardware id"
        )
    return f"use one of: {ref.space.describe()}"


def _profile_keys(profile: object) -> set[str]:
    profile = as_dict(profile)
    keys: set[str] = set()
    gen = profile.get("generation") or profile.get("gpu_generation")
    keys.update(g for g in (gen if isinstance(gen, list) else [gen]) if isinstance(g, str))
    brand = profile.get("brand")
    if isinstance(brand, str):
        keys.add(brand.lower())
    return keys


def _precision_hardware(ctx: CheckContext, doc: Document) -> Iterator[Finding]:
    brands = {
        p.get("brand")
        for p in ctx.profiles.values()
        if isinstance(p, dict) and isinstance(p.get("brand"), str)
    }  # a hostile brand may be a mapping
    for name, variant in as_dict(as_dict(doc.data).get("variants")).items():
        constraint = as_dict(as_dict(variant).get("precision_hardware"))
        pointer = ("variants", name, "precision_hardware")
        brand, gen = constraint.get("brand"), constraint.get("generation")
        if isinstance(brand, str) and brand not in brands:
            yield Finding(
                doc,
                pointer + ("brand",),
                f"precision_hardware brand `{brand}` matches no profile (brands compare exactly, "
                "case included), so the variant runs on no hardware",
                suggestion(brand, [b for b in brands if isinstance(b, str)]),
                code="RL201",
            )
        if isinstance(gen, str) and gen not in ctx.generations:
            yield Finding(
                doc,
                pointer + ("generation",),
                f"precision_hardware generation `{gen}` is no taxonomy generation, so the variant "
                "runs on no hardware",
                suggestion(gen, ctx.generations),
                code="RL201",
            )


# --- strategies -------------------------------------------------------------------


def _unknown_strategy(
    doc: Document, pointer: Pointer, name: str, ctx: CheckContext, at_key: bool = True
) -> Finding:
    where = (
        "a kv_store topology, not a serving strategy"
        if name in ctx.kv_stores
        else "no strategy file"
    )
    return Finding(
        doc,
        pointer,
        f"strategy `{name}` names {where}: upstream renders unknown ids as single-node TP",
        suggestion(name, ctx.strategies),
        at_key=at_key,
        code="RL203",
    )


def strategy_refs(data: dict[str, JsonValue]) -> Iterator[tuple[Pointer, JsonValue, bool]]:
    """(pointer, name, at_key) of every strategy id a recipe writes."""
    for index, name in enumerate(as_list(data.get("compatible_strategies"))):
        yield ("compatible_strategies", index), name, False
    if "default_strategy" in data:
        yield ("default_strategy",), data["default_strategy"], False
    for section in ("strategy_overrides", "strategy_hardware"):
        for name in as_dict(data.get(section)):
            yield (section, name), name, True
    for feature, spec in as_dict(data.get("features")).items():
        for index, name in enumerate(as_list(as_dict(spec).get("strategies"))):
            yield ("features", feature, "strategies", index), name, False


@check("RL203")
def unknown_strategies(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        if not isinstance(doc.data, dict):
            continue
        for pointer, name, at_key in strategy_refs(doc.data):
            if not isinstance(name, str) or name in ctx.strategies:
                continue
            # Listing a kv topology in compatible_strategies is harmless upstream (it is de-duplicated).
            if pointer[0] == "compatible_strategies" and name in ctx.kv_stores:
                continue
            yield _unknown_strategy(doc, pointer, name, ctx, at_key)


@check("RL204")
def unknown_kv_stores(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        if not isinstance(doc.data, dict):
            continue
        for name in as_dict(doc.data.get("kv_cache_strategy_hardware")):
            if name not in ctx.kv_stores:
                yield Finding(
                    doc,
                    ("kv_cache_strategy_hardware", name),
                    f"`{name}` is no kv_store topology: the opt-out is ignored",
                    suggestion(name, ctx.kv_stores),
                    at_key=True,
                )


@check("RL214")
def default_strategy_not_offered(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        default = data.get("default_strategy")
        if not isinstance(default, str) or default not in ctx.strategies:
            continue
        if default not in offered_strategies(data):
            yield Finding(
                doc,
                ("default_strategy",),
                f"default_strategy `{default}` is not in compatible_strategies (nor opted in through "
                "strategy_hardware), so it is never recommended",
                "add it to compatible_strategies",
            )


@check("RL211")
def strategy_outside_vocabulary(ctx: CheckContext) -> Iterator[Finding]:
    taxonomy = ctx.tree.taxonomy
    if taxonomy is None or not taxonomy.usable or not isinstance(taxonomy.data, dict):
        return
    vocabulary = taxonomy.data.get("strategies")
    if not isinstance(vocabulary, list):
        return
    for doc in ctx.tree.strategies:
        if not ctx.in_focus(doc):
            continue
        name = doc.data.get("name") if doc.usable and isinstance(doc.data, dict) else None
        if isinstance(name, str) and name not in vocabulary:
            yield Finding(
                doc,
                ("name",),
                f"strategy `{name}` is not listed in taxonomy.yaml `strategies`",
                "add it to the taxonomy's strategies list, or fix the name",
            )
        stem = doc.path.name.removesuffix(".yaml")
        if isinstance(name, str) and name != stem:
            yield Finding(
                doc,
                ("name",),
                f"strategy file `{doc.path.name}` declares name `{name}`: upstream publishes it under "
                "the name, so the file name misleads",
                f"rename the file to `{name}.yaml`",
            )


# --- features and modes -------------------------------------------------------------


@check("RL205")
def unknown_features(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        features = as_dict(data.get("features"))
        refs: list[tuple[Pointer, JsonValue]] = [
            (("opt_in_features", i), f) for i, f in enumerate(as_list(data.get("opt_in_features")))
        ]
        for hw, names in as_dict(data.get("hardware_opt_in_features")).items():
            refs.extend(
                (("hardware_opt_in_features", hw, i), f) for i, f in enumerate(as_list(names))
            )
        for pointer, name in refs:
            if isinstance(name, str) and name not in features:
                yield Finding(
                    doc,
                    pointer,
                    f"opt-in feature `{name}` is not declared under features",
                    suggestion(name, features),
                )


def _variant_keys(data: dict[str, JsonValue]) -> dict[str, JsonValue]:
    return as_dict(data.get("variants"))


def _mode_allows(mode: object, variant: str) -> bool:
    allow = as_dict(mode).get("variants")
    return not isinstance(allow, list) or not allow or variant in allow


@check("RL212")
def malformed_modes(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        for feature, spec in as_dict(data.get("features")).items():
            if not isinstance(spec, dict) or "modes" not in spec:
                continue
            base = ("features", feature)
            modes = spec["modes"]
            if not isinstance(modes, dict) or not modes:
                yield Finding(
                    doc,
                    base + ("modes",),
                    f"features.{feature}.modes must be a non-empty map (upstream aborts the build)",
                )
                continue
            if "args" in spec:
                yield Finding(
                    doc,
                    base + ("args",),
                    f"features.{feature} declares both args and modes; upstream aborts the build",
                    "move the args into a mode",
                    at_key=True,
                )
            for name, mode in modes.items():
                if not isinstance(as_dict(mode).get("args"), list):
                    yield Finding(
                        doc,
                        base + ("modes", name),
                        f"mode `{name}` of {feature} has no args list (upstream aborts the build)",
                        "give the mode an `args:` list",
                        at_key=True,
                    )
                mode_variants = as_dict(mode).get("variants", UNDEFINED)
                if mode_variants is not UNDEFINED and not isinstance(mode_variants, list):
                    yield Finding(
                        doc,
                        base + ("modes", name, "variants"),
                        f"mode `{name}` of {feature}: variants must be a list (upstream aborts the build)",
                    )


def _modal_features(
    features: dict[str, JsonValue],
) -> Iterator[tuple[str, dict[str, JsonValue], dict[str, JsonValue]]]:
    """(name, spec, modes) of every feature that declares modes."""
    for feature, spec in features.items():
        modes = as_dict(as_dict(spec).get("modes"))
        if modes:
            yield feature, as_dict(spec), modes  # spec is a mapping: it has modes


def _features_and_variants(doc: Document) -> tuple[dict[str, JsonValue], dict[str, JsonValue]]:
    data = doc.data if isinstance(doc.data, dict) else {}
    return as_dict(data.get("features")), _variant_keys(data)


@check("RL206", "RL207")
def unknown_modes(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        features, variants = _features_and_variants(doc)
        for feature, spec, modes in _modal_features(features):
            default = spec.get("default_mode")
            if default and (not isinstance(default, str) or default not in modes):
                yield Finding(
                    doc,
                    ("features", feature, "default_mode"),
                    f"default_mode `{default}` is not a mode of {feature} (upstream aborts the build)",
                    suggestion(str(default), modes),
                    code="RL206",
                )
            for name, mode in modes.items():
                for index, variant in enumerate(as_list(as_dict(mode).get("variants"))):
                    if not isinstance(variant, str) or variant not in variants:
                        yield Finding(
                            doc,
                            ("features", feature, "modes", name, "variants", index),
                            f"mode `{name}` of {feature} names unknown variant `{variant}` "
                            "(upstream aborts the build)",
                            suggestion(str(variant), variants),
                            code="RL207",
                        )
        yield from _default_mode_refs(doc, features, variants)


def _default_mode_refs(
    doc: Document, features: dict[str, JsonValue], variants: dict[str, JsonValue]
) -> Iterator[Finding]:
    for variant, spec in variants.items():
        for feature, mode in as_dict(as_dict(spec).get("default_modes")).items():
            pointer = ("variants", variant, "default_modes", feature)
            target = features.get(feature)
            if not target:
                yield Finding(
                    doc,
                    pointer,
                    f"default_modes names unknown feature `{feature}` (upstream aborts the build)",
                    suggestion(feature, features),
                    at_key=True,
                    code="RL206",
                )
            elif not as_dict(target).get("modes"):
                yield Finding(
                    doc,
                    pointer,
                    f"default_modes names `{feature}`, which has no modes (upstream "
                    "aborts the build)",
                    "turn the feature's args into a mode",
                    at_key=True,
                    code="RL206",
                )
            elif not isinstance(mode, str) or mode not in as_dict(as_dict(target)["modes"]):
                yield Finding(
                    doc,
                    pointer,
                    f"default_modes selects unknown mode `{mode}` of {feature} "
                    "(upstream aborts the build)",
                    suggestion(str(mode), as_dict(as_dict(target)["modes"])),
                    code="RL206",
                )


@check("RL213")
def variants_without_mode(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        features, variants = _features_and_variants(doc)
        for feature, _spec, modes in _modal_features(features):
            for variant in variants:
                if not any(_mode_allows(mode, variant) for mode in modes.values()):
                    yield Finding(
                        doc,
                        ("features", feature, "modes"),
                        f"no mode of {feature} is available for variant `{variant}` "
                        "(upstream aborts the build)",
                        f"add `{variant}` to a mode's variants, or drop that list",
                        at_key=True,
                    )
        for variant, spec in variants.items():
            for feature, mode in as_dict(as_dict(spec).get("default_modes")).items():
                mode_spec = (
                    as_dict(as_dict(features.get(feature)).get("modes")).get(mode)
                    if isinstance(mode, str)
                    else None
                )
                if isinstance(mode_spec, dict) and not _mode_allows(mode_spec, variant):
                    yield Finding(
                        doc,
                        ("variants", variant, "default_modes", feature),
                        f"default_modes selects `{mode}`, which mode `{mode}`'s variants list does not "
                        f"offer to `{variant}` (upstream aborts the build)",
                        f"add `{variant}` to features.{feature}.modes.{mode}.variants",
                    )


# --- recipes and ids ----------------------------------------------------------------------


@check("RL208")
def related_recipes(ctx: CheckContext) -> Iterator[Finding]:
    lowered = {hf.lower(): hf for hf in ctx.hf_ids}
    for doc in ctx.recipes:
        meta = as_dict(doc.data.get("meta")) if isinstance(doc.data, dict) else {}
        own = recipe_hf_id(doc.rel)
        for index, related in enumerate(as_list(meta.get("related_recipes"))):
            if not isinstance(related, str) or related in ctx.hf_ids:
                continue
            near = lowered.get(related.lower())
            hint: str | None
            if near is not None and near != own:
                hint = f"the recipe is `{near}` (ids are case-sensitive)"
            else:
                hint = _respelling(related, ctx.hf_ids, own)
            yield Finding(
                doc,
                ("meta", "related_recipes", index),
                f"related recipe `{related}` is not a recipe in this tree: the link is dead",
                hint,
            )


MAX_RESPELLING_EDITS = 2


def _respelling(name: str, known: Iterable[str], own: str | None) -> str | None:
    """Only a near-identical spelling of another recipe's id: a similar id is a different model
    (Qwen3-8B is not Qwen3-4B), and the recipe's own id is never a related recipe."""
    if len(name) > MAX_SUGGESTION_INPUT:
        return None
    close = [
        hf
        for hf in known
        if hf != own
        and abs(len(hf) - len(name)) <= MAX_RESPELLING_EDITS
        and _edits(name.lower(), hf.lower()) <= MAX_RESPELLING_EDITS
    ]
    if len(close) != 1 or _differs_in_digits(name, close[0]):
        return None  # two candidates, or a different size or version: no safe guess
    return f"did you mean `{close[0]}`?"


def _differs_in_digits(one: str, other: str) -> bool:
    return [c for c in one if c.isdigit()] != [c for c in other if c.isdigit()]


def _edits(one: str, other: str) -> int:
    """Levenshtein distance, or MAX_RESPELLING_EDITS + 1 for anything further: only cells
    within that many of the diagonal can be on a path that cheap (Ukkonen's band)."""
    limit = MAX_RESPELLING_EDITS
    beyond = limit + 1
    if abs(len(one) - len(other)) > limit:
        return beyond
    width = len(other)
    previous = [j if j <= limit else beyond for j in range(width + 1)]
    for i, a in enumerate(one, start=1):
        low, high = max(1, i - limit), min(width, i + limit)
        current = [beyond] * (width + 1)
        current[0] = i if i <= limit else beyond
        for j in range(low, high + 1):
            current[j] = min(
                previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != other[j - 1])
            )
        if min(current[low - 1 : high + 1]) > limit:
            return beyond
        previous = current
    return min(previous[width], beyond)


@check("RL209")
def model_id_matches_path(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        expected = recipe_hf_id(doc.rel)
        model = as_dict(doc.data.get("model")) if isinstance(doc.data, dict) else {}
        model_id = model.get("model_id")
        if expected and isinstance(model_id, str) and model_id != expected:
            yield Finding(
                doc,
                ("model", "model_id"),
                f"model.model_id `{model_id}` does not match the file path, which publishes the "
                f"recipe as `{expected}`",
                f"rename the file to models/{model_id}.yaml, or fix the id",
            )


SLUG: Pointer = ("meta", "slug")


@check("RL210")
def duplicate_slugs(ctx: CheckContext) -> Iterator[Finding]:
    """Every recipe of a shared slug in focus gets its own finding, so a check of one of them
    (a pre-commit run on a new copy) reports what a check of the whole tree reports for it."""
    sharing: dict[str, list[Document]] = {}
    for doc in ctx.all_recipes:  # every recipe holds a slug; only the files in focus get findings
        slug = as_dict(doc.data.get("meta")).get("slug") if isinstance(doc.data, dict) else None
        if isinstance(slug, str):
            sharing.setdefault(slug, []).append(doc)
    for slug, docs in sharing.items():
        first, *later = docs
        if later and ctx.in_focus(first):
            yield _slug_finding(first, slug, later, "also")
        for doc in later:
            if ctx.in_focus(doc):
                yield _slug_finding(doc, slug, [first], "already")


def _slug_finding(doc: Document, slug: str, others: list[Document], how: str) -> Finding:
    more = len(others) - 1
    elsewhere = f" and {more} other recipe{'s' * (more != 1)}" if more else ""
    return Finding(
        doc,
        SLUG,
        f"slug `{slug}` is {how} used by {others[0].rel}{elsewhere}",
        "give each recipe its own slug",
        related=tuple(
            Related(other.path, other.span(SLUG), f"slug `{slug}` is used here too", SLUG)
            for other in others
        ),
    )
