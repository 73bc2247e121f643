"""RL380–RL383 (recipelint.rules.deployment): where each finding is placed, what it says, what
stays silent, and the command line on a small tree; the ranks of an emitter's tokens, kept
per token list, are what the plain computation gives; the cap on the commands one recipe has
judged."""

from __future__ import annotations

import contextlib
import dataclasses
import io
from pathlib import Path
from typing import Any
from unittest.mock import patch

from hypothesis import example, given
from hypothesis import strategies as st
from propertyprofile import property_profile
from rulehelp import MULTI_NODE
from rulehelp import findings_of as _findings
from treehelp import CONTEXT, Fragment, build_tree, context_text, findings_by_code

from recipelint.cli import main
from recipelint.flags.catalog import newest_catalog
from recipelint.resolve.command import Combination
from recipelint.resolve.deployment import Deployment, rank_problem, ranks_of
from recipelint.resolve.placement import Placement
from recipelint.rules.deployment import _fit_hint, _gpu_vram, _gpus, _Recipe, _Shared, fit_problem


def test_a_strategys_own_tensor_size_that_leaves_a_multi_node_world_short_is_reported(
    tmp_path: Path,
) -> None:
    found = _findings(
        tmp_path,
        MULTI_NODE
        + "strategy_overrides:\n  multi_node_tp:\n    extra_args: ['--tensor-parallel-size', '8']\n",
        "RL380",
    )
    assert found, "the override's size 8 replaces the emitter's 16 on a 2-node world of 16 GPUs"
    first = found[0]
    assert first.pointer == ("strategy_overrides", "multi_node_tp", "extra_args", 0)
    assert "start 8 ranks (TP 8)" in first.message
    assert "2 nodes × 8 GPUs = 16 GPUs" in first.message and "8 of them idle" in first.message
    assert first.hint is not None and "TP 16" in first.hint


def test_a_size_that_asks_for_more_gpus_than_the_node_has_is_reported_at_its_item(
    tmp_path: Path,
) -> None:
    recipe = (
        MULTI_NODE
        + "strategy_overrides:\n  single_node_dep:\n    extra_args: ['--data-parallel-size=16']\n"
    )
    [dep] = [d for d in _findings(tmp_path, recipe, "RL380") if "h200" in d.message]
    assert dep.pointer == ("strategy_overrides", "single_node_dep", "extra_args", 0)
    assert "`--data-parallel-size=16` makes the single_node_dep command" in dep.message
    assert "start 16 ranks (TP 1 × DP 16)" in dep.message
    assert "the strategy allots 8 GPUs" in dep.message


def test_one_item_that_oversizes_every_variant_is_one_finding_naming_them(tmp_path: Path) -> None:
    recipe = (
        MULTI_NODE
        + "variants:\n  default:\n    precision: bf16\n  fp8:\n    precision: fp8\n"
        + "    model_id: acme/demo-FP8\n"
        + "strategy_overrides:\n  single_node_dep:\n    extra_args: ['--data-parallel-size=16']\n"
    )
    found = [d for d in _findings(tmp_path, recipe, "RL380") if "h200" in d.message]
    assert len(found) == 1, [d.message for d in found]
    assert "command of variants `default`, `fp8` start 16 ranks" in found[0].message


def test_an_item_rl310_reports_is_left_to_it(tmp_path: Path) -> None:
    recipe = MULTI_NODE + "variants:\n  default:\n    extra_args: ['--tensor-parallel-size', '2']\n"
    found = findings_by_code(tmp_path, {"models/acme/demo.yaml": Fragment(recipe)})
    [multiplies] = found["RL310"]
    assert multiplies.pointer == ("variants", "default", "extra_args", 0)
    assert "RL380" not in found  # one problem, one finding


def test_sizes_the_emitter_sets_alone_or_that_fit_are_left_alone(tmp_path: Path) -> None:
    fits = MULTI_NODE + "strategy_overrides:\n  single_node_dep:\n    extra_args: ['-dp', '4']\n"
    assert _findings(tmp_path / "a", MULTI_NODE, "RL380") == []
    assert [d for d in _findings(tmp_path / "b", fits, "RL380") if "h200" in d.message] == []


def test_an_architecture_image_pinned_for_every_hardware_is_reported_at_the_pin(
    tmp_path: Path,
) -> None:
    recipe = (
        "model:\n  docker_image: 'vllm/vllm-openai:v0.20.0-aarch64'\n"
        "meta:\n  hardware:\n    dgx_spark_gb10: verified\n"
    )
    [finding] = _findings(tmp_path, recipe, "RL381")
    assert finding.pointer == ("model", "docker_image")
    assert "built for aarch64" in finding.message and "h100" in finding.message
    assert "dgx_spark_gb10" not in finding.message


