"""Which hardware a variant can land on, and which one it lands on by default.

Upstream: docs/upstream-behaviour.md#hardware-keyspaces, #compatible-hardware, #default-hardware and
#non-scalable-hardware.
"""

from __future__ import annotations

from typing import NamedTuple

from recipelint.jsvalue import (
    UNDEFINED,
    JsonValue,
    JsValue,
    coalesce,
    get,
    is_number,
    js_in,
    js_le,
    js_number,
    js_or,
    js_string,
    js_times,
    truthy,
)
from recipelint.read.recipedata import Recipe
from recipelint.resolve.collation import icu_root_key

# Built-in precision constraints; a variant's `precision_hardware` replaces them.
_PRECISION_CONSTRAINTS: dict[str, JsonValue] = {
    "nvfp4": {"brand": "NVIDIA", "generation": "blackwell"},
    "fp4": {"brand": "NVIDIA", "generation": "blackwell"},
}
_BRAND_RANK = {"NVIDIA": 0, "AMD": 1}


def generation_of(profile: JsValue) -> JsValue:
    """The profile's generation key (first element when it lists several)."""
    gen = js_or(get(profile, "generation"), get(profile, "gpu_generation"))
    if type(gen) is list:
        return gen[0] if gen else UNDEFINED
    return gen


def is_nvidia(profile: JsValue) -> bool:
    return bool(get(profile, "brand") == "NVIDIA")


def gpu_count_of(profile: JsValue, fallback: int = 1) -> int | float:
    count = get(profile, "gpu_count")
    return count if is_number(count) else fallback


def hardware_keyed_value(table: JsValue, profile: JsValue, hw_id: str | None) -> JsValue:
    """Exact id, then generation, then lower-case brand, then `default` (skipping nulls).

    The first keyspace of docs/upstream-behaviour.md#hardware-keyspaces.
    """
    # only a mapping is looked up; an empty one needs no guard (JS's `{}` is truthy, and its
    # lookups below find nothing either)
    if type(table) is not dict:
        return UNDEFINED
    gen = generation_of(profile)
    brand = get(profile, "brand")
    brand_key = brand.lower() if type(brand) is str else None
    candidates = (
        table.get(hw_id, UNDEFINED) if hw_id is not None else UNDEFINED,
        table.get(js_string(gen), UNDEFINED) if truthy(gen) else UNDEFINED,
        table.get(brand_key, UNDEFINED) if brand_key else UNDEFINED,
        table.get("default", UNDEFINED),
    )
    return coalesce(*candidates)


def hardware_key(table: JsValue, profile: JsValue, hw_id: str | None) -> str | None:
    """The key whose value hardware_keyed_value returns, or None when every candidate is null."""
    if type(table) is not dict or not truthy(table):
        return None
    gen = generation_of(profile)
    brand = get(profile, "brand")
    brand_key = brand.lower() if type(brand) is str else None
    candidates = (
        hw_id if hw_id is not None else None,
        js_string(gen) if truthy(gen) else None,
        brand_key if truthy(brand_key) else None,
        "default",
    )
    for key in candidates:
        if key is not None and table.get(key) is not None:  # `??` skips null and missing keys alike
            return key
    return None


def precision_constraint(variant: JsValue) -> JsValue:
    explicit = get(variant, "precision_hardware")
    if truthy(explicit):
        return explicit
    precision = get(variant, "precision")
    if type(precision) is str:
        return _PRECISION_CONSTRAINTS.get(precision, UNDEFINED)
    return UNDEFINED


def matches_constraint(profile: JsValue, constraint: JsValue) -> bool:
    wanted = _Wanted.of(constraint)
    return wanted is None or wanted.matches(profile)


def is_hardware_supported(recipe: Recipe, hw_id: str) -> bool:
    return bool(get(get(recipe.get("meta", UNDEFINED), "hardware"), hw_id) != "unsupported")


def is_variant_hardware_supported(variant: JsValue, hw_id: str) -> bool:
    supported = get(variant, "supported_hardware")
    return type(supported) is not list or not supported or hw_id in supported


def is_scalable(profile: JsValue) -> bool:
    return get(profile, "scalable") is not False


def fits_single_node(profile: JsValue, variant: JsValue) -> bool:
    node_vram = get(profile, "vram_gb")
    node_vram = node_vram if is_number(node_vram) else 0
    model_vram = js_or(get(variant, "vram_minimum_gb"), 0)
    if js_le(model_vram, 0) or node_vram <= 0:
        return True
    return js_le(model_vram, node_vram)


def pd_fits_single_node(profile: JsValue, variant: JsValue) -> bool:
    """Co-located PD halves the node, so it must hold the model twice, on 2+ GPUs."""
    if not truthy(profile) or not truthy(variant):
        return False
    gpus = gpu_count_of(profile, 0)
    if gpus < 2:
        return False
    node_vram = get(profile, "vram_gb")
    node_vram = node_vram if is_number(node_vram) else 0
    return node_vram >= js_times(2, js_or(get(variant, "vram_minimum_gb"), 0))


