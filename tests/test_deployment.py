"""The deployment model (recipelint.resolve.deployment): ranks from an argv, host and platform
of a hardware profile, what an image names, and one deployment of a rendered combination."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from treehelp import base_recipe, context_in_memory

from recipelint import argv
from recipelint.flags.catalog import catalog_for, newest_catalog
from recipelint.resolve.command import Combination, RenderInputs, rendered_layers
from recipelint.resolve.deployment import (
    RANK_OPTIONS,
    Deployment,
    _count,
    _Placed,
    arch_of,
    bytes_per_param,
    deployment_of_argv,
    image_facts,
    parameter_billions,
    platform_of,
    positive_int,
    rank_problem,
    ranks_of,
    variant_weights_gb,
)

NEWEST = newest_catalog()


def test_every_spelling_a_release_accepts_sets_a_size_and_the_later_one_wins() -> None:
    ranks = ranks_of(
        ["--tensor-parallel-size", "8", "-tp", "2", "--pipeline_parallel_size=3", "-dp=4"], NEWEST
    )
    assert (ranks.tensor, ranks.pipeline, ranks.data) == (2, 3, 4)
    assert ranks.world_size == 6 and ranks.total == 24
    assert ranks.setter("--tensor-parallel-size") == (2, "-tp", "2")


def test_prefill_context_parallelism_multiplies_ranks_only_in_releases_that_have_it() -> None:
    tokens = ["-tp", "2", "--prefill-context-parallel-size", "2", "-dcp", "2"]
    older, newer = catalog_for("0.11.0"), catalog_for("0.12.0")
    assert older is not None and newer is not None
    assert ranks_of(tokens, older).total == 2
    assert ranks_of(tokens, newer).total == 4  # decode context parallelism reuses TP ranks


def test_a_size_that_is_no_positive_integer_is_unreadable() -> None:
    ranks = ranks_of(["--tensor-parallel-size", "$TP", "--data-parallel-size", "0"], NEWEST)
    assert not ranks.known
    assert ranks.unreadable == ("--data-parallel-size", "--tensor-parallel-size")


def test_expert_parallelism_spreads_the_weights_over_every_rank() -> None:
    dense = ranks_of(["--data-parallel-size", "8"], NEWEST)
    moe = ranks_of(["--data-parallel-size", "8", "--enable-expert-parallel"], NEWEST)
    assert (dense.weight_shards, moe.weight_shards) == (1, 8)


def test_the_host_architecture_comes_from_the_field_then_the_profile_words() -> None:
    profiles = context_in_memory().taxonomy.data["hardware_profiles"]  # type: ignore[union-attr]
    assert arch_of(profiles["h100"]) == "x86_64"
    assert arch_of(profiles["gb200"]) == "aarch64"
    assert arch_of(profiles["dgx_spark_gb10"]) == "aarch64"
    new_superchip = {
        "brand": "NVIDIA",
        "generation": "rubin",
        "display_name": "VR200",
        "description": "Vera Rubin tray with Grace successor, NVIDIA Grace CPU",
        "gpu_count": 4,
        "vram_gb": 1152,
    }
    assert arch_of(new_superchip) == "aarch64"
    assert arch_of({**profiles["gb200"], "arch": "x86_64"}) == "x86_64"
    assert (platform_of(profiles["mi300x"]), platform_of(profiles["xeon6"])) == ("rocm", "cpu")


def test_an_image_reference_says_its_release_architecture_and_platform() -> None:
    arm = image_facts("vllm/vllm-openai:v0.20.2-aarch64")
    assert (arm.repository, arm.tag, arm.vllm_release, arm.arch) == (
        "vllm/vllm-openai",
        "v0.20.2-aarch64",
        "0.20.2",
        "aarch64",
    )
    assert image_facts("vllm/vllm-openai-rocm:nightly").platform == "rocm"
    assert image_facts("vllm/vllm-openai:gemma4-0505-cu130").platform == "cuda"
    assert image_facts("quay.io/ascend/vllm-ascend:qwen3.8-a5").platform == "npu"
    plain = image_facts("vllm/vllm-openai:latest")
    assert (plain.arch, plain.platform, plain.vllm_release) == (None, None, None)


def _inputs() -> RenderInputs:
    tree = context_in_memory()
    taxonomy = tree.taxonomy.data if tree.taxonomy is not None else {}
    strategies = {doc.data["name"]: doc.data for doc in tree.strategies}
    return RenderInputs(taxonomy, taxonomy["hardware_profiles"], strategies)


def test_a_multi_node_command_is_allotted_every_node_and_its_ranks_come_from_the_argv() -> None:
    catalog, recipe = _inputs(), base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "multi_node_tp"]
    recipe["strategy_overrides"] = {"multi_node_tp": {"extra_args": ["-tp", "8"]}}
    combo = Combination("default", "multi_node_tp", "h200", 2)
    tokens = argv.dedupe_tokens(rendered_layers(catalog, recipe, combo)[0])
    found = deployment_of_argv(catalog, recipe, combo, None, tokens, NEWEST)
    assert (found.nodes, found.gpus_per_node, found.gpus_allotted) == (2, 8, 16)
    assert found.multi_node
    assert found.ranks.total == 8  # the override's -tp 8 comes after the emitter's 16
    assert (found.platform, found.arch, found.weights_gb) == ("cuda", "x86_64", 16.0)
    assert found.describe()[:2] == [
        "multi_node_tp on h200: 2 nodes × 8 GPUs",
        "GPUs: 8 used of 16 allotted (TP 8)",
    ]


def test_a_colocated_pd_role_is_allotted_half_a_node() -> None:
    catalog, recipe = _inputs(), base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "pd_cluster"]
    combo = Combination("default", "pd_cluster", "h200", 1, (), {"prefill": 0, "decode": 0})
    tokens = rendered_layers(catalog, recipe, combo, "prefill")[0]
    found = deployment_of_argv(catalog, recipe, combo, "prefill", tokens, NEWEST)
    assert (found.role, found.nodes, found.gpus_allotted, found.ranks.total) == (
        "prefill",
        1,
        4,
        4,
    )


# --- the world size against the argv, for generated commands -------------------------------

SPELLINGS = {
    "--tensor-parallel-size": ("--tensor-parallel-size", "-tp", "--tensor_parallel_size"),
    "--pipeline-parallel-size": ("--pipeline-parallel-size", "-pp"),
    "--data-parallel-size": ("--data-parallel-size", "-dp"),
}
OTHER = st.sampled_from(
    [["--max-model-len", "4096"], ["--enable-prefix-caching"], ["--trust-remote-code"], []]
)


@st.composite
def settings_and_argv(draw: st.DrawFn) -> tuple[list[tuple[str, int]], list[Any]]:
    """(each parallel setting in order as (canonical, value), the argv that makes them)."""
    settings_made: list[tuple[str, int]] = []
    tokens: list[Any] = []
    for _ in range(draw(st.integers(0, 8))):
        tokens += draw(OTHER)
        canonical = draw(st.sampled_from(sorted(SPELLINGS)))
        spelled = draw(st.sampled_from(SPELLINGS[canonical]))
        value = draw(st.integers(1, 16))
        tokens += [f"{spelled}={value}"] if draw(st.booleans()) else [spelled, str(value)]
        settings_made.append((canonical, value))
    return settings_made, tokens


@settings(max_examples=200, deadline=None)
@given(settings_and_argv())
def test_the_world_size_is_the_product_of_the_last_setting_of_each_size(
    made: tuple[list[tuple[str, int]], list[Any]],
) -> None:
    settings_made, tokens = made
    last = dict(settings_made)  # a later setting of an option replaces the earlier one
    expected = 1
    for canonical in SPELLINGS:
        expected *= last.get(canonical, 1)
    for rendered in (tokens, argv.dedupe_tokens(tokens)):
        ranks = ranks_of(rendered, NEWEST)
        assert ranks.total == expected
        assert {option for option, _setter in ranks.set_by} == set(last)
    assert set(RANK_OPTIONS) >= set(SPELLINGS)


def test_placed_facts_are_the_deployment_s_last_fields() -> None:
    """deployment_of hands a _Placed to Deployment by position."""
    names = tuple(field.name for field in dataclasses.fields(Deployment))
    assert names[-len(_Placed._fields) :] == _Placed._fields


# --- weights and rooms ------------------------------------------------------------------------


def test_a_parameter_count_reads_in_billions_whatever_its_unit() -> None:
    assert parameter_billions("7000K") == pytest.approx(0.007)
    assert parameter_billions("350m") == pytest.approx(0.35)
    assert parameter_billions("~70B") == 70.0
    assert parameter_billions("1.2T") == 1200.0
    assert parameter_billions("70") is None and parameter_billions(70) is None


def test_four_bit_precisions_take_half_a_byte_per_parameter() -> None:
    assert [bytes_per_param(p) for p in ("INT4", "nvfp4", "fp4", "MXFP4")] == [0.5] * 4
    assert (bytes_per_param("bf16"), bytes_per_param("fp8"), bytes_per_param("q2")) == (
        2.0,
        1.0,
        None,
    )


def test_a_count_that_is_no_positive_number_reads_as_one() -> None:
    assert [_count(value) for value in (0, -2, 0.5, float("nan"), "8", None, True)] == [1] * 7
    assert (_count(8), _count(2.0)) == (8, 2)


def test_without_allotted_gpus_the_weights_have_one_gpu_s_room() -> None:
    """A scalable hardware's room is the GPUs the weights are sharded over, at least one."""
    catalog, recipe = _inputs(), base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp"]
    combo = Combination("default", "single_node_tp", "h200", 1)
    tokens = rendered_layers(catalog, recipe, combo)[0]
    found = deployment_of_argv(catalog, recipe, combo, None, tokens, NEWEST)
    assert found.scalable and found.vram_per_gpu_gb is not None
    per_gpu = found.vram_per_gpu_gb
    assert found.weights_room_gb == per_gpu * min(found.ranks.weight_shards, found.gpus_allotted)
    assert dataclasses.replace(found, gpus_allotted=0).weights_room_gb == per_gpu


