"""The rules of recipelint/rules/resolved.py, which read each recipe's rendered commands.

RL340/RL341: a layer's args replacing another's; RL342: args and env lists under a hardware
key, strategy or PD role no rendered command reads; RL370–RL373 (judged by rules/backends.py,
reported by the one check that plans commands for RL340/RL341 too): attention backends,
quantization methods and MoE backends selected for hardware that cannot run them.

RL340/RL341 and RL370-RL373 plan a recipe's commands only when a cheap test of its own
lists says a rule could find something there; the recipes left unplanned must be ones the
full computation finds nothing in. For every recipe of the trees and for generated ones:
each list a command's layers hold is one of the lists the tests read (the recipe's own at
its declared places, the strategy files'), a recipe the tests pass over gives no finding
when it is planned anyway, and RL370-RL373 find the same when they read only the commands
of hardware that refuses something the recipe selects.
"""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given
from rulehelp import codes
from test_properties_recipes import RENDER_PROFILE, recipes, to_yaml, with_recipe
from treehelp import (
    CONTEXT,
    Fragment,
    build_tree,
    context_text,
    findings_by_code,
)
from treehelp import base_recipe as recipe

from recipelint.cli import cli
from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.flags.hardware import attention_backend
from recipelint.read.load import Document
from recipelint.read.tree import RecipeTree, load_tree
from recipelint.resolve.plan import SYNTHESIS_ERRORS
from recipelint.rules import backends, commandplan, resolved
from recipelint.rules.backends import backend_judge, target_of
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import registered_checks

# --- RL342: lists no rendered command reads -----------------------------------------------


RECIPE = "models/acme/demo.yaml"


def _rl342(tmp_path: Path, fragment: str) -> list[Diagnostic]:
    return findings_by_code(tmp_path, {RECIPE: Fragment(fragment)}).get("RL342", [])


NVIDIA_ONLY = """\
variants:
  default:
    supported_hardware: [h100, b200]
"""


def test_a_variant_override_for_hardware_no_variant_is_offered_on_is_reported(
    tmp_path: Path,
) -> None:
    [finding] = _rl342(
        tmp_path,
        NVIDIA_ONLY
        + """\
    hardware_overrides:
      mi300x:
        extra_args: ["--max-num-seqs", "64"]
        extra_env: {VLLM_ROCM_USE_AITER: "1"}
""",
    )
    assert finding.pointer == ("variants", "default", "hardware_overrides", "mi300x")
    assert finding.message.startswith(
        "variants.default.hardware_overrides.mi300x holds extra_args, extra_env, which no "
        "rendered command reads: `mi300x` names none of variant `default`'s hardware (b200, h100)"
    )
    assert finding.severity is Severity.WARNING


def test_a_variant_override_is_judged_by_that_variants_hardware(tmp_path: Path) -> None:
    # The recipe offers hopper through `default`, but the nvfp4 variant runs on Blackwell only.
    [finding] = _rl342(
        tmp_path,
        """\
variants:
  nvfp4:
    precision: nvfp4
    vram_minimum_gb: 20
    hardware_overrides:
      hopper:
        extra_args: ["--max-num-seqs", "64"]
      blackwell:
        extra_args: ["--max-num-seqs", "32"]
""",
    )
    assert finding.pointer == ("variants", "nvfp4", "hardware_overrides", "hopper")
    assert "`hopper` names none of variant `nvfp4`'s hardware (b200," in finding.message


def test_generation_and_brand_keys_count_every_hardware_they_name(tmp_path: Path) -> None:
    # b200 is read by `blackwell` and by `nvidia` though command_choices walks one
    # hardware per class; `amd` names none of the offered hardware.
    findings = _rl342(
        tmp_path,
        NVIDIA_ONLY
        + """\
hardware_overrides:
  blackwell:
    extra_args: ["--max-num-seqs", "32"]
  nvidia:
    extra_env: {NCCL_DEBUG: "INFO"}
  amd:
    extra_args: ["--max-num-seqs", "64"]
""",
    )
    assert [f.pointer for f in findings] == [("hardware_overrides", "amd")]


