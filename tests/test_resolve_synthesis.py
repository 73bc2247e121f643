"""One command's synthesis (recipelint.resolve.synthesis): a PD pool's parallel args."""

from __future__ import annotations

from typing import Any

from treehelp import base_recipe, embedded_inputs

from recipelint.resolve.command import Combination, render_command

TAXONOMY, INPUTS = embedded_inputs()


def _dep_pools(prefill_nodes: int) -> tuple[list[Any], list[Any]]:
    """The (prefill, decode) parallel args of expert-parallel pools on 8-GPU h200 nodes."""
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "single_node_dep", "pd_cluster"]
    recipe["strategy_overrides"] = {
        "pd_cluster": {"prefill": {"parallelism": "dep"}, "decode": {"parallelism": "dep", "tp": 2}}
    }
    pd = {"prefill": prefill_nodes, "decode": 0}
    out = render_command(INPUTS, recipe, Combination("default", "pd_cluster", "h200", 1, (), pd))
    return [out[role]["argv"][7:] for role in ("prefill", "decode")]  # after the kv transfer


def test_a_colocated_dep_pool_without_tp_runs_one_rank_per_gpu_of_the_node() -> None:
    prefill, decode = _dep_pools(0)
    assert prefill[:4] == ["--data-parallel-size", "8", "--data-parallel-size-local", "8"]
    assert "--tensor-parallel-size" not in prefill and "--data-parallel-hybrid-lb" not in prefill
    assert decode[:6] == [
        "--tensor-parallel-size",
        "2",
        "--data-parallel-size",
        "4",
        "--data-parallel-size-local",
        "4",
    ]


def test_a_dep_pool_over_two_nodes_doubles_its_ranks_and_balances_them_per_node() -> None:
    prefill, _ = _dep_pools(2)
    assert prefill[:4] == ["--data-parallel-size", "16", "--data-parallel-size-local", "8"]
    assert prefill[-2:] == ["--data-parallel-hybrid-lb", "--enable-expert-parallel"]
