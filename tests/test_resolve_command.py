"""One command of a combination (recipelint.resolve.command): what the emitter allots it."""

from __future__ import annotations

from typing import Any

from treehelp import base_recipe, embedded_inputs

from recipelint.resolve.command import (
    Combination,
    command_parts,
    emitted,
    env_parts,
    pinned_devices,
    rendered_args,
    rendered_layers,
)

TAXONOMY, INPUTS = embedded_inputs()


def _recipe() -> dict[str, Any]:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "multi_node_tp"]
    return recipe


def test_a_single_node_strategy_is_allotted_one_node_whatever_the_node_count() -> None:
    found = emitted(INPUTS, _recipe(), Combination("default", "single_node_tp", "h200", 2))
    assert (found.nodes, found.gpus) == (1, 8)


def test_a_multi_node_strategy_is_allotted_its_nodes_from_two_on() -> None:
    two = emitted(INPUTS, _recipe(), Combination("default", "multi_node_tp", "h200", 2))
    assert (two.nodes, two.gpus) == (2, 16)
    assert "--nnodes" in two.tokens
    for under_two in (1, 0.5, 0):  # a JS number: a count under two is one node
        found = emitted(
            INPUTS, _recipe(), Combination("default", "multi_node_tp", "h200", under_two)
        )
        assert (found.nodes, found.gpus) == (1, 8)


def test_the_head_s_args_are_the_rendered_layers_args_without_a_placement_given() -> None:
    recipe = _recipe()
    recipe["model"]["base_args"] = ["--max-model-len", "4096"]
    combo = Combination("default", "multi_node_tp", "h200", 2)
    assert rendered_args(INPUTS, recipe, combo) == rendered_layers(INPUTS, recipe, combo)[0]
    assert rendered_args(INPUTS, recipe, combo)[:2] == ["--max-model-len", "4096"]


def _pd_recipe() -> dict[str, Any]:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "pd_cluster", "multi_node_dep"]
    recipe["model"]["base_env"] = {"ACME": "1"}
    return recipe


def test_a_pd_role_is_allotted_its_pool_at_least_one_node() -> None:
    # an H200 has 8 GPUs: PD roles sharing one node get half each, a pool of n nodes n x 8
    recipe = _pd_recipe()
    shared = Combination("default", "pd_cluster", "h200")
    assert emitted(INPUTS, recipe, shared, "prefill")[1:] == (1, 4)
    pools = shared._replace(pd_nodes={"prefill": 0, "decode": 2})
    assert emitted(INPUTS, recipe, pools, "prefill")[1:] == (1, 4)  # a pool of 0 nodes is 1
    assert emitted(INPUTS, recipe, pools, "decode")[1:] == (2, 16)
    assert emitted(INPUTS, recipe, pools)[1:] == (1, 8)  # no role: the node the strategy runs on


def test_only_a_pd_role_is_pinned_to_its_gpus() -> None:
    recipe = _pd_recipe()
    pd = Combination("default", "pd_cluster", "h200")
    assert pinned_devices(INPUTS, recipe, pd, "prefill") == {"CUDA_VISIBLE_DEVICES": "0,1,2,3"}
    assert pinned_devices(INPUTS, recipe, pd, "decode") == {"CUDA_VISIBLE_DEVICES": "4,5,6,7"}
    assert pinned_devices(INPUTS, recipe, pd, None) == {}
    single = Combination("default", "single_node_tp", "h200")
    assert pinned_devices(INPUTS, recipe, single, "prefill") == {}


def test_a_pd_role_s_env_layers_come_before_its_device_pinning() -> None:
    before, after = env_parts(
        INPUTS, _pd_recipe(), Combination("default", "pd_cluster", "h200"), "prefill"
    )
    assert [layer.pointer for layer in before] == [("model", "base_env"), ("prefill", "env")]
    assert before[0].items == {"ACME": "1"} and after == []


def test_a_worker_s_layers_default_to_the_first_worker_s() -> None:
    # DEP ranks start at node rank x GPUs per node: the first worker's at 8
    combo = Combination("default", "multi_node_dep", "h200", 3)
    recipe = _pd_recipe()
    first = ["--data-parallel-start-rank", "8"]
    assert rendered_layers(INPUTS, recipe, combo, node_role="worker")[0][-2:] == first
    assert command_parts(INPUTS, recipe, combo, node_role="worker")[1][-2:] == first
    second = rendered_layers(INPUTS, recipe, combo, node_role="worker", node_rank=2)[0]
    assert second[-2:] == ["--data-parallel-start-rank", "16"]
