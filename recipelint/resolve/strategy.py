"""Which serving strategies a recipe offers on a hardware, and at how many nodes.

Upstream: docs/upstream-behaviour.md#compatible-strategies, #node-counts, #recommended-strategy, #pd-pools
and #kv-store.
"""

from __future__ import annotations

import re
from typing import Literal

from recipelint.jsvalue import (
    UNDEFINED,
    JsonValue,
    JsValue,
    coalesce,
    get,
    is_number,
    js_ceil,
    js_divide,
    js_ge,
    js_le,
    js_max,
    js_number,
    js_or,
    js_times,
    truthy,
)
from recipelint.read.recipedata import Recipe
from recipelint.resolve.hardware import (
    fits_single_node,
    hardware_keyed_value,
    pd_fits_single_node,
)
from recipelint.resolve.inputs import PdNodes

MAX_NODES = 16
MAX_PD_NODES_PER_ROLE = 4
MULTI_NODE_PREFERENCE = ("multi_node_tp", "multi_node_dep", "multi_node_tep")


def listed_strategies(recipe: Recipe) -> list[JsonValue]:
    listed = js_or(recipe.get("compatible_strategies", UNDEFINED), [])
    return listed if type(listed) is list else list(listed) if type(listed) is str else []


def effective_compatible(recipe: Recipe) -> list[JsonValue]:
    """`compatible_strategies`, then strategies granted `supported` somewhere in `strategy_hardware`.

    docs/upstream-behaviour.md#compatible-strategies.
    """
    listed = listed_strategies(recipe)
    table = js_or(recipe.get("strategy_hardware", UNDEFINED), {})
    if type(table) is not dict:
        return listed
    opt_ins: list[JsonValue] = [
        name
        for name, gates in table.items()
        if name not in listed
        and truthy(gates)
        and isinstance(gates, (dict, list))
        and "supported" in (gates.values() if type(gates) is dict else gates)
    ]
    return listed + opt_ins if opt_ins else listed


def is_supported_on_hardware(
    recipe: Recipe,
    strategy: str,
    profile: JsValue,
    hw_id: str,
    listed: list[JsonValue] | None = None,
) -> bool:
    """``listed`` is ``listed_strategies(recipe)`` when the caller already has it."""
    gate = hardware_keyed_value(
        get(recipe.get("strategy_hardware", UNDEFINED), strategy), profile, hw_id
    )
    if gate is not None and gate is not UNDEFINED:
        return bool(gate != "unsupported")
    return strategy in (listed_strategies(recipe) if listed is None else listed)


_ZERO: JsValue = 0  # (typed so that coalesce() reads a JsValue, not an object)


def _floor_from_block(block: JsValue, key: str) -> JsValue:
    if block is None or block is UNDEFINED:
        return 0
    if is_number(block):
        return block
    if type(block) is not dict:
        return coalesce(UNDEFINED, _ZERO)
    return coalesce(
        block.get(key, UNDEFINED),
        block.get("multi_node_" + key, UNDEFINED),
        block.get("single_node_" + key, UNDEFINED),
        _ZERO,
    )


def min_gpus(recipe: Recipe, key: str, hw_id: str | None) -> int | float:
    """The recipe's GPU floor (`strategy_min_gpus`) for a strategy or a PD pool mode.

    docs/upstream-behaviour.md#node-counts.
    """
    cfg = recipe.get("strategy_min_gpus", UNDEFINED)
    if cfg is None or cfg is UNDEFINED:
        return 0
    if is_number(cfg):
        return cfg
    exact = _floor_from_block(cfg.get(hw_id, UNDEFINED), key) if hw_id and type(cfg) is dict else 0
    # Math.max reads a quoted or listed floor as a number
    return js_max(js_number(_floor_from_block(cfg, key)), js_number(exact))


def nodes_for_strategy(
    recipe: Recipe, key: str, gpus_per_node: JsValue, hw_id: str | None
) -> int | float:
    per_node = gpus_per_node if truthy(gpus_per_node) else 8
    nodes = js_ceil(js_divide(min_gpus(recipe, key, hw_id), js_number(per_node)))
    return nodes if truthy(nodes) else 1


