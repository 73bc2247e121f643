"""resolve/strategy.py: node counts, reachability and the recommended strategy on small data.

docs/upstream-behaviour.md#node-counts: a node holds `gpu_count` GPUs (8 when the profile
says nothing), a strategy needs `ceil(strategy_min_gpus / per_node)` nodes (at least one), and
a single-node strategy is reachable only when one node holds its floor, a scaling one when
MAX_NODES nodes do. #recommended-strategy: `default_strategy` counts only when the recipe
offers it. #kv-store: a kv_store instance spans one node when the variant fits it, else two.
"""

from __future__ import annotations

from typing import Any

import pytest

from recipelint.resolve.strategy import (
    MAX_NODES,
    is_reachable,
    kv_nodes_per_instance,
    nodes_for_strategy,
    recommend_strategy,
)


def recipe(**extra: Any) -> dict[str, Any]:
    return {"compatible_strategies": ["single_node_tp", "multi_node_tp"], **extra}


@pytest.mark.parametrize(
    ("floor", "nodes"), [(0, 1), (1, 1), (8, 1), (9, 2), (16, 2), (17, 3), (24, 3)]
)
@pytest.mark.parametrize("per_node", [None, 0, ""])  # falsy: a node of 8 GPUs
def test_nodes_for_a_strategy_count_eight_gpus_a_node_when_the_profile_says_nothing(
    floor: int, nodes: int, per_node: Any
) -> None:
    data = recipe(strategy_min_gpus={"multi_node_tp": floor})
    assert nodes_for_strategy(data, "multi_node_tp", per_node, "h200") == nodes


@pytest.mark.parametrize(("floor", "nodes"), [(4, 1), (5, 2), (12, 3)])
def test_nodes_for_a_strategy_divide_by_the_profiles_gpus(floor: int, nodes: int) -> None:
    data = recipe(strategy_min_gpus={"multi_node_tp": floor})
    assert nodes_for_strategy(data, "multi_node_tp", 4, "gb200") == nodes


@pytest.mark.parametrize(("floor", "reachable"), [(7, True), (8, True), (9, False)])
def test_a_single_node_strategy_is_reachable_when_one_node_of_eight_holds_its_floor(
    floor: int, reachable: bool
) -> None:
    data = recipe(strategy_min_gpus={"single_node_tp": floor})
    assert is_reachable(data, "single_node_tp", "single_node", None, "h200") is reachable
    assert is_reachable(data, "single_node_tp", "single_node", 8, "h200") is reachable


@pytest.mark.parametrize("deploy_type", ["multi_node", "pd_cluster"])
def test_a_scaling_strategy_is_reachable_up_to_max_nodes_of_eight(deploy_type: str) -> None:
    within = recipe(strategy_min_gpus={"multi_node_tp": MAX_NODES * 8})
    beyond = recipe(strategy_min_gpus={"multi_node_tp": MAX_NODES * 8 + 1})
    assert is_reachable(within, "multi_node_tp", deploy_type, None, "h200")
    assert not is_reachable(beyond, "multi_node_tp", deploy_type, None, "h200")
    assert is_reachable(beyond, "multi_node_tp", deploy_type, 9, "h200")


@pytest.mark.parametrize("node_count", [1, 2])
def test_a_default_strategy_the_recipe_does_not_offer_is_not_recommended(node_count: int) -> None:
    data = recipe(compatible_strategies=["single_node_tp"], default_strategy="single_node_tep")
    assert recommend_strategy(data, node_count) == "single_node_tp"
    data = recipe(compatible_strategies=["single_node_tep"], default_strategy="multi_node_tp")
    assert recommend_strategy(data, node_count) == "single_node_tep"


def test_an_offered_default_strategy_is_recommended() -> None:
    data = recipe(compatible_strategies=["single_node_tp", "single_node_tep"])
    assert recommend_strategy({**data, "default_strategy": "single_node_tep"}, 1) == (
        "single_node_tep"
    )


PROFILE = {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 640}


@pytest.mark.parametrize(
    ("vram", "nodes"), [(100, 1), (640, 1), (641, 2), (2000, 2), (None, 1), (0, 1)]
)
def test_a_kv_store_instance_spans_one_node_when_the_variant_fits_it_else_two(
    vram: Any, nodes: int
) -> None:
    assert kv_nodes_per_instance(PROFILE, {"vram_minimum_gb": vram}) == nodes
