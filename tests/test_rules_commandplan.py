"""The commands the command-walking rules read (rules/commandplan.py).

RL340/RL341 share a command's layers between hardware of one layer class: the Assembler
keeps the parts of a command's layers under the hardware's layer class (what the layers read
of it) instead of its id, and RL340 walks one combination per class. Here every combination
is assembled both ways: the layers must be the very same lists. Then which commands a
recipe plans (one per layer class, strategy and PD role, standing for every hardware of the
class), the layers each assembles, and what is shared between hardware and recipes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from treehelp import (
    CONTEXT,
    Fragment,
    base_recipe,
    build_tree,
    context_text,
    document_text,
    tree_in_memory,
)

from recipelint.check.engine import run_checks
from recipelint.configuration.config import Config
from recipelint.read.load import Document, parse_yaml
from recipelint.read.tree import load_tree
from recipelint.resolve.plan import SYNTHESIS_ERRORS
from recipelint.rules import commandplan
from recipelint.rules.context import CheckContext


class _ByHardwareId(commandplan.Assembler):
    """Parts kept under the exact hardware id, as before layer classes."""

    def layer_class(self, hw_id: str) -> Any:
        return hw_id


def _signature(
    assembler: commandplan.Assembler, combo: commandplan.CommandChoice
) -> tuple[Any, ...] | str:
    try:
        return tuple((id(layer.items), layer.pointer) for layer in assembler.layers(combo))
    except SYNTHESIS_ERRORS as error:
        return type(error).__name__


@pytest.mark.parametrize("which", ["corpus_tree", "edge_tree", "embedded_tree"])
def test_layers_do_not_depend_on_which_hardware_of_a_class(
    which: str, request: pytest.FixtureRequest
) -> None:
    root: Path = request.getfixturevalue(which)
    ctx = CheckContext(load_tree(root), Config())
    catalog = commandplan.render_inputs(ctx)
    checked = 0
    plans = (commandplan.plan_of(ctx, catalog, doc) for doc in commandplan.planned_recipes(ctx))
    for shared, combos in filter(None, plans):
        exact = _ByHardwareId(ctx, catalog, shared.doc)
        first: dict[tuple[Any, ...], Any] = {}
        for combo in combos:
            expected = _signature(exact, combo)
            assert _signature(shared, combo) == expected, (shared.doc.rel, combo)
            key = (combo.variant, shared.layer_class(combo.hw_id), combo.strategy, combo.role)
            assert first.setdefault(key, expected) == expected, (shared.doc.rel, combo)
            checked += 1
    assert checked or which != "corpus_tree"


# --- the commands a recipe plans, and their layers -----------------------------------------

RECIPE = "models/acme/demo.yaml"


def _planned(
    fragment: str, taxonomy: Document | None = None
) -> tuple[CheckContext, Document, commandplan.Assembler, list[commandplan.CommandChoice]]:
    tree, doc = tree_in_memory(RECIPE, document_text(RECIPE, Fragment(fragment)), taxonomy)
    ctx = CheckContext(tree, Config())
    plan = commandplan.plan_of(ctx, commandplan.render_inputs(ctx), doc)
    assert plan is not None
    return ctx, doc, *plan


def _commands(combos: list[commandplan.CommandChoice]) -> list[tuple[Any, ...]]:
    return [(c.hw_id, c.strategy, c.role, c.members) for c in combos]


def test_one_command_per_layer_class_strategy_and_role_names_every_hardware_it_stands_for() -> None:
    # gb200 and gb300 (four GPUs) read the layers b200 and b300 (eight) read; rtx_5090, named
    # by the recipe, has its own command, and cannot scale out; an unknown strategy offers none.
    fragment = (
        "meta:\n  hardware: {rtx_5090: verified}\n"
        "compatible_strategies: [single_node_tp, no_such_strategy, pd_cluster]\n"
    )
    ctx, doc, _assembler, combos = _planned(fragment)
    blackwell = ("b200", "b300", "gb200", "gb300")
    assert _commands(combos) == [
        ("h200", "single_node_tp", None, ("h200", "h100")),
        ("h200", "pd_cluster", "prefill", ("h200", "h100")),
        ("h200", "pd_cluster", "decode", ("h200", "h100")),
        ("b200", "single_node_tp", None, blackwell),
        ("b200", "pd_cluster", "prefill", blackwell),
        ("b200", "pd_cluster", "decode", blackwell),
        ("rtx_5090", "single_node_tp", None, ("rtx_5090",)),
        ("mi300x", "single_node_tp", None, ("mi300x", "mi325x", "mi355x")),
        ("mi300x", "pd_cluster", "prefill", ("mi300x", "mi325x", "mi355x")),
        ("mi300x", "pd_cluster", "decode", ("mi300x", "mi325x", "mi355x")),
    ]
    # Without the run's memo of variant_hardware, the plan asks resolve.plan itself.
    assert list(commandplan.command_choices(ctx.render_inputs, doc.data)) == combos


def test_a_backend_is_judged_on_hardware_that_shares_another_hardwares_command() -> None:
    # An unrestricted workstation card (SM120, one GPU) shares b200's layers: CUTLASS_MLA,
    # an SM100 kernel, is reported for it although b200's command stands for it.
    text = context_text("taxonomy.yaml")
    at = text.index("restricted: true\n", text.index("  rtx_5090:"))
    text = text[:at] + text[at + len("restricted: true\n") :]
    taxonomy = parse_yaml(text, CONTEXT / "taxonomy.yaml", "taxonomy", "taxonomy.yaml")
    fragment = 'hardware_overrides:\n  blackwell:\n    extra_args: ["--attention-backend", "CUTLASS_MLA"]\n'
    tree, _doc = tree_in_memory(RECIPE, document_text(RECIPE, Fragment(fragment)), taxonomy)
    [finding] = run_checks(tree, Config(select=("RL371",)))
    assert finding.message.startswith(
        "`--attention-backend CUTLASS_MLA` selects the attention backend `CUTLASS_MLA` for "
        "rtx_5090, but in vLLM 0.20.0 it supports `capability.major == 10` only"
    )


LAYERED = """\
compatible_strategies: [single_node_tp, single_node_tep]
model:
  base_args: ["--max-num-seqs", "8"]