def test_eight_bit_precisions_take_a_byte_per_parameter() -> None:
    eight_bit = ("fp8", "mxfp8", "int8", "awq", "gptq")
    assert [bytes_per_param(p) for p in eight_bit] == [1.0] * 5
    assert bytes_per_param("FP16") == 2.0


def test_a_size_reads_as_argparse_reads_it_a_positive_integer_or_its_digits() -> None:
    assert [positive_int(value) for value in (8, 1, "8", " 2 ")] == [8, 1, 8, 2]
    assert [positive_int(value) for value in (0, -1, "0", "-2", True, 2.5, "x", None)] == [None] * 8


def test_a_checkpoint_described_as_mixed_precision_has_no_weight_figure() -> None:
    recipe = base_recipe()  # parameter_count 8B
    assert variant_weights_gb(recipe, {"precision": "fp8"}) == 8.0
    mixed_label = {"precision": "fp8", "label": "FP8 mixed (attention in BF16)"}
    assert variant_weights_gb(recipe, mixed_label) is None
    recipe["meta"]["description"] = "Native FP4+FP8 weights."
    assert variant_weights_gb(recipe, {"precision": "fp8"}) is None
    # the recipe's words speak for the variant only where they name its precision
    assert variant_weights_gb(recipe, {"precision": "bf16"}) == 16.0