def test_a_strategy_the_recipe_does_not_list_is_reported_once_at_its_block(
    tmp_path: Path,
) -> None:
    [finding] = _rl342(
        tmp_path,
        """\
strategy_overrides:
  single_node_tep:
    extra_args: ["--max-num-seqs", "64"]
    hardware_overrides:
      hopper:
        extra_args: ["--max-num-seqs", "32"]
""",
    )
    assert finding.pointer == ("strategy_overrides", "single_node_tep")
    assert "extra_args, hardware_overrides.hopper.extra_args" in finding.message
    assert "`single_node_tep` is not in compatible_strategies" in finding.message


def test_a_pd_role_of_a_strategy_that_has_none_is_reported(tmp_path: Path) -> None:
    [finding] = _rl342(
        tmp_path,
        """\
strategy_overrides:
  single_node_tp:
    prefill:
      extra_args: ["--max-num-seqs", "64"]
""",
    )
    assert finding.pointer == ("strategy_overrides", "single_node_tp", "prefill")
    assert "not a PD one: its commands have no prefill role" in finding.message


def test_a_strategy_override_for_hardware_the_strategy_never_runs_on_is_reported(
    tmp_path: Path,
) -> None:
    # rtx_pro_6000 (restricted, so declared) cannot scale out: no multi-node strategy runs on it.
    [finding] = _rl342(
        tmp_path,
        """\
meta:
  hardware:
    rtx_pro_6000: verified
variants:
  default:
    supported_hardware: [h100, rtx_pro_6000]
compatible_strategies: [single_node_tp, multi_node_tp]
strategy_overrides:
  multi_node_tp:
    hardware_overrides:
      rtx_pro_6000:
        extra_args: ["--max-num-seqs", "64"]
  single_node_tp:
    hardware_overrides:
      rtx_pro_6000:
        extra_args: ["--max-num-seqs", "32"]
""",
    )
    assert finding.pointer == (
        "strategy_overrides",
        "multi_node_tp",
        "hardware_overrides",
        "rtx_pro_6000",
    )
    assert "names none of the multi_node_tp commands' hardware (h100)" in finding.message


def test_keys_other_rules_judge_and_empty_or_default_entries_stay_silent(
    tmp_path: Path,
) -> None:
    findings = findings_by_code(
        tmp_path,
        {
            RECIPE: Fragment(
                NVIDIA_ONLY
                + """\
hardware_overrides:
  mi300x:
    extra_args: ["--max-num-seqs", "64"]
  volta9:
    extra_args: ["--max-num-seqs", "64"]
  amd:
    extra_args: []
strategy_overrides:
  no_such_strategy:
    extra_args: ["--max-num-seqs", "64"]
"""
            )
        },
    )
    assert "RL342" not in findings
    assert {"RL201", "RL202", "RL203"} <= set(findings)


def test_an_omni_recipe_renders_nothing_and_is_not_judged(tmp_path: Path) -> None:
    assert (
        _rl342(
            tmp_path,
            NVIDIA_ONLY
            + """\
meta:
  tasks: [omni]
hardware_overrides:
  amd:
    extra_args: ["--max-num-seqs", "64"]
""",
        )
        == []
    )


def test_the_cli_reports_it_in_a_tree(tmp_path: Path) -> None:
    root = build_tree(
        tmp_path / "tree",
        {
            RECIPE: Fragment(
                NVIDIA_ONLY
                + """\
hardware_overrides:
  amd:
    extra_args: ["--max-num-seqs", "64"]
"""
            )
        },
    )
    result = CliRunner().invoke(
        cli, ["check", "--select", "RL342", "--format", "json", str(root)], catch_exceptions=False
    )
    assert result.exit_code == 0  # a warning
    [finding] = json.loads(result.stdout)
    assert (finding["code"], finding["path"].endswith(RECIPE)) == ("RL342", True)


def test_a_broken_taxonomy_leaves_it_to_the_root_cause(tmp_path: Path) -> None:
    # A usable taxonomy with a schema error where hardware is defined: its findings would be echoes.
    text = context_text("taxonomy.yaml")
    at = text.index("generation: amd", text.index("  mi300x:"))
    taxonomy = text[:at] + "generation: 5" + text[at + len("generation: amd") :]
    recipe = Fragment(NVIDIA_ONLY + "hardware_overrides:\n  amd:\n    extra_args: [--x]\n")
    found = findings_by_code(tmp_path, {RECIPE: recipe, "taxonomy.yaml": taxonomy})
    assert "RL342" not in found and "RL020" in found