def test_an_architecture_image_pinned_for_its_own_hardware_is_left_alone(tmp_path: Path) -> None:
    recipe = (
        "meta:\n  hardware:\n    dgx_spark_gb10: verified\n"
        "variants:\n  default:\n    hardware_overrides:\n      dgx_spark_gb10:\n"
        "        docker_image: 'vllm/vllm-openai:v0.20.0-aarch64'\n"
    )
    assert _findings(tmp_path, recipe, "RL381") == []


def test_a_host_architecture_field_decides_over_the_profile_words(tmp_path: Path) -> None:
    taxonomy = context_text("taxonomy.yaml").replace(
        "  h100:\n    brand: NVIDIA\n", "  h100:\n    arch: aarch64\n    brand: NVIDIA\n", 1
    )
    recipe = "model:\n  docker_image: 'vllm/vllm-openai:v0.20.0-x86_64'\n"
    by_code = findings_by_code(
        tmp_path, {"taxonomy.yaml": taxonomy, "models/acme/demo.yaml": Fragment(recipe)}
    )
    [finding] = by_code["RL381"]
    assert finding.message.endswith("also runs it on `h100`, `gb200`, `gb300` (aarch64 hosts)")


def test_weights_beyond_the_gpus_of_the_command_are_an_error_at_the_variant(
    tmp_path: Path,
) -> None:
    recipe = (
        "model:\n  parameter_count: '100B'\n  active_parameters: '100B'\n"
        "variants:\n  default:\n    vram_minimum_gb: 240\n    tp: 1\n"
    )
    found = findings_by_code(tmp_path, {"models/acme/demo.yaml": Fragment(recipe)})
    # One finding for the variant, naming each hardware with the room its command gives.
    [weights] = found["RL382"]
    assert weights.pointer == ("variants", "default")
    assert "take 200 GB" in weights.message
    assert "`h100` (80 GB of 1 GPU, single_node_tp)" in weights.message
    assert "`h200` (141 GB of 1 GPU, single_node_tp)" in weights.message
    assert "RL383" not in found  # the same command: one finding, the error


def test_weights_beyond_the_gpus_of_a_variant_without_a_minimum_are_an_error(
    tmp_path: Path,
) -> None:
    # PRs 412/427 added vram_minimum_gb to a 1T fp8 variant offered on 8x H100: the weights
    # never fitted, with or without the figure, so the base must know the problem too.
    recipe = (
        "model:\n  parameter_count: '100B'\n  active_parameters: '100B'\n"
        "variants:\n  default:\n    vram_minimum_gb: !delete\n    tp: 1\n"
    )
    found = findings_by_code(tmp_path, {"models/acme/demo.yaml": Fragment(recipe)})
    [weights] = found["RL382"]
    assert "take 200 GB" in weights.message and "`h100` (80 GB of 1 GPU" in weights.message
    assert [d.pointer for d in found["RL103"]] == [("variants", "default")]


def test_a_declared_minimum_beyond_the_gpus_is_a_warning_and_a_fitting_one_is_silent(
    tmp_path: Path,
) -> None:
    over = (
        "model:\n  parameter_count: '40B'\n  active_parameters: '40B'\n"
        "variants:\n  default:\n    vram_minimum_gb: 100\n    tp: 1\n"
    )
    found = _findings(tmp_path / "a", over, "RL383")
    assert found and found[0].pointer == ("variants", "default", "vram_minimum_gb")
    sized = over.replace("    tp: 1\n", "")
    assert _findings(tmp_path / "b", sized, "RL383") == []


def test_the_command_line_reports_the_deployment_rules_on_a_small_tree(tmp_path: Path) -> None:
    tree = build_tree(
        tmp_path / "tree",
        {
            "models/acme/demo.yaml": Fragment(
                MULTI_NODE + "strategy_overrides:\n  multi_node_tp:\n    extra_args: ['-tp', '8']\n"
            )
        },
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["check", "--select", "RL380,RL381,RL382,RL383", str(tree)])
    assert status == 1
    text = out.getvalue()
    assert "RL380 error" in text and "models/acme/demo.yaml" in text


