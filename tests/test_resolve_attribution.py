"""recipelint.resolve.attribution beyond what `recipelint show` prints (tests/test_show.py):
every worker's join is attributed with its own node rank, a join with nothing to keep, and the
NVLink-only variables a PD role leaves out off NVL4 hardware, and how a list is named."""

from __future__ import annotations

from typing import Any

import pytest
from test_layers_kv import MOONCAKE, OFFLOAD, catalog, recipe
from treehelp import base_recipe, embedded_inputs

from recipelint.resolve.attribution import (
    EMITTER,
    NVL4_ONLY,
    ArgsAttribution,
    Source,
    Token,
    attribute_args,
    attributed_commands,
    layer_name,
)
from recipelint.resolve.command import Combination, RenderInputs, command_parts

TAXONOMY, EMBEDDED = embedded_inputs()
# The embedded strategies and a kv_store deployment that a multi-node strategy can compose with.
INPUTS = RenderInputs(TAXONOMY, EMBEDDED.profiles, {**EMBEDDED.strategies, "kv_mooncake": MOONCAKE})


def _start_rank(argv: list[Any]) -> Any:
    return (
        argv[argv.index("--data-parallel-start-rank") + 1]
        if "--data-parallel-start-rank" in argv
        else None
    )


@pytest.mark.parametrize("kv_offload", [None, "kv_mooncake"])
def test_each_worker_of_three_dep_nodes_is_attributed_its_own_start_rank(
    kv_offload: str | None,
) -> None:
    # Data-parallel ranks start at node rank x GPUs per node (8 on an H200): the third node's
    # 16 is where a worker attributed another worker's rank would show 8.
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "multi_node_dep"]
    combo = Combination("default", "multi_node_dep", "h200", 3, kv_offload=kv_offload)
    _doc, commands = attributed_commands(INPUTS, recipe, combo)
    assert [c.label for c in commands][1:] == ["worker 1", "worker 2"]
    assert [_start_rank(c.argv) for c in commands] == [None, "8", "16"]
    for command in commands:
        assert command.args.deduped() == command.argv[3:], command.label


def test_a_join_with_no_truthy_token_has_no_unit() -> None:
    assert attribute_args([], [], []) == ArgsAttribution((), ())
    # upstream's filter(Boolean) drops them before the dedupe: they are told apart as falsy
    assert attribute_args([], ["", ""], []) == ArgsAttribution(
        (), (Token("", Source(None, 0, EMITTER)), Token("", Source(None, 1, EMITTER)))
    )


@pytest.mark.parametrize(("hardware", "left_out"), [("h200", True), ("gb200", False)])
def test_a_pd_role_leaves_out_the_nvlink_only_variables_off_nvl4_hardware(
    hardware: str, left_out: bool
) -> None:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "pd_cluster"]
    recipe["model"]["base_env"] = {"NCCL_CUMEM_ENABLE": "1", "KEEP": "x"}
    doc, commands = attributed_commands(
        INPUTS, recipe, Combination("default", "pd_cluster", hardware)
    )
    for command in commands:
        assert command.role is not None
        kept = {a.name: a.value for a in command.env if a.kept}
        assert kept == doc[command.role]["env"], command.label
        removed = {a.name for a in command.env if a.removed == NVL4_ONLY}
        assert ("NCCL_CUMEM_ENABLE" in removed) is left_out
        assert "KEEP" in kept


def test_a_list_is_named_by_its_keys_after_the_kind_and_name_of_its_file() -> None:
    inputs = catalog(offload={"kv_mooncake": OFFLOAD})
    combo = Combination("default", "single_node_tp", "h200", kv_offload="kv_mooncake")
    before, _emitter, after = command_parts(inputs, recipe(), combo)
    assert [layer_name(layer) for layer in before + after] == [
        "model.base_args",
        "strategy single_node_tp vllm_args",
        "taxonomy kv_offload.kv_mooncake.args",
        "kv_store vllm.vllm_args",  # without the kv_store's name, its kind alone
    ]
    assert layer_name(after[-1], "kv_mooncake") == "kv_store kv_mooncake vllm.vllm_args"
