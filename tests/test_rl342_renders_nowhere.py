"""RL342: args and env lists under a hardware key, strategy or PD role no rendered command reads."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from treehelp import Fragment, build_tree, context_text, findings_by_code

from recipelint.cli import cli
from recipelint.diagnostics import Diagnostic, Severity

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