def test_extending_a_deployment_problem_to_another_hardware_changes_its_fingerprint(
    tmp_path: Path,
) -> None:
    # The hardware a finding names is part of its cause: a change that adds a hardware on
    # which the same command cannot run is a new finding under --new-from-rev.
    from recipelint.report.baseline import fingerprint

    recipe = "model:\n  docker_image: 'vllm/vllm-openai:v0.20.0-x86_64'\n"
    taxonomy = context_text("taxonomy.yaml")
    [before] = findings_by_code(
        tmp_path / "a", {"taxonomy.yaml": taxonomy, "models/acme/demo.yaml": Fragment(recipe)}
    )["RL381"]
    with_h100 = taxonomy.replace(
        "  h100:\n    brand: NVIDIA\n", "  h100:\n    arch: aarch64\n    brand: NVIDIA\n", 1
    )
    [after] = findings_by_code(
        tmp_path / "b", {"taxonomy.yaml": with_h100, "models/acme/demo.yaml": Fragment(recipe)}
    )["RL381"]
    assert "`h100`" in after.message and "`h100`" not in before.message
    assert fingerprint(before, tmp_path / "a") != fingerprint(after, tmp_path / "b")


TOKENS = st.lists(
    st.sampled_from(
        ["--tensor-parallel-size", "-tp", "--data-parallel-size", "--enable-expert-parallel"]
        + ["2", 2, 2.0, 1, True, "", 0, "--tensor-parallel-size=4", "--no-enable-expert-parallel"]
    ),
    max_size=6,
)


@property_profile(300)
@given(st.lists(TOKENS, min_size=1, max_size=4))
@example([["--tensor-parallel-size", 1], ["--tensor-parallel-size", True]])  # equal, not alike
def test_emitter_ranks_are_ranks_of(lists: list[list[object]]) -> None:
    shared = _Shared.__new__(_Shared)
    shared._ranks = {}
    flags = newest_catalog()
    for tokens in lists + lists:  # asked again, from the kept answers
        assert repr(shared.emitter_ranks(tokens, flags)) == repr(ranks_of(tokens, flags))


def test_an_image_pinned_for_another_hardware_is_reported_at_the_pin_that_runs_it(
    tmp_path: Path,
) -> None:
    """The same image pinned for its own hardware and by the model: h100 runs the model's."""
    image = "'vllm/vllm-openai:v0.20.0-aarch64'"
    recipe = (
        f"model:\n  docker_image: {image}\n"
        "meta:\n  hardware:\n    dgx_spark_gb10: verified\n"
        "variants:\n  default:\n    hardware_overrides:\n      dgx_spark_gb10:\n"
        f"        docker_image: {image}\n"
    )
    [finding] = _findings(tmp_path, recipe, "RL381")
    assert finding.pointer == ("model", "docker_image")
    assert "h100" in finding.message and "dgx_spark_gb10" not in finding.message


def test_two_ranks_on_the_one_gpu_a_command_is_allotted_are_a_rank_problem() -> None:
    found = _one_gpu_deployment(["--tensor-parallel-size", "2"])
    assert rank_problem(found) == "the strategy allots 1 GPU"
    assert rank_problem(_one_gpu_deployment([])) is None


def _one_gpu_deployment(tokens: list[object]) -> Deployment:
    """A single-node command on a hardware of one GPU, starting the ranks ``tokens`` set."""
    ranks = ranks_of(tokens, newest_catalog())
    return Deployment(
        "default", "station", "single_node_tp", None, "single_node", 1, 1, 1, ranks,
        "cuda", "x86_64", False, 96.0, 16.0, 20.0, None,
    )  # fmt: skip


def test_the_deployment_rules_place_each_variant_on_each_hardware_once(tmp_path: Path) -> None:
    """The commands of a (variant, hardware) share one Placement, and the work it joined."""
    made: list[tuple[object, ...]] = []

    class Counted(Placement):
        def __init__(self, *args: Any) -> None:
            made.append(args[2:4])
            super().__init__(*args)

    oversized = (
        "strategy_overrides:\n  single_node_dep:\n    extra_args: ['--data-parallel-size=16']\n"
    )
    with patch("recipelint.rules.deployment.Placement", Counted):
        assert _findings(tmp_path, MULTI_NODE + oversized, "RL380")
    assert made and len(made) == len(set(made))


def test_an_image_a_variant_pins_over_the_models_is_reported_at_the_variants_pin(
    tmp_path: Path,
) -> None:
    """The variant's docker_image hides the model's for that variant: the fix is in the variant,
    even when both name the same image."""
    image = "'vllm/vllm-openai:v0.20.0-aarch64'"
    recipe = (
        f"model:\n  docker_image: {image}\n"
        "meta:\n  hardware:\n    dgx_spark_gb10: verified\n"
        f"variants:\n  default:\n    docker_image: {image}\n"
    )
    [finding] = _findings(tmp_path, recipe, "RL381")
    assert finding.pointer == ("variants", "default", "docker_image")
    assert "but variants.default.docker_image also runs it on `h200`, `h100`" in finding.message