def is_kv_store_brand_supported(profile: JsValue) -> bool:
    return get(profile, "brand") in ("NVIDIA", "AMD")


def _declared_hardware(recipe: Recipe) -> JsValue:
    return js_or(get(recipe.get("meta", UNDEFINED), "hardware"), {})


def _selectable(
    recipe: Recipe, variant: JsValue, hw_id: str, profile: JsValue, constraint: JsValue
) -> bool:
    return (
        matches_constraint(profile, constraint)
        and is_hardware_supported(recipe, hw_id)
        and is_variant_hardware_supported(variant, hw_id)
    )


def list_compatible_hardware(
    profiles: dict[str, JsonValue], variant: JsValue, recipe: Recipe
) -> list[str]:
    """Precision-compatible, not opted out, allowed by the variant: in taxonomy order.

    docs/upstream-behaviour.md#compatible-hardware.
    """
    constraint = precision_constraint(variant)
    opted = get(
        recipe.get("meta", UNDEFINED), "hardware"
    )  # is_hardware_supported's table, read once
    supported = get(variant, "supported_hardware")  # is_variant_hardware_supported's list
    allowed = supported if type(supported) is list and supported else None
    # matches_constraint with the constraint read once: most variants constrain nothing
    wanted = _Wanted.of(constraint)
    return [
        hw
        for hw, p in profiles.items()
        if (wanted is None or wanted.matches(p))
        and get(opted, hw) != "unsupported"
        and (allowed is None or hw in allowed)
    ]


class _Wanted(NamedTuple):
    """What a truthy precision constraint asks of a profile, read once for every profile."""

    brand: JsValue  # UNDEFINED (or falsy) when any brand will do
    generation: JsValue

    @classmethod
    def of(cls, constraint: JsValue) -> _Wanted | None:
        """None when the constraint holds for every profile (matches_constraint's first test)."""
        if not truthy(constraint):
            return None
        return cls(get(constraint, "brand"), get(constraint, "generation"))

    def matches(self, profile: JsValue) -> bool:
        """Whether the profile has the brand and the generation asked for (upstream's
        matchesConstraint, docs/upstream-behaviour.md#compatible-hardware)."""
        brand = self.brand
        if truthy(brand) and get(profile, "brand") != brand:
            return False
        generation = self.generation
        if truthy(generation):
            profile_gen = js_or(get(profile, "generation"), get(profile, "gpu_generation"))
            gens = profile_gen if type(profile_gen) is list else [profile_gen]
            if generation not in gens:
                return False
        return True


def pick_default_hardware(profiles: dict[str, JsonValue], variant: JsValue, recipe: Recipe) -> str:
    constraint = precision_constraint(variant)
    declared = _declared_hardware(recipe)
    candidates = [
        hw
        for hw, p in profiles.items()
        if _selectable(recipe, variant, hw, p, constraint)
        and (not truthy(get(p, "restricted")) or js_in(hw, declared))
    ]
    return default_among(profiles, variant, recipe, candidates)


def default_among(
    profiles: dict[str, JsonValue], variant: JsValue, recipe: Recipe, candidates: list[str]
) -> str:
    """The default hardware among the selectable, unrestricted (or declared) candidates, in taxonomy order.

    docs/upstream-behaviour.md#default-hardware.
    """
    constraint = precision_constraint(variant)
    candidates = list(candidates)  # sorted below
    authored = get(recipe.get("meta", UNDEFINED), "default_hardware")
    if truthy(authored) and authored in candidates:
        return str(authored)
    if get(constraint, "generation") == "blackwell":
        for preferred in ("b200", "gb200"):
            if preferred in candidates:
                return preferred
    if "h200" in candidates:
        return "h200"
    candidates.sort(
        # JS looks a brand up by its String() (a list brand by its items)
        key=lambda hw: (_BRAND_RANK.get(js_string(get(profiles[hw], "brand")), 9), icu_root_key(hw))
    )
    return candidates[0] if candidates else "h200"


def runs_on(profile: JsValue, variant: JsValue, hw_id: str) -> bool:
    if not matches_constraint(profile, precision_constraint(variant)):
        return False
    if not is_variant_hardware_supported(variant, hw_id):
        return False
    return is_scalable(profile) or fits_single_node(profile, variant)


def pick_fitting_variant(recipe: Recipe, profile: JsValue, hw_id: str) -> str | None:
    """On a box that cannot scale out: the largest variant that fits it (docs/upstream-behaviour.md#non-scalable-hardware)."""
    variants = js_or(recipe.get("variants", UNDEFINED), {})
    # JS reads the entries of any value; Python raises on one that is no mapping (the plan asks
    # only once a variant was found in it)
    fitting = [(key, v) for key, v in variants.items() if runs_on(profile, v, hw_id)]  # type: ignore[union-attr]
    if not fitting:
        return None
    # Sorted by the comparator's b - a through Number(); a NaN difference (a mapping) counts
    # as equal there, as a NaN key does in Python's sort (V8's is a port of it).
    fitting.sort(key=lambda kv: -js_number(js_or(get(kv[1], "vram_minimum_gb"), 0)))
    best: str = fitting[0][0]
    return best