def is_reachable(
    recipe: Recipe, key: str, deploy_type: JsValue, gpus_per_node: JsValue, hw_id: str
) -> bool:
    scales_out = deploy_type in ("multi_node", "pd_cluster")
    per_node = gpus_per_node if truthy(gpus_per_node) else 8
    reach = js_times(MAX_NODES if scales_out else 1, per_node)
    return js_ge(reach, min_gpus(recipe, key, hw_id))


def recommend_strategy(
    recipe: Recipe, node_count: float | int, compatible: list[JsonValue] | None = None
) -> str:
    """The recipe's preferred strategy at a node count (the hardware does not matter).

    docs/upstream-behaviour.md#recommended-strategy.

    ``compatible`` is ``effective_compatible(recipe)`` when the caller already has it.
    """
    if compatible is None:
        compatible = effective_compatible(recipe)
    explicit = recipe.get("default_strategy", UNDEFINED)
    if truthy(explicit) and explicit in compatible:
        if node_count > 1 and type(explicit) is str and explicit.startswith("single_node_"):
            sibling = "multi_node_" + explicit[len("single_node_") :]
            if sibling in compatible:
                return sibling
        else:
            # a number listed in compatible_strategies is returned as it is; the compiler names
            # its file by its String() (compile/publication.py)
            chosen: str = explicit  # type: ignore[assignment]
            return chosen
    if node_count > 1:
        for name in MULTI_NODE_PREFERENCE:
            if name in compatible:
                return name
    if "single_node_tp" in compatible:
        return "single_node_tp"
    # a non-string listed first is returned as it is, as `explicit` above
    return compatible[0] if compatible and truthy(compatible[0]) else "single_node_tp"  # type: ignore[return-value]


_DEP = re.compile(r"(?:^|_)dep$")
_TEP = re.compile(r"(?:^|_)tep$")
_TP = re.compile(r"(?:^|_)tp(?:_pp|_dp)?$")


def pd_pool_modes(recipe: Recipe) -> list[str]:
    """PD pool parallelism modes, from the strategy-name suffixes, narrowed by `pool_modes`.

    docs/upstream-behaviour.md#pd-pools.
    """
    modes: set[str] = set()
    for name in effective_compatible(recipe):
        if name == "pd_cluster" or type(name) is not str:
            continue
        if _DEP.search(name):
            modes.add("dep")
        elif _TEP.search(name):
            modes.add("tep")
        elif _TP.search(name):
            modes.add("tp")
    if not modes:
        modes.add("tp")
    ordered: list[str] = [m for m in ("tp", "tep", "dep") if m in modes]
    restrict = get(get(recipe.get("strategy_overrides", UNDEFINED), "pd_cluster"), "pool_modes")
    if type(restrict) is list and restrict:
        narrowed = [m for m in ordered if m in restrict]
        if narrowed:
            ordered = narrowed
    return ordered


SKIP: Literal["skip"] = "skip"


def pick_pd_nodes(
    profile: JsValue, variant: JsValue, recipe: Recipe, strategies: dict[str, JsonValue], hw_id: str
) -> PdNodes | Literal["skip"]:
    """Per-role node counts for PD: None (co-located), {prefill, decode}, or SKIP (> 4 nodes).

    docs/upstream-behaviour.md#pd-pools.
    """
    if pd_fits_single_node(profile, variant):
        return None
    node_vram = get(profile, "vram_gb")
    node_vram = node_vram if is_number(node_vram) else 0
    model_vram = js_or(get(variant, "vram_minimum_gb"), 0)
    if node_vram <= 0 or js_le(model_vram, 0):
        return None
    per_role = js_ceil(js_divide(js_number(model_vram), node_vram))
    if per_role > MAX_PD_NODES_PER_ROLE:
        return SKIP

    def floored(role: str) -> int | float:
        parallelism = js_or(
            get(
                get(get(recipe.get("strategy_overrides", UNDEFINED), "pd_cluster"), role),
                "parallelism",
            ),
            get(get(strategies.get("pd_cluster", UNDEFINED), role), "parallelism"),
            "tp",
        )
        return js_max(
            per_role,
            # parallelism is any value: it is only looked up as a key (a list one raises, unhashable)
            nodes_for_strategy(recipe, parallelism, get(profile, "gpu_count"), hw_id),  # type: ignore[arg-type]
        )

    return {"prefill": floored("prefill"), "decode": floored("decode")}


def kv_nodes_per_instance(profile: JsValue, variant: JsValue) -> int:
    return 1 if fits_single_node(profile, variant) else 2