def test_an_image_pinned_for_one_hardware_is_reported_there_apart_from_the_variants_pin(
    tmp_path: Path,
) -> None:
    """An x86 host's own override that pins an Arm image is the pin to fix on that host; the
    variant's pin of the same image is blamed for the other hosts only."""
    image = "'vllm/vllm-openai:v0.20.0-aarch64'"
    recipe = (
        "meta:\n  hardware:\n    dgx_spark_gb10: verified\n"
        f"variants:\n  default:\n    docker_image: {image}\n"
        f"    hardware_overrides:\n      h100:\n        docker_image: {image}\n"
    )
    found = {d.pointer: d.message for d in _findings(tmp_path, recipe, "RL381")}
    override = ("variants", "default", "hardware_overrides", "h100", "docker_image")
    assert set(found) == {("variants", "default", "docker_image"), override}
    assert found[override].endswith("also runs it on `h100` (x86_64 hosts)")
    assert "`h100`" not in found[("variants", "default", "docker_image")]
    assert "`h200`" in found[("variants", "default", "docker_image")]


def test_a_recipe_planning_more_than_4000_commands_is_judged_on_the_first_4000(
    tmp_path: Path,
) -> None:
    """The cap bounds what a hostile file costs: a size set for every command of 40 variants
    over every strategy is about 4300 commands, and the later variants are never planned."""
    judged: list[str] = []
    real = _Recipe._deployment

    def counted(self: _Recipe, combo: Combination, role: str | None) -> Deployment | None:
        judged.append(combo.variant_key)
        return real(self, combo, role)

    strategies = ", ".join(path.stem for path in sorted((CONTEXT / "strategies").glob("*.yaml")))
    variants = "".join(f"  v{i}:\n    precision: bf16\n" for i in range(39))
    recipe = (
        f"compatible_strategies: [{strategies}]\n"
        "model:\n  architecture: moe\n  base_args: ['--tensor-parallel-size', '2']\n"
        f"variants:\n{variants}"
    )
    with patch.object(_Recipe, "_deployment", counted):
        _findings(tmp_path, recipe, "RL380")
    assert len(judged) == 4000
    assert judged[0] == "default" and "v38" not in judged


def test_weights_past_one_gpu_are_judged_in_a_pool_of_one_gpu_even_with_tp_left_null(
    tmp_path: Path,
) -> None:
    """A co-located PD pool on a node of three GPUs holds one of them (floor(3 / 2)): 100 GB
    of weights outgrow its 80 GB. Leaving `tp` null declares no size, yet the pool is no half
    node (120 GB), so the variant must still be planned and judged."""
    taxonomy = context_text("taxonomy.yaml").replace(
        "    gpu_count: 8\n    vram_gb: 640\n", "    gpu_count: 3\n    vram_gb: 240\n", 1
    )
    recipe = (
        "compatible_strategies: [pd_cluster]\n"
        "strategy_overrides:\n  single_node_tp:\n    tp: null\n"
        "variants:\n  default:\n    vram_minimum_gb: 100\n    tp: null\n"
    )
    documents = {"models/acme/demo.yaml": Fragment(recipe), "taxonomy.yaml": taxonomy}
    found = findings_by_code(tmp_path, documents).get("RL383", [])
    assert any("h100" in finding.message for finding in found)


def test_weights_that_exactly_fill_the_room_fit_and_no_room_judges_nothing() -> None:
    """A variant without vram_minimum_gb is judged by its weights alone: RL382 only past the
    room (a whole box of 96 GB here, which cannot scale out); with no room known, nothing."""
    box = dataclasses.replace(_one_gpu_deployment([]), vram_minimum_gb=None)
    assert fit_problem(dataclasses.replace(box, weights_gb=96.0)) is None
    assert fit_problem(dataclasses.replace(box, weights_gb=96.5)) == "RL382"
    unknown = dataclasses.replace(box, scalable=True, vram_per_node_gb=None, weights_gb=500.0)
    assert fit_problem(unknown) is None


def test_one_gpus_memory_needs_both_the_nodes_memory_and_its_gpus() -> None:
    assert _gpu_vram({"vram_gb": 640, "gpu_count": 8}) == 80
    assert _gpu_vram({"vram_gb": 640}) is None
    assert _gpu_vram({"gpu_count": 8}) is None
    assert _gpu_vram({"vram_gb": 640, "gpu_count": 0}) is None


def test_the_gpus_a_copy_of_the_weights_is_spread_over_are_at_most_those_allotted() -> None:
    assert _gpus(_one_gpu_deployment(["--tensor-parallel-size", "2"])) == "the 1 GPU"
    two = dataclasses.replace(_one_gpu_deployment(["--tensor-parallel-size", "2"]), gpus_allotted=2)
    assert _gpus(two) == "the 2 GPUs"