# --- RL370-RL373: backends the hardware cannot run ----------------------------------------


CODES = ("RL370", "RL371", "RL372", "RL373")


def _findings(tmp_path: Path, fragment: str) -> dict[str, list[Diagnostic]]:
    found = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)})
    return {code: found.get(code, []) for code in CODES}


def _profiles() -> dict[str, dict[str, object]]:
    taxonomy = yaml.safe_load((CONTEXT / "taxonomy.yaml").read_text(encoding="utf-8"))
    return dict(taxonomy["hardware_profiles"])


def test_a_rocm_backend_for_every_hardware_is_an_error_on_the_nvidia_profiles(
    tmp_path: Path,
) -> None:
    found = _findings(tmp_path, 'model:\n  base_args: ["--attention-backend", "ROCM_AITER_FA"]\n')
    [finding] = found["RL370"]
    assert finding.pointer == ("model", "base_args", 1)
    assert finding.severity is Severity.ERROR
    assert "`--attention-backend ROCM_AITER_FA` selects the attention backend" in finding.message
    assert "in vLLM 0.20.0 only the rocm platform selects it: vLLM refuses to start" in (
        finding.message
    )
    named = finding.message.split(" for ", 1)[1].split(", but", 1)[0].split(", ")
    assert "h100" in named
    platforms = {getattr(target_of(_profiles()[hw]), "platform", None) for hw in named}
    assert platforms == {"cuda"}  # the AMD profiles run it; CPU and TPU ones are RL371's


def test_a_backend_under_the_generation_that_runs_it_is_silent(tmp_path: Path) -> None:
    fragment = (
        'hardware_overrides:\n  amd:\n    extra_args: ["--attention-backend", "ROCM_AITER_FA"]\n'
    )
    assert _findings(tmp_path, fragment) == {code: [] for code in CODES}


def test_an_sm100_kernel_for_all_blackwell_is_reported_for_the_sm120_parts_only(
    tmp_path: Path,
) -> None:
    fragment = (
        "meta:\n  hardware: {b200: verified, rtx_5090: verified}\n"
        'hardware_overrides:\n  blackwell:\n    extra_args: ["--attention-backend", "CUTLASS_MLA"]\n'
    )
    found = _findings(tmp_path, fragment)
    [finding] = found["RL371"]
    assert finding.severity is Severity.WARNING
    named = set(finding.message.split(" for ", 1)[1].split(", but", 1)[0].split(", "))
    for hw in named:
        target = target_of(_profiles()[hw])
        assert target is not None and target.capabilities[0][0] != 10
    assert "b200" not in named and "rtx_5090" in named
    assert "it supports `capability.major == 10` only" in finding.message
    assert found["RL370"] == []


def test_the_env_variable_and_the_attention_config_select_a_backend_too(tmp_path: Path) -> None:
    fragment = (
        'model:\n  min_vllm_version: "0.14.0"\nhardware_overrides:\n  amd:\n'
        '    extra_env: {VLLM_ATTENTION_BACKEND: "FLASHINFER"}\n'
        '    extra_args: ["--attention-config", \'{"backend": "FLASHMLA"}\','
        ' "--attention-config.backend=CUTLASS_MLA"]\n'
    )
    found = _findings(tmp_path, fragment)
    pointers = sorted(d.pointer for d in found["RL370"])
    assert pointers == [
        ("hardware_overrides", "amd", "extra_args", 1),
        ("hardware_overrides", "amd", "extra_args", 2),
        ("hardware_overrides", "amd", "extra_env", "VLLM_ATTENTION_BACKEND"),
    ]
    assert attention_backend("FLASHMLA", "0.14.0") is not None


def test_names_the_release_does_not_know_bad_json_and_odd_values_are_left_alone(
    tmp_path: Path,
) -> None:
    fragment = (
        'model:\n  base_args: ["--attention-backend", "NOT_A_BACKEND", "--attention-config",'
        ' \'{"backend": 3\', "--attention-backend", "auto"]\n'
        "  base_env: {VLLM_ATTENTION_BACKEND: 7}\n"
    )
    assert _findings(tmp_path, fragment) == {code: [] for code in CODES}


