"""The plan of a variant's renderings (recipelint.resolve.plan): hardware, strategies, nodes."""

from __future__ import annotations

from typing import Any

from treehelp import base_recipe, context_in_memory

from recipelint.resolve.command import RenderInputs
from recipelint.resolve.plan import (
    Problems,
    hardware_combinations,
    planned_combinations,
    render_variant,
)

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


KV_STRATEGIES = dict(STRATEGIES, kv_lb={"name": "kv_lb", "deploy_type": "kv_store_lb"})
KV_INPUTS = RenderInputs(TAXONOMY, TAXONOMY["hardware_profiles"], KV_STRATEGIES)


def test_features_follow_each_hardware_s_own_opt_ins() -> None:
    # h200 is planned first: its features must not be reused for h100, which opts out of eagle
    recipe = base_recipe()
    recipe["features"] = {"fp8": {"args": ["--fp8"]}, "eagle": {"args": ["--eagle"]}}
    recipe["hardware_opt_in_features"] = {"h100": ["eagle"]}
    features = {
        combo.hw_id: combo.features
        for combo, _ in planned_combinations(INPUTS, recipe, "default", alternatives=False)
    }
    assert features["h200"] == ("fp8", "eagle")
    assert features["b200"] == ("fp8", "eagle")
    assert features["h100"] == ("fp8",)


def test_hardware_that_cannot_scale_out_is_offered_single_node_strategies_only() -> None:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "single_node_tep", "multi_node_tp"]
    recipe["compatible_strategies"].append("pd_cluster")
    planned = hardware_combinations(INPUTS, recipe, "default", "rtx_pro_6000")
    assert planned is not None
    assert planned[0] == "single_node_tp"
    assert list(planned[1]) == ["single_node_tp", "single_node_tep"]


def test_hardware_combinations_name_every_alternative_offered() -> None:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "single_node_tep"]
    planned = hardware_combinations(INPUTS, recipe, "default", "h200")
    assert planned is not None
    recommended, combos = planned
    assert recommended == "single_node_tp"
    assert {name: combo.strategy for name, combo in combos.items()} == {
        "single_node_tp": "single_node_tp",
        "single_node_tep": "single_node_tep",
    }


def test_a_recommendation_the_hardware_refuses_falls_back_past_pd_and_kv_strategies() -> None:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["pd_cluster", "single_node_tp", "single_node_tep"]
    recipe["strategy_hardware"] = {"single_node_tp": {"h100": "unsupported"}}
    recommended = {
        combo.hw_id: combo.strategy
        for combo, _ in planned_combinations(KV_INPUTS, recipe, "default", alternatives=False)
    }
    assert recommended["h200"] == "single_node_tp"
    assert recommended["h100"] == "single_node_tep"


def test_a_kv_deployment_serves_the_first_known_strategy_when_the_recommendation_is_unknown() -> (
    None
):
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["no_such_strategy", "single_node_tep"]
    recipe["default_strategy"] = "no_such_strategy"
    kv = [
        combo
        for combo, _ in planned_combinations(KV_INPUTS, recipe, "default")
        if combo.hw_id == "h200" and combo.kv_offload is not None
    ]
    assert [(combo.strategy, combo.kv_offload) for combo in kv] == [("single_node_tep", "kv_lb")]


def test_an_omni_recipe_plans_no_combination() -> None:
    recipe = base_recipe()
    recipe["meta"]["tasks"] = ["omni"]
    assert _planned(INPUTS, recipe) == []


def test_the_plan_is_left_in_the_caller_s_memo_for_the_recipe_s_other_variants() -> None:
    runs: dict[str, Any] = {}
    assert _planned(INPUTS, base_recipe(), strategy_runs=runs, alternatives=False)
    assert "plan" in runs
