"""The plan of a variant's renderings (recipelint.resolve.plan): hardware, strategies, nodes."""

from __future__ import annotations

from typing import Any

from treehelp import base_recipe, context_in_memory

from recipelint.resolve.command import RenderInputs
from recipelint.resolve.plan import Problems, planned_combinations, render_variant

TREE = context_in_memory()
TAXONOMY: dict[str, Any] = TREE.taxonomy.data if TREE.taxonomy is not None else {}
STRATEGIES = {doc.data["name"]: doc.data for doc in TREE.strategies}
INPUTS = RenderInputs(TAXONOMY, TAXONOMY["hardware_profiles"], STRATEGIES)
DEFAULT_ORDER = ["h200", "h100", "b200", "gb200", "b300", "gb300", "mi300x", "mi325x", "mi355x"]


def _planned(
    inputs: RenderInputs, recipe: dict[str, Any], **options: Any
) -> list[tuple[str, str, Any, bool]]:
    return [
        (combo.hw_id, combo.strategy, combo.node_count, recommended)
        for combo, recommended in planned_combinations(inputs, recipe, "default", **options)
    ]


def test_a_variant_that_fits_one_node_is_recommended_on_one_node() -> None:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "multi_node_tp"]
    recipe["variants"]["default"]["vram_minimum_gb"] = 20
    assert _planned(INPUTS, recipe, alternatives=False)[:2] == [
        ("h200", "single_node_tp", 1, True),
        ("h100", "single_node_tp", 1, True),
    ]
    recipe["variants"]["default"]["vram_minimum_gb"] = 2000  # more than any node holds
    assert _planned(INPUTS, recipe, alternatives=False)[:2] == [
        ("h200", "multi_node_tp", 2, True),
        ("h100", "multi_node_tp", 2, True),
    ]


def test_a_kv_store_strategy_is_not_offered_where_the_recipe_opts_the_hardware_out() -> None:
    kv = dict(STRATEGIES, kv_lb={"name": "kv_lb", "deploy_type": "kv_store_lb"})
    inputs = RenderInputs(TAXONOMY, TAXONOMY["hardware_profiles"], kv)
    recipe = base_recipe()
    recipe["kv_cache_strategy_hardware"] = {"kv_lb": {"h100": "unsupported"}}
    on_h200 = [c for c, _ in planned_combinations(inputs, recipe, "default") if c.hw_id == "h200"]
    on_h100 = [c for c, _ in planned_combinations(inputs, recipe, "default") if c.hw_id == "h100"]
    assert len(on_h200) == 2 and on_h200[1].kv_offload is not None  # the kv alternative
    assert len(on_h100) == 1 and on_h100[0].kv_offload is None


def test_every_hardware_of_a_variant_is_rendered_default_first() -> None:
    rendered = render_variant(INPUTS, base_recipe(), "default", Problems(), documents=False)
    assert rendered is not None
    default_hw, renderings = rendered
    assert default_hw == "h200"
    assert [r.hw_id for r in renderings] == DEFAULT_ORDER


def test_the_plan_follows_the_hardware_a_caller_answers_for_the_variant() -> None:
    def hardware_of(recipe: Any, variant: Any) -> tuple[str, list[str]]:
        return "h100", ["h100", "b200"]

    assert _planned(INPUTS, base_recipe(), hardware_of=hardware_of) == [
        ("h100", "single_node_tp", 1, True),
        ("b200", "single_node_tp", 1, True),
    ]