def test_a_quantization_method_rocm_does_not_list_is_an_error_for_amd_only(
    tmp_path: Path,
) -> None:
    fragment = 'model:\n  min_vllm_version: "0.30.0"\n  base_args: ["-q", "moe_wna16"]\n'
    [finding] = _findings(tmp_path, fragment)["RL372"]
    assert finding.pointer == ("model", "base_args", 1)
    named = finding.message.split(" for ", 1)[1].split(", but", 1)[0].split(", ")
    assert named and all(_profiles()[hw]["brand"] == "AMD" for hw in named)
    assert "`-q moe_wna16` selects the quantization method `moe_wna16`" in finding.message
    assert "in vLLM 0.30.0 vLLM's rocm platform does not list it" in finding.message


def test_a_backend_a_later_release_of_the_range_drops_for_the_platform_names_that_release(
    tmp_path: Path,
) -> None:
    platforms = {
        version: (attention_backend("FLEX_ATTENTION", version) or {}).get("platforms", [])
        for version in ("0.15.0", "0.18.0")
    }
    assert "rocm" in platforms["0.15.0"] and "rocm" not in platforms["0.18.0"]
    fragment = (
        'model:\n  min_vllm_version: "0.15.0"\n'
        'hardware_overrides:\n  amd:\n    extra_args: ["--attention-backend", "FLEX_ATTENTION"]\n'
    )
    [finding] = _findings(tmp_path, fragment)["RL370"]
    assert "but in vLLM 0.18.0 (the recipe claims 0.15.0 on) only the cuda platform" in (
        finding.message
    )


def test_odd_shapes_are_read_without_a_traceback(tmp_path: Path) -> None:
    fragment = (
        'model:\n  base_args: ["--attention-backend", 7, "--quantization", null, "-q",'
        ' "--attention-config", "[1]", "--attention-config", "{\\"backend\\": null}"]\n'
        "  base_env: [VLLM_ATTENTION_BACKEND]\n"
        "hardware_overrides:\n  amd: {extra_env: {VLLM_ATTENTION_BACKEND: {x: 1}}}\n"
    )
    found = _findings(tmp_path, fragment)
    assert found == {code: [] for code in CODES}


def test_cpu_and_tpu_fall_back_and_an_unread_variable_selects_nothing(tmp_path: Path) -> None:
    fragment = (
        "meta:\n  hardware: {xeon6: verified, trillium: verified}\n"
        "hardware_overrides:\n"
        '  cpu:\n    extra_args: ["--attention-backend", "FLASHINFER"]\n'
        "  tpu:\n    extra_env: {VLLM_ATTENTION_BACKEND: FLASHINFER}\n"
    )
    found = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)})
    [fallback] = found["RL371"]  # vLLM 0.20.0 no longer reads the variable: RL361's finding
    assert fallback.pointer == ("hardware_overrides", "cpu", "extra_args", 1)
    assert fallback.message.endswith(
        "for xeon6, but in vLLM 0.20.0 only the cuda platform selects it: "
        "vLLM runs its own backend instead, so the choice does nothing there"
    )
    assert "RL370" not in found
    assert [d.pointer[-1] for d in found["RL361"]] == ["VLLM_ATTENTION_BACKEND"]


def test_an_sm100_moe_backend_for_every_hardware_is_an_error_on_the_other_gpus(
    tmp_path: Path,
) -> None:
    fragment = (
        'model:\n  min_vllm_version: "0.20.0"\n'
        '  base_args: ["--moe-backend", "FLASHINFER-CUTEDSL"]\n'
    )
    found = _findings(tmp_path, fragment)
    [finding] = found["RL373"]
    assert finding.pointer == ("model", "base_args", 1)
    assert finding.severity is Severity.ERROR
    assert finding.message.startswith(
        "`--moe-backend FLASHINFER-CUTEDSL` selects the MoE backend `flashinfer_cutedsl` for "
    )
    named = finding.message.split(" for ", 1)[1].split(", but", 1)[0].split(", ")
    assert "h100" in named and "mi300x" in named and "b200" not in named
    for hw in named:
        target = target_of(_profiles()[hw])
        assert target is not None and target.platform in ("cuda", "rocm")
    assert [code for code, items in found.items() if items] == ["RL373"]


