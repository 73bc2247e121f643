"""One command of a combination (recipelint.resolve.command): what the emitter allots it."""

from __future__ import annotations

from typing import Any

from treehelp import base_recipe, embedded_inputs

from recipelint.resolve.command import (
    Combination,
    emitted,
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
