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
    SKIP,
    effective_compatible,
    is_reachable,
    is_supported_on_hardware,
    kv_nodes_per_instance,
    min_gpus,
    nodes_for_strategy,
    pd_pool_modes,
    pick_pd_nodes,
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


def test_a_scaling_strategy_reaches_sixteen_nodes_of_eight_and_no_more() -> None:
    # the numbers written out: the test above reads MAX_NODES, so it would follow a wrong value
    within = recipe(strategy_min_gpus={"multi_node_tp": 128})
    beyond = recipe(strategy_min_gpus={"multi_node_tp": 129})
    assert is_reachable(within, "multi_node_tp", "multi_node", 8, "h200")
    assert not is_reachable(beyond, "multi_node_tp", "multi_node", 8, "h200")


@pytest.mark.parametrize("floors", [{}, {"strategy_min_gpus": None}])
def test_a_recipe_without_a_gpu_floor_is_never_gated(floors: dict[str, Any]) -> None:
    assert min_gpus(recipe(**floors), "multi_node_tp", "h200") == 0


@pytest.mark.parametrize(
    ("floors", "expected"),
    [
        (-8, -8),  # a number is the bar for every strategy, as written (no Math.max with 0)
        (12, 12),
        ({"multi_node_tp": 4, "h200": {"tp": 24}}, 24),  # the hardware's floor, when higher
        ({"tp": 16, "h200": 8}, 16),
    ],
)
def test_the_gpu_floor_is_a_number_as_written_or_the_higher_of_the_strategy_and_hardware_bars(
    floors: Any, expected: int
) -> None:
    assert min_gpus(recipe(strategy_min_gpus=floors), "tp", "h200") == expected


def test_without_a_floor_a_negative_gpu_count_reaches_nothing() -> None:
    # upstream: 1 * -1 >= 0 is false (a floor read as anything below 0 would let it through)
    assert not is_reachable(recipe(), "single_node_tp", "single_node", -1, "h200")
    assert is_reachable(recipe(), "single_node_tp", "single_node", 1, "h200")


def test_a_strategy_hardware_that_is_no_mapping_opts_nothing_in() -> None:
    listed = ["single_node_tp"]
    for table in (["supported"], "supported", 3):
        assert (
            effective_compatible(recipe(compatible_strategies=listed, strategy_hardware=table))
            == listed
        )
    granted = recipe(
        compatible_strategies=listed, strategy_hardware={"multi_node_dep": {"b200": "supported"}}
    )
    assert effective_compatible(granted) == ["single_node_tp", "multi_node_dep"]


def test_without_a_gate_a_strategy_is_supported_where_it_is_listed() -> None:
    profile = {"brand": "NVIDIA", "generation": "hopper"}
    data = recipe(compatible_strategies=["single_node_tp"])
    assert is_supported_on_hardware(data, "single_node_tp", profile, "h200")
    assert not is_supported_on_hardware(data, "multi_node_tp", profile, "h200")
    # the caller's own list is read instead of the recipe's
    assert is_supported_on_hardware(data, "multi_node_tp", profile, "h200", ["multi_node_tp"])


def test_one_node_recommends_the_single_node_tp_over_a_listed_multi_node_one() -> None:
    data = recipe(compatible_strategies=["multi_node_tp", "single_node_tp"])
    assert recommend_strategy(data, 1) == "single_node_tp"
    assert recommend_strategy(data, 2) == "multi_node_tp"


@pytest.mark.parametrize(
    ("pool_modes", "modes"),
    [
        (["dep"], ["dep"]),
        (["tep"], ["tp", "dep"]),  # would leave nothing: ignored
        ([], ["tp", "dep"]),
        ("dep", ["tp", "dep"]),  # not a list: ignored (no substring match)
        ({"dep": True}, ["tp", "dep"]),
    ],
)
def test_pool_modes_narrow_the_pd_pools_only_as_a_non_empty_list(
    pool_modes: Any, modes: list[str]
) -> None:
    data = recipe(
        compatible_strategies=["single_node_tp", "multi_node_dep", "pd_cluster"],
        strategy_overrides={"pd_cluster": {"pool_modes": pool_modes}},
    )
    assert pd_pool_modes(data) == modes


@pytest.mark.parametrize(
    ("profile", "vram", "nodes"),
    [
        (PROFILE, 100, None),  # co-located: 640 holds the model twice
        (PROFILE, 700, {"prefill": 2, "decode": 2}),
        (PROFILE, 2561, SKIP),  # five nodes a role
        ({"gpu_count": 8, "vram_gb": 1}, 3, {"prefill": 3, "decode": 3}),
        ({"gpu_count": 8, "vram_gb": 0.5}, 1, {"prefill": 2, "decode": 2}),
        ({"gpu_count": 8, "vram_gb": 0}, 10, None),  # no node size: nothing to divide by
        ({"gpu_count": 8}, 10, None),
        ({"gpu_count": 8, "vram_gb": "big"}, 2, None),  # not a number: counted as 0
    ],
)
def test_pd_pools_take_one_node_per_share_of_the_variant_unless_it_fits_one_node(
    profile: dict[str, Any], vram: int, nodes: Any
) -> None:
    assert pick_pd_nodes(profile, {"vram_minimum_gb": vram}, recipe(), {}, "h200") == nodes