def test_moe_backend_messages_name_the_platform_or_the_capabilities(tmp_path: Path) -> None:
    fragment = (
        'model:\n  min_vllm_version: "0.20.0"\n'
        "hardware_overrides:\n"
        '  amd:\n    extra_args: ["--moe-backend", "flashinfer_cutlass"]\n'
        '  hopper:\n    extra_args: ["--moe-backend", "flashinfer_cutedsl"]\n'
    )
    found = {f.message.split("`")[3]: f.message for f in _findings(tmp_path, fragment)["RL373"]}
    assert sorted(found) == ["flashinfer_cutedsl", "flashinfer_cutlass"]
    assert " for h200, h100, but " in found["flashinfer_cutedsl"]
    assert found["flashinfer_cutedsl"].endswith(
        "in vLLM 0.20.0 its kernels support CUDA capabilities 10.0, 10.3 only: "
        "vLLM refuses to start"
    )
    assert found["flashinfer_cutlass"].endswith(
        "in vLLM 0.20.0 its kernels run on the cuda platform only: vLLM refuses to start"
    )


def test_moe_backends_the_source_does_not_tell_are_left_alone(tmp_path: Path) -> None:
    fragment = (
        'model:\n  min_vllm_version: "0.20.0"\n'
        '  base_args: ["--moe-backend", "aiter", "--moe-backend", "deep_gemm"]\n'
        "variants:\n  default:\n    hardware_overrides:\n"
        '      b200:\n        extra_args: ["--moe-backend", "flashinfer_cutedsl"]\n'
    )
    assert _findings(tmp_path, fragment)["RL373"] == []


def test_flashmla_is_hopper_only_where_its_support_check_says_so(tmp_path: Path) -> None:
    # To 0.11.0 FlashMLA's is_flashmla_supported() refuses every GPU but Hopper (major 9);
    # from 0.11.1 the backend states majors 9 and 10.
    fragment = (
        'model:\n  min_vllm_version: "0.10.2"\n'
        "meta:\n  hardware: {h100: verified, b200: verified}\n"
        "hardware_overrides:\n  nvidia:\n    extra_env: {VLLM_ATTENTION_BACKEND: FLASHMLA}\n"
    )
    [finding] = _findings(tmp_path, fragment)["RL371"]
    assert finding.severity is Severity.WARNING
    hardware, reason = finding.message.split(" for ", 1)[1].split(", but in vLLM ", 1)
    assert "b200" in hardware.split(", ") and "h100" not in hardware.split(", ")
    assert reason.startswith(
        "0.10.2 it supports `current_platform.get_device_capability()[0] == 9`"
    )


def test_a_platform_that_falls_back_warns_that_the_choice_does_nothing(tmp_path: Path) -> None:
    # ROCm 0.10 logs "TORCH_SDPA is not supported in AMD GPUs" and runs its own backend;
    # from 0.11.0 ROCm selects TORCH_SDPA itself.
    fragment = (
        'model:\n  min_vllm_version: "0.10.0"\n'
        "meta:\n  hardware: {mi300x: verified}\n"
        "hardware_overrides:\n  amd:\n    extra_env: {VLLM_ATTENTION_BACKEND: TORCH_SDPA}\n"
    )
    found = _findings(tmp_path, fragment)
    assert found["RL370"] == []
    [finding] = found["RL371"]
    assert finding.severity is Severity.WARNING
    assert finding.message.endswith(
        "but in vLLM 0.10.0 only the cpu platform selects it: vLLM runs its "
        "own backend instead, so the choice does nothing there"
    )