variants:
  default:
    extra_args: ["--max-model-len", "4096"]
    hardware_overrides:
      h100: {extra_args: ["--a", "1"]}
      mi300x: {extra_args: []}
hardware_overrides:
  hopper: {extra_args: ["--b", "2"]}
  amd: {extra_args: "--not-a-list"}
strategy_overrides:
  single_node_tep:
    extra_args: ["--c", "3"]
    hardware_overrides:
      h100: {extra_args: ["--d", "4"]}
features:
  tool_calling:
    args: ["--enable-auto-tool-choice"]
  expert_load:
    strategies: [single_node_tep]
    args: ["--enable-eplb"]
"""


def test_each_command_assembles_the_nonempty_lists_it_reads_in_upstream_order() -> None:
    _ctx, _doc, assembler, combos = _planned(LAYERED)
    base = [(RECIPE, ("model", "base_args")), (RECIPE, ("variants", "default", "extra_args"))]
    tep = [
        ("strategies/single_node_tep.yaml", ("vllm_args",)),
        (RECIPE, ("strategy_overrides", "single_node_tep", "extra_args")),
    ]
    hopper = [(RECIPE, ("hardware_overrides", "hopper", "extra_args"))]
    h100 = [(RECIPE, ("variants", "default", "hardware_overrides", "h100", "extra_args"))]
    h100_tep = [
        (
            RECIPE,
            ("strategy_overrides", "single_node_tep", "hardware_overrides", "h100", "extra_args"),
        )
    ]
    features = [(RECIPE, ("features", "tool_calling", "args"))]
    tep_features = [*features, (RECIPE, ("features", "expert_load", "args"))]
    expected = {
        ("h200", "single_node_tp"): base + hopper + features,
        ("h200", "single_node_tep"): base + tep + hopper + tep_features,
        ("h100", "single_node_tp"): base + h100 + hopper + features,
        ("h100", "single_node_tep"): base + h100 + tep + hopper + h100_tep + tep_features,
        ("b200", "single_node_tp"): base + features,
        ("b200", "single_node_tep"): base + tep + tep_features,
        ("mi300x", "single_node_tp"): base + features,  # its own list is empty, amd's no list
        ("mi300x", "single_node_tep"): base + tep + tep_features,
        ("mi325x", "single_node_tp"): base + features,
        ("mi325x", "single_node_tep"): base + tep + tep_features,
    }
    found = {
        (combo.hw_id, combo.strategy): [
            (layer.doc.rel, layer.pointer) for layer in assembler.layers(combo)
        ]
        for combo in combos
    }
    assert found == expected


def test_hardware_of_one_layer_class_gets_the_very_same_layers() -> None:
    _ctx, _doc, assembler, _combos = _planned(LAYERED)

    def layers_of(hw_id: str) -> list[Any]:
        return assembler.layers(
            commandplan.CommandChoice("default", hw_id, "single_node_tep", None)
        )

    assert layers_of("gb200") is layers_of("b200")
    assert layers_of("mi355x") is layers_of("mi325x")
    # Hardware a table names by its id is a class of its own.
    assert layers_of("h100") is not layers_of("h200")
    assert layers_of("mi300x") is not layers_of("mi325x")
    assert assembler.layer_class("h100") == "h100"


def test_strategy_file_layers_are_read_once_for_every_recipe_of_a_run() -> None:
    shared: dict[tuple[Any, ...], Any] = {}
    first_tree, first = tree_in_memory(RECIPE, document_text(RECIPE, Fragment(LAYERED)))
    ctx = CheckContext(first_tree, Config())
    second = parse_yaml(
        document_text(RECIPE, Fragment("compatible_strategies: [single_node_tep]\n")),
        CONTEXT / "models/acme/other.yaml",
        "recipe",
        "models/acme/other.yaml",
    )

    def strategy_layer(doc: Document) -> Any:
        plan = commandplan.plan_of(ctx, ctx.render_inputs, doc, shared)
        assert plan is not None
        assembler, combos = plan
        combo = next(c for c in combos if c.strategy == "single_node_tep")
        [layer] = [found for found in assembler.layers(combo) if found.doc is not doc]
        return layer

    assert strategy_layer(first) is strategy_layer(second)


def test_a_strategy_sets_a_generation_layer_only_with_keys_in_its_hardware_table() -> None:
    fragment = (
        "strategy_overrides:\n"
        "  single_node_tp: {hardware_overrides: {hopper: {extra_args: [--x]}}}\n"
        "  single_node_tep: {hardware_overrides: {}}\n"
        "  single_node_dep: {hardware_overrides: [hopper]}\n"
    )
    _ctx, _doc, assembler, _combos = _planned(fragment)
    for _again in range(2):
        assert assembler.has_generation_table("single_node_tp") is True
        assert assembler.has_generation_table("single_node_tep") is False
        assert assembler.has_generation_table("single_node_dep") is False
        assert assembler.has_generation_table("multi_node_tp") is False


def test_omni_recipes_and_recipes_that_are_no_mapping_are_not_planned(tmp_path: Path) -> None:
    root = build_tree(
        tmp_path,
        {
            "models/acme/omni.yaml": Fragment("meta:\n  tasks: [omni]\n"),
            "models/acme/list.yaml": "- a\n- b\n",
            RECIPE: Fragment("{}"),
        },
    )
    ctx = CheckContext(load_tree(root), Config())
    assert [doc.rel for doc in commandplan.planned_recipes(ctx)] == [RECIPE]


def test_a_recipe_the_compiler_cannot_plan_has_no_plan() -> None:
    tree, doc = tree_in_memory(RECIPE, document_text(RECIPE, Fragment("meta:\n  hardware: 5\n")))
    ctx = CheckContext(tree, Config())
    assert commandplan.plan_of(ctx, ctx.render_inputs, doc) is None


def test_a_hostile_recipe_plans_at_most_two_thousand_commands() -> None:
    data = base_recipe()
    data["compatible_strategies"] = ["single_node_tp", "single_node_tep", "pd_cluster"]
    data["variants"] = {f"v{i}": {"precision": "bf16", "vram_minimum_gb": 20} for i in range(250)}
    tree, doc = tree_in_memory(RECIPE, json.dumps(data))
    ctx = CheckContext(tree, Config())
    every = list(commandplan.command_choices(ctx.render_inputs, doc.data, ctx.variant_hardware))
    assert len(every) > 2001
    plan = commandplan.plan_of(ctx, commandplan.render_inputs(ctx), doc)
    assert plan is not None
    assert plan[1] == every[:2000]


def _taxonomy_with(profiles: dict[str, str]) -> Document:
    """The embedded taxonomy with these profiles first, each given by its keys (one a line)."""
    text = context_text("taxonomy.yaml")
    added = "".join(
        f"  {hw_id}:\n" + "".join(f"    {line}\n" for line in keys.splitlines())
        for hw_id, keys in profiles.items()
    )
    at = text.index("hardware_profiles:\n") + len("hardware_profiles:\n")
    return parse_yaml(
        text[:at] + added + text[at:], CONTEXT / "taxonomy.yaml", "taxonomy", "taxonomy.yaml"
    )


def test_a_hardware_whose_generation_is_no_string_is_planned_on_its_own() -> None:
    # `generation: true` and `generation: 1` are equal (and hash alike) in Python, but the
    # compiler looks them up as "true" and "1": odd_b alone is refused single_node_tep.
    taxonomy = _taxonomy_with(
        {
            "odd_a": "brand: Acme\ngeneration: true\ngpu_count: 8\nvram_gb: 640",
            "odd_b": "brand: Acme\ngeneration: 1\ngpu_count: 8\nvram_gb: 640",
        }
    )
    fragment = (
        "compatible_strategies: [single_node_tp, single_node_tep]\n"
        "strategy_hardware:\n  single_node_tep: {'1': unsupported}\n"
    )
    _ctx, _doc, _assembler, combos = _planned(fragment, taxonomy)
    assert [command for command in _commands(combos) if command[0].startswith("odd_")] == [
        ("odd_a", "single_node_tp", None, ("odd_a",)),
        ("odd_a", "single_node_tep", None, ("odd_a",)),
        ("odd_b", "single_node_tp", None, ("odd_b",)),
    ]


def test_hardware_of_another_brand_in_a_generation_has_a_command_of_its_own() -> None:
    # A hardware's lower-case brand selects its list where no generation key does: acme_h,
    # a hopper of another brand, does not join the nvidia list h200 and h100 read.
    taxonomy = _taxonomy_with(
        {"acme_h": "brand: Acme\ngeneration: hopper\ngpu_count: 8\nvram_gb: 640"}
    )
    fragment = "hardware_overrides:\n  nvidia: {extra_args: ['--n']}\n"
    _ctx, _doc, assembler, combos = _planned(fragment, taxonomy)
    nvidia = ("hardware_overrides", "nvidia", "extra_args")
    found = {
        combo.members: [layer.pointer for layer in assembler.layers(combo)]
        for combo in combos
        if combo.hw_id in ("h200", "acme_h")
    }
    assert found == {("h200", "h100"): [nvidia], ("acme_h",): []}


# --- the images a recipe's lists reach ------------------------------------------------------


def test_each_recipe_list_a_command_joins_maps_to_the_images_of_its_hardware() -> None:
    fragment = (
        "compatible_strategies: [single_node_tp, single_node_tep]\n"
        "model:\n  docker_image: {amd: 'vllm/vllm-openai-rocm:v0.20.0'}\n"
        "  base_args: ['--max-num-seqs', '8']\n"
        "hardware_overrides:\n  hopper: {extra_args: ['--b', '2']}\n  cpu: {extra_args: ['--c']}\n"
    )
    ctx, doc, _assembler, _combos = _planned(fragment)
    # single_node_tep's own vllm_args are the strategy file's, not the recipe's; no command
    # runs on cpu hardware (xeon6 is restricted and not declared).
    assert commandplan.images_reached(ctx, doc) == {
        ("model", "base_args"): frozenset(
            {"vllm/vllm-openai:latest", "vllm/vllm-openai-rocm:v0.20.0"}
        ),
        ("hardware_overrides", "hopper", "extra_args"): frozenset({"vllm/vllm-openai:latest"}),
    }


def test_a_list_reaches_the_image_of_every_hardware_its_command_stands_for() -> None:
    # The layers read the generation a profile lists under either key, the image only one
    # under `generation`: tpu_b, with the tpu generation under `gpu_generation`, shares
    # tpu_a's command but runs in the NVIDIA image.
    taxonomy = _taxonomy_with(
        {
            "tpu_a": "brand: Google\ngeneration: tpu\ngpu_count: 8\nvram_gb: 256",
            "tpu_b": "brand: Google\ngpu_generation: tpu\ngpu_count: 8\nvram_gb: 256",
        }
    )
    ctx, doc, _assembler, combos = _planned(
        "hardware_overrides:\n  tpu: {extra_args: [--t]}\n", taxonomy
    )
    assert [c.members for c in combos if c.hw_id.startswith("tpu_")] == [("tpu_a", "tpu_b")]
    reached = commandplan.images_reached(ctx, doc)
    assert reached is not None
    assert reached[("hardware_overrides", "tpu", "extra_args")] == frozenset(
        {"vllm/vllm-tpu:latest", "vllm/vllm-openai:latest"}
    )


def test_the_images_a_recipe_reaches_are_unknown_when_its_commands_cannot_all_be_told() -> None:
    def reached(text: str) -> object:
        tree, doc = tree_in_memory(RECIPE, text)
        return commandplan.images_reached(CheckContext(tree, Config()), doc)

    assert reached(document_text(RECIPE, Fragment("meta:\n  tasks: [omni]\n"))) is None
    assert reached(document_text(RECIPE, Fragment("meta:\n  hardware: 5\n"))) is None
    hostile = base_recipe()  # exactly MAX_COMBINATIONS planned: the cap is reached
    hostile["compatible_strategies"] = ["single_node_tp", "single_node_tep", "pd_cluster"]
    hostile["variants"] = {
        f"v{i}": {"precision": "bf16", "vram_minimum_gb": 20} for i in range(250)
    }
    assert reached(json.dumps(hostile)) is None
    assert reached(document_text(RECIPE, Fragment("{}"))) == {}  # told: it holds no list
