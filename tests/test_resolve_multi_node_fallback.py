"""A variant too big for one node, on hardware where the multi-node strategy the plan asks for
is marked unsupported (strategy_hardware): the recommended strategy is the first runnable
entry of the hardware's compatible list, single-node ones included, at 2 nodes.

Upstream's builder does not drop single-node strategies when a variant outgrows one node: it
only bumps the base node count to 2, asks for a multi-node strategy, and when that one is not
runnable there takes the first compatible, non-kv, non-PD strategy in list order. With
`single_node_tp` listed first that is `single_node_tp`, published with `node_count: 2`
(thinkingmachines/Inkling on h100 at upstream #712 is the real case); only a list that puts
`multi_node_dep` first gets `multi_node_dep`. Checked against upstream's own build of these
two recipes. compile, `recipelint show` and the deployment rules (RL382, RL383, through
resolve.plan.planned_combinations) all take the same plan.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from treehelp import Fragment, build_tree, findings_by_code

from recipelint.cli import main
from recipelint.compile.compiler import compile_tree
from recipelint.read.tree import load_tree
from recipelint.resolve.plan import planned_combinations
from recipelint.rules.context import CheckContext

RECIPE = "models/acme/demo.yaml"
HF_ID = "acme/demo"
# 700 GB: more than an h100 node (8 × 80 GB), less than an h200 node (8 × 141 GB).
TOO_BIG_FOR_AN_H100_NODE = """\
variants:
  default:
    precision: bf16
    vram_minimum_gb: 700
compatible_strategies: [{order}]
strategy_hardware:
  multi_node_tp:
    h100: unsupported
"""
SINGLE_FIRST = "single_node_tp, multi_node_tp, multi_node_dep"
DEP_FIRST = "multi_node_dep, single_node_tp, multi_node_tp"


def _tree(root: Path, order: str) -> Path:
    return build_tree(root, {RECIPE: Fragment(TOO_BIG_FOR_AN_H100_NODE.format(order=order))})


def _compiled(root: Path, hardware: str) -> tuple[str, int]:
    document = compile_tree(root).files.document(f"{HF_ID}/hw/{hardware}.json")
    return document["strategy"], document["node_count"]


def _planned(root: Path) -> dict[str, tuple[str, int | float]]:
    ctx = CheckContext(load_tree(root))
    [doc] = ctx.recipes
    return {
        combo.hw_id: (combo.strategy, combo.node_count)
        for combo, recommended in planned_combinations(
            ctx.render_inputs, doc.data, "default", alternatives=False
        )
        if recommended
    }


def _shown(root: Path, hardware: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    args = ["show", HF_ID, "--tree", str(root), "--hardware", hardware]
    assert main([*args, "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    return shown["strategy"], capsys.readouterr().out


def test_the_fallback_is_the_first_listed_strategy_even_a_single_node_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path, SINGLE_FIRST)
    assert _compiled(root, "h100") == ("single_node_tp", 2)
    assert _compiled(root, "h200") == ("single_node_tp", 1), "the variant fits an h200 node"
    assert _compiled(root, "b200") == ("single_node_tp", 1)
    planned = _planned(root)
    assert planned["h100"] == ("single_node_tp", 2)
    assert planned["h200"] == ("single_node_tp", 1)
    strategy, text = _shown(root, "h100", capsys)
    assert strategy == "single_node_tp"
    assert "strategy single_node_tp · 2 nodes" in text


def test_a_list_that_puts_dep_first_falls_back_to_dep_at_two_nodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path, DEP_FIRST)
    assert _compiled(root, "h100") == ("multi_node_dep", 2)
    assert _planned(root)["h100"] == ("multi_node_dep", 2)
    strategy, text = _shown(root, "h100", capsys)
    assert strategy == "multi_node_dep"
    assert "strategy multi_node_dep · 2 nodes" in text


def test_the_fit_rule_describes_the_single_node_command_the_fallback_publishes(
    tmp_path: Path,
) -> None:
    recipe = Fragment(TOO_BIG_FOR_AN_H100_NODE.format(order=SINGLE_FIRST))
    found = findings_by_code(tmp_path, {RECIPE: recipe}).get("RL383", [])
    on_h100 = [d for d in found if "`h100`" in d.message]
    assert on_h100, [d.message for d in found]
    [finding] = on_h100
    assert "(640 GB of 8 GPUs, single_node_tp)" in finding.message
    assert finding.pointer == ("variants", "default", "vram_minimum_gb")
