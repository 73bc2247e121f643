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


def _pd_recipe(**overrides: Any) -> dict[str, Any]:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["pd_cluster", "single_node_tp", "single_node_dep"]
    if overrides:
        recipe["strategy_overrides"] = {"pd_cluster": overrides}
    return recipe


def test_a_pd_cluster_over_two_nodes_without_pool_sizes_gives_each_pool_a_node() -> None:
    out = render_command(INPUTS, _pd_recipe(), Combination("default", "pd_cluster", "h200", 2))
    for role in ("prefill", "decode"):
        assert out[role]["argv"][-2:] == ["--tensor-parallel-size", "8"]
        assert out[role]["env"]["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"
        assert (out[role]["nodes"], out[role]["poolGpus"]) == (1, 8)


def test_a_pd_dep_pool_of_tp_0_renders_but_is_reported() -> None:
    problems: list[Any] = []
    recipe = _pd_recipe(prefill={"parallelism": "dep", "tp": 0})
    out = render_command(INPUTS, recipe, Combination("default", "pd_cluster", "h200"), problems)
    assert out["prefill"]["argv"][7:11] == [
        "--tensor-parallel-size",
        "0",
        "--data-parallel-size",
        "Infinity",
    ]
    assert problems == [
        (
            ("strategy_overrides", "pd_cluster", "prefill", "tp"),
            "PD prefill pool `tp` must be a positive number, got 0: the rendered data-parallel "
            "size would be Infinity",
        )
    ]


def test_a_pd_cluster_sharing_a_one_gpu_node_pins_no_device() -> None:
    # half of one GPU is none: neither role gets a CUDA_VISIBLE_DEVICES of its own
    out = render_command(INPUTS, _pd_recipe(), Combination("default", "pd_cluster", "rtx_pro_6000"))
    assert "CUDA_VISIBLE_DEVICES" not in out["prefill"]["env"]
    assert "CUDA_VISIBLE_DEVICES" not in out["decode"]["env"]


def test_a_bare_trailing_dp_size_local_override_makes_a_worker_s_start_rank_nan() -> None:
    # upstream reads Number() of the token after the last such flag: undefined here
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["multi_node_dep"]
    recipe["strategy_overrides"] = {
        "multi_node_dep": {
            "extra_args": ["--data-parallel-size-local", "4", "--data-parallel-size-local"]
        }
    }
    out = render_command(INPUTS, recipe, Combination("default", "multi_node_dep", "h200", 2))
    start = out["worker_argv"].index("--data-parallel-start-rank")
    assert out["worker_argv"][start + 1] == "NaN"