def test_an_image_under_the_nvidia_key_is_judged_on_every_brand_it_serves(tmp_path: Path) -> None:
    """The `nvidia` key of a docker_image map serves every brand the map does not name: a CUDA
    image there runs on an NPU profile too, and is reported there."""
    taxonomy = context_text("taxonomy.yaml").replace(
        "  h100:\n    brand: NVIDIA\n    generation: hopper\n",
        "  h100:\n    brand: Huawei\n    generation: ascend\n",
        1,
    )
    recipe = "model:\n  docker_image:\n    nvidia: 'vllm/vllm-openai:v0.20.0-cu130'\n"
    documents = {"models/acme/demo.yaml": Fragment(recipe), "taxonomy.yaml": taxonomy}
    found = findings_by_code(tmp_path, documents).get("RL381", [])
    assert any("h100" in d.message and "NPU accelerators" in d.message for d in found)


def test_a_declared_size_equal_to_the_weights_confirms_them() -> None:
    """vram_minimum_gb at the weights' own estimate agrees they are that large: RL382."""
    box = dataclasses.replace(_one_gpu_deployment([]), weights_gb=100.0, vram_minimum_gb=100.0)
    assert fit_problem(box) == "RL382"
    assert fit_problem(dataclasses.replace(box, vram_minimum_gb=99.0)) == "RL383"
    assert fit_problem(dataclasses.replace(box, weights_gb=90.0)) == "RL383"


def test_the_fit_hint_follows_what_can_give_the_weights_more_room() -> None:
    box = _one_gpu_deployment([])
    assert _fit_hint(box).startswith("keep the variant off that hardware")
    scalable = dataclasses.replace(box, scalable=True)
    assert _fit_hint(scalable).startswith("size the command over more GPUs")
    assert _fit_hint(dataclasses.replace(scalable, nodes=2)).startswith("raise strategy_min_gpus")


def test_a_profile_without_memory_is_no_room_to_outgrow(tmp_path: Path) -> None:
    taxonomy = context_text("taxonomy.yaml").replace("    vram_gb: 1128\n", "", 1)
    recipe = "variants:\n  default:\n    precision: bf16\n    vram_minimum_gb: 900\n"
    documents = {"models/acme/demo.yaml": Fragment(recipe), "taxonomy.yaml": taxonomy}
    found = findings_by_code(tmp_path, documents)
    assert not any("h200" in d.message for d in found.get("RL383", []) + found.get("RL382", []))


def test_each_pd_roles_oversize_is_reported_at_its_own_item(tmp_path: Path) -> None:
    """The prefill and decode commands of one combination are judged one after the other: each
    role's finding names the item of its own block."""
    recipe = (
        "compatible_strategies: [single_node_tp, pd_cluster]\n"
        "strategy_overrides:\n  pd_cluster:\n"
        "    prefill:\n      extra_args: ['--tensor-parallel-size', '16']\n"
        "    decode:\n      extra_args: ['--tensor-parallel-size', '32']\n"
    )
    found = _findings(tmp_path, recipe, "RL380")
    pointers = {finding.pointer for finding in found}
    assert ("strategy_overrides", "pd_cluster", "prefill", "extra_args", 0) in pointers
    assert ("strategy_overrides", "pd_cluster", "decode", "extra_args", 0) in pointers


def test_a_host_on_its_default_image_is_not_blamed_on_another_hardware_s_pin(
    tmp_path: Path,
) -> None:
    """xeon6 pins the x86 CPU image that is also upstream's default for every CPU host: an Arm
    host runs it as that default, not through xeon6's pin, so the pin is no fault of its."""
    arm_host = (
        "  graviton4:\n    brand: AWS\n    generation: cpu\n    arch: aarch64\n"
        "    display_name: Graviton 4\n    gpu_count: 1\n    vram_gb: 512\n"
    )
    taxonomy = context_text("taxonomy.yaml").replace("  xeon6:\n", arm_host + "  xeon6:\n", 1)
    recipe = (
        "meta:\n  hardware:\n    xeon6: verified\n    graviton4: verified\n"
        "variants:\n  default:\n    hardware_overrides:\n      xeon6:\n"
        "        docker_image: 'vllm/vllm-openai-cpu:latest-x86_64'\n"
    )
    documents = {"models/acme/demo.yaml": Fragment(recipe), "taxonomy.yaml": taxonomy}
    assert findings_by_code(tmp_path, documents).get("RL381", []) == []