def test_a_recipe_joining_other_things_with_a_plus_is_not_mixed_precision() -> None:
    recipe = base_recipe()
    recipe["meta"]["description"] = "FP8 checkpoint with linear + MLA attention."
    assert variant_weights_gb(recipe, {"precision": "fp8"}) == 8.0


def test_an_x86_host_word_names_the_host_where_no_platform_says() -> None:
    profile = {"brand": "Acme", "description": "Accelerator tray on an AMD EPYC host"}
    assert platform_of(profile) is None
    assert arch_of(profile) == "x86_64"
    assert arch_of({"brand": "Acme"}) is None


def _single_node_h200() -> Deployment:
    catalog, recipe = _inputs(), base_recipe()
    combo = Combination("default", "single_node_tp", "h200", 1)
    tokens = rendered_layers(catalog, recipe, combo)[0]
    return deployment_of_argv(catalog, recipe, combo, None, tokens, NEWEST)


def test_a_single_node_command_may_leave_gpus_it_is_allotted_idle() -> None:
    found = _single_node_h200()
    assert (found.nodes, found.gpus_allotted, found.ranks.total) == (1, 8, 1)
    assert not found.multi_node
    assert rank_problem(found) is None


def test_the_summary_names_the_platform_host_and_memory() -> None:
    found = _single_node_h200()
    assert found.describe()[2:] == [
        "platform: cuda, host x86_64",
        "memory: weights 16 GB, vram_minimum_gb 20 GB, room for them 141 GB",
        "image: vllm/vllm-openai:latest",
    ]
    unknown = dataclasses.replace(found, platform=None, arch=None, vram_minimum_gb=None)
    assert unknown.describe()[2:4] == [
        "platform: unknown, host unknown",
        "memory: weights 16 GB, room for them 141 GB",
    ]


def test_a_colocated_pd_role_with_more_ranks_than_half_a_node_is_told_so() -> None:
    catalog, recipe = _inputs(), base_recipe()
    recipe["compatible_strategies"] = ["single_node_tp", "pd_cluster"]
    combo = Combination("default", "pd_cluster", "h200", 1, (), {"prefill": 0, "decode": 0})
    tokens = rendered_layers(catalog, recipe, combo, "prefill")[0] + ["-tp", "8"]
    found = deployment_of_argv(catalog, recipe, combo, "prefill", tokens, NEWEST)
    assert rank_problem(found) == "the strategy allots 4 GPUs (half a node of 8)"