def test_an_out_of_tree_platform_is_never_judged(tmp_path: Path) -> None:
    # From 0.14 vllm/platforms/tpu.py only imports tpu_inference's platform: what that plugin
    # selects is not in vLLM's source. 0.13's in-tree TPU platform falls back, where an image
    # of 0.13 runs it (the default `vllm/vllm-tpu:latest` runs the plugin's).
    def fragment(minimum: str, image: str = "") -> str:
        return (
            f'model:\n  min_vllm_version: "{minimum}"\n{image}'
            "meta:\n  hardware: {trillium: verified}\n"
            'hardware_overrides:\n  tpu:\n    extra_args: ["--attention-backend", "FLASHINFER"]\n'
        )

    assert _findings(tmp_path / "new", fragment("0.14.0")) == {code: [] for code in CODES}
    latest = _findings(tmp_path / "latest", fragment("0.13.0"))
    assert latest == {code: [] for code in CODES}
    pinned = '  docker_image: {tpu: "vllm/vllm-tpu:v0.13.0"}\n'
    [finding] = _findings(tmp_path / "old", fragment("0.13.0", pinned))["RL371"]
    assert "in vLLM 0.13.0 only the " in finding.message
    assert finding.message.endswith("so the choice does nothing there")


def test_the_backend_rules_are_registered_where_their_check_is_defined() -> None:
    """RL370-RL373 are reported by the check that plans commands once for them and RL340/RL341:
    registered in its own module, and backends never imports that module back."""
    reporting = [entry for entry in registered_checks() if set(backends.CODES) & set(entry.codes)]
    assert [entry.function for entry in reporting] == [resolved.resolved_commands]
    assert set(backends.CODES) <= set(reporting[0].codes)
    imported = {
        node.module
        for node in ast.walk(ast.parse(inspect.getsource(backends)))
        if isinstance(node, ast.ImportFrom)
    }
    assert "recipelint.rules.resolved" not in imported


# --- RL340/RL341: layers replacing others -------------------------------------------------


def test_layer_shadowing_names_both_places(tmp_path: Path) -> None:
    data = recipe()
    data["model"]["base_args"] = ["--max-num-seqs", "256"]
    data["hardware_overrides"] = {"hopper": {"extra_args": ["--max-num-seqs", "128"]}}
    messages = codes(tmp_path, data, "RL340")
    assert len(messages) == 1
    assert (
        "`--max-num-seqs 128` replaces `--max-num-seqs 256` from model.base_args (models/acme/demo.yaml:"
        in messages[0]
    )


def test_strategy_generation_override_replacing_args(tmp_path: Path) -> None:
    data = recipe()
    data["hardware_overrides"] = {
        "blackwell": {"extra_args": ["--kv-cache-dtype", "fp8", "--max-num-seqs", "8"]}
    }
    data["strategy_overrides"] = {
        "single_node_tp": {
            "hardware_overrides": {"blackwell": {"extra_args": ["--enable-prefix-caching"]}}
        }
    }
    messages = codes(tmp_path / "a", data, "RL341")
    assert len(messages) == 1 and "drops `--kv-cache-dtype`, `--max-num-seqs` of" in messages[0]
    # Restating part of what it replaces shows the override was written as a replacement.
    data["strategy_overrides"]["single_node_tp"]["hardware_overrides"]["blackwell"][
        "extra_args"
    ] = ["--kv-cache-dtype", "fp8"]
    assert codes(tmp_path / "d", data, "RL341") == []
    # An exact-hardware key adds instead of replacing.
    data["strategy_overrides"]["single_node_tp"]["hardware_overrides"] = {
        "b200": {"extra_args": ["--x", "1"]}
    }
    assert codes(tmp_path / "b", data, "RL341") == []
    # A strategy the recipe does not offer renders nothing to report.
    data["strategy_overrides"] = {
        "multi_node_tp": {"hardware_overrides": {"blackwell": {"extra_args": []}}}
    }
    assert codes(tmp_path / "c", data, "RL341") == []


# --- recipes left unplanned have nothing to find ------------------------------------------


def _unplanned_find_nothing(ctx: CheckContext, doc: Document) -> int:
    """Plans ``doc`` whatever the tests say; returns how many commands were assembled."""
    catalog = commandplan.render_inputs(ctx)
    plan = commandplan.plan_of(ctx, catalog, doc)
    if plan is None:
        return 0
    assembler, combos = plan
    known = {id(listed.items) for listed in ctx.arg_lists_of(doc)}
    known |= {id(listed.items) for listed in ctx.shared_arg_lists}
    assembled = 0
    for combo in combos:
        try:
            layers = assembler.layers(combo)
        except SYNTHESIS_ERRORS:
            continue
        assembled += 1
        assert all(id(layer.items) in known for layer in layers), (doc.rel, combo)
    if not resolved.may_shadow(ctx.arg_lists_of(doc), resolved._strategy_values(ctx)):
        assert list(resolved._shadowed_values(assembler, combos)) == [], doc.rel
    if not resolved.has_generation_tables(doc.data):
        assert list(resolved._strategy_override_replaces(assembler, combos)) == [], doc.rel
    judge = backend_judge(ctx, catalog)
    assert judge is not None
    every = list(judge.findings(assembler, combos))
    if not judge.wants(ctx, doc):
        assert every == [], doc.rel
    # Commands rendered only for hardware that refuses nothing the recipe selects are not read.
    assert list(judge.findings(assembler, combos, judge.refusing(ctx, doc))) == every, doc.rel
    return assembled


def _each_recipe(tree: RecipeTree) -> int:
    ctx = CheckContext(tree, Config())
    return sum(_unplanned_find_nothing(ctx, doc) for doc in commandplan.planned_recipes(ctx))


@pytest.mark.parametrize("which", ["corpus_tree", "edge_tree", "embedded_tree"])
def test_recipes_left_unplanned_have_nothing_to_find(
    which: str, request: pytest.FixtureRequest
) -> None:
    root: Path = request.getfixturevalue(which)
    assert _each_recipe(load_tree(root)) or which != "corpus_tree"


@RENDER_PROFILE
@given(recipes())
def test_generated_recipes_left_unplanned_have_nothing_to_find(recipe: dict[str, Any]) -> None:
    tree, _doc = with_recipe(to_yaml(recipe))
    _each_recipe(tree)


def _layer_findings(tmp_path: Path, fragment: str, code: str) -> list[tuple[Any, str, str | None]]:
    found = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)}).get(code, [])
    return [(d.pointer, d.message, d.hint) for d in found]


def test_a_value_replacing_a_strategy_files_names_that_file_and_its_line(tmp_path: Path) -> None:
    fragment = (
        "compatible_strategies: [single_node_tp, pd_cluster]\n"
        "strategy_overrides:\n  pd_cluster:\n    prefill:\n      extra_args: [--port, '9001']\n"
    )
    assert _layer_findings(tmp_path, fragment, "RL340") == [
        (
            ("strategy_overrides", "pd_cluster", "prefill", "extra_args", 0),
            "`--port 9001` replaces `--port 8001` from prefill.vllm_args "
            "(strategies/pd_cluster.yaml:18) in the pd_cluster command of variant `default` "
            "on h200 (last wins)",
            "intended overrides are fine; otherwise make the layers agree",
        )
    ]


def test_an_option_one_list_sets_twice_is_no_layer_replacing_another(tmp_path: Path) -> None:
    fragment = 'model:\n  base_args: ["--max-num-seqs", "8", "--max-num-seqs", "16"]\n'
    assert _layer_findings(tmp_path, fragment, "RL340") == []


def test_an_override_of_the_generation_it_replaces_says_what_it_drops_and_where(
    tmp_path: Path,
) -> None:
    fragment = (
        "hardware_overrides:\n"
        '  blackwell:\n    extra_args: ["--kv-cache-dtype", "fp8", "--max-num-seqs", "8"]\n'
        "strategy_overrides:\n  single_node_tp:\n    hardware_overrides:\n"
        '      blackwell: {extra_args: ["--enable-prefix-caching"]}\n'
    )
    assert _layer_findings(tmp_path, fragment, "RL341") == [
        (
            ("strategy_overrides", "single_node_tp", "hardware_overrides", "blackwell"),
            "strategy_overrides.single_node_tp.hardware_overrides.blackwell keeps none of the "
            "args it replaces, so it reads as an addition, but it drops `--kv-cache-dtype`, "
            "`--max-num-seqs` of hardware_overrides.blackwell.extra_args from the single_node_tp "
            "command on b200, b300, gb200, gb300",
            "restate `--kv-cache-dtype`, `--max-num-seqs` in the override if the single_node_tp "
            "command needs them, or key it by exact hardware (`b200:`, `b300:`, `gb200:`), "
            "which adds instead of replacing",
        )
    ]


def test_an_override_displacing_the_nvidia_layer_says_so(tmp_path: Path) -> None:
    fragment = (
        'hardware_overrides:\n  nvidia:\n    extra_args: ["--max-num-seqs", "8"]\n'
        "strategy_overrides:\n  single_node_tp:\n    hardware_overrides:\n"
        '      hopper: {extra_args: ["--enable-prefix-caching"]}\n'
    )
    [(_pointer, message, hint)] = _layer_findings(tmp_path, fragment, "RL341")
    assert message.endswith(
        "drops `--max-num-seqs` of hardware_overrides.nvidia.extra_args from the single_node_tp "
        "command on h200, h100 (a `hopper` key displaces the `nvidia` layer too)"
    )
    assert (hint or "").startswith(
        "restate `--max-num-seqs` in the override if the single_node_tp command needs it,"
    )


def test_an_option_the_strategy_adds_under_every_generation_is_no_sign_of_a_kept_copy(
    tmp_path: Path,
) -> None:
    # The override sets the autotune opt-out under both of its keys: on hopper, where the
    # replaced layer has it too, it still drops the length cap.
    fragment = (
        "hardware_overrides:\n"
        '  hopper:\n    extra_args: ["--max-model-len", "200000", "--no-enable-flashinfer-autotune"]\n'
        '  blackwell:\n    extra_args: ["--kv-cache-dtype", "fp8"]\n'
        "strategy_overrides:\n  single_node_tp:\n    hardware_overrides:\n"
        '      hopper: {extra_args: ["--no-enable-flashinfer-autotune"]}\n'
        '      blackwell: {extra_args: ["--kv-cache-dtype", "fp8", "--no-enable-flashinfer-autotune"]}\n'
    )
    [(pointer, message, _hint)] = _layer_findings(tmp_path, fragment, "RL341")
    assert pointer == ("strategy_overrides", "single_node_tp", "hardware_overrides", "hopper")
    assert "it drops `--max-model-len` of hardware_overrides.hopper.extra_args" in message


UNSIZED = """\
meta:
  hardware: {rtx_5090: verified}
variants:
  default:
    vram_minimum_gb: "20"
    supported_hardware: [rtx_5090]
  big:
    precision: bf16
    vram_minimum_gb: 20
    supported_hardware: [h100]
"""


def test_a_variant_no_box_can_be_sized_for_leaves_variant_lists_unjudged(tmp_path: Path) -> None:
    # Whether the unscalable rtx_5090 falls back to `big` cannot be told (upstream throws on
    # the string): the lists of `big` are not judged, and the check does not stop.
    fragment = (
        UNSIZED + "    hardware_overrides:\n      hopper: {extra_args: [--max-num-seqs, '8']}\n"
    )
    found = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)})
    assert "RL342" not in found
    assert [d.pointer for d in found["RL102"]] == [("variants", "default", "vram_minimum_gb")]


def test_lists_under_no_strategy_or_hardware_key_never_need_the_variant_sizes(
    tmp_path: Path,
) -> None:
    fragment = (
        UNSIZED
        + "    extra_args: [--max-num-seqs, '8']\n"
        + "hardware_overrides:\n  amd:\n    extra_args: [--max-num-seqs, '64']\n"
    )
    [finding] = _rl342(tmp_path, fragment)
    assert finding.pointer == ("hardware_overrides", "amd")
    assert "`amd` names none of the recipe's hardware (rtx_5090, h100)" in finding.message


def test_a_mode_override_may_be_keyed_default_but_not_by_hardware_never_offered(
    tmp_path: Path,
) -> None:
    fragment = (
        NVIDIA_ONLY
        + "features:\n  f:\n    description: x\n    modes:\n      m:\n        description: y\n"
        + "        hardware_overrides:\n"
        + "          default: {args: [--max-num-seqs, '8']}\n"
        + "          amd: {args: [--max-num-seqs, '16']}\n"
    )
    assert [d.pointer for d in _rl342(tmp_path, fragment)] == [
        ("features", "f", "modes", "m", "hardware_overrides", "amd")
    ]
