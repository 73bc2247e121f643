"""RL607: guide commands judged for the hardware their heading or paragraph names."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner
from treehelp import Fragment, build_tree, context_text, findings_by_code

from recipelint.cli import cli
from recipelint.diagnostics import Diagnostic, Severity

RECIPE = "models/acme/demo.yaml"


def _guide(markdown: str, recipe: str = "") -> Fragment:
    body = textwrap.indent(textwrap.dedent(markdown).strip("\n"), "  ")
    return Fragment(f"{recipe}guide: |\n{body}\n")


def _rl607(tmp_path: Path, markdown: str, recipe: str = "") -> list[Diagnostic]:
    return findings_by_code(tmp_path, {RECIPE: _guide(markdown, recipe)}).get("RL607", [])


def _line_of(tmp_path: Path, needle: str) -> tuple[int, int]:
    """(line, column) of ``needle`` in the written recipe, as findings count them."""
    lines = (tmp_path / RECIPE).read_text(encoding="utf-8").splitlines()
    number = next(n for n, text in enumerate(lines, 1) if needle in text)
    return number, lines[number - 1].index(needle) + 1


def test_a_backend_the_headings_hardware_refuses_is_reported_at_the_option(
    tmp_path: Path,
) -> None:
    [finding] = _rl607(
        tmp_path,
        """
        ## AMD MI300X

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```
        """,
    )
    assert finding.severity is Severity.WARNING
    assert (finding.span.line, finding.span.column) == _line_of(tmp_path, "FLASHINFER")
    line, column = _line_of(tmp_path, "FLASHINFER")
    assert finding.span.end_column == column + len("FLASHINFER")
    assert finding.message == (
        "the guide's command under “AMD MI300X” selects the attention backend `FLASHINFER` "
        "(`--attention-backend FLASHINFER`) for MI300X, but in vLLM 0.20.0 only the cuda "
        "platform selects it: it does not run there"
    )


def test_the_paragraph_before_a_block_decides_before_the_heading(tmp_path: Path) -> None:
    findings = _rl607(
        tmp_path,
        """
        ## NVIDIA

        On 8xMI300X, run:

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER --max-num-seqs 8
        ```
        """,
    )
    assert [f.message.split(" for ")[1][:6] for f in findings] == ["MI300X"]


def test_a_heading_for_a_generation_judges_the_command_for_it(tmp_path: Path) -> None:
    [finding] = _rl607(
        tmp_path,
        """
        ## Deployment

        ### Hopper

        ```bash
        vllm serve acme/demo --attention-backend ROCM_AITER_FA
        ```
        """,
    )
    assert "for H100, H200, but" in finding.message


def test_sections_for_several_brands_or_none_or_unclear_words_judge_nothing(
    tmp_path: Path,
) -> None:
    # "CPU" is also a kv_offload option's word: it may or may not mean hardware.
    assert (
        _rl607(
            tmp_path,
            """
            ## NVIDIA H100 and AMD MI300X

            ```bash
            vllm serve acme/demo --attention-backend FLASHINFER
            ```

            ## Launch

            ```bash
            vllm serve acme/demo --attention-backend ROCM_AITER_FA
            ```

            ## AMD

            ### CPU offload

            ```bash
            vllm serve acme/demo --attention-backend FLASHINFER
            ```

            Serve nvidia/Demo-FP8 on MI300X with `vllm serve acme/demo --quantization fp8`.
            """,
        )
        == []
    )


def test_an_image_of_another_brand_is_reported_and_the_brands_own_is_not(
    tmp_path: Path,
) -> None:
    findings = _rl607(
        tmp_path,
        """
        ## NVIDIA H100

        ```bash
        docker run --gpus all vllm/vllm-openai-rocm:latest acme/demo
        ```

        ## AMD MI300X

        ```bash
        docker run --device=/dev/kfd vllm/vllm-openai-rocm:latest acme/demo
        ```
        """,
    )
    [finding] = findings
    assert (finding.span.line, finding.span.column) == _line_of(tmp_path, "vllm/vllm-openai-rocm")
    assert finding.message == (
        "the guide runs `vllm/vllm-openai-rocm:latest` under “NVIDIA H100”, but that is the "
        "rocm image, which H100 does not run"
    )
    assert finding.hint is not None and finding.hint.startswith("use `vllm/vllm-openai`")


BLACKWELL_ONLY_MOE = """\
hardware_overrides:
  blackwell:
    extra_args: ["--moe-backend", "triton"]
"""


def test_a_backend_the_recipe_keeps_to_one_generation_is_reported_where_a_command_serves_more(
    tmp_path: Path,
) -> None:
    [finding] = _rl607(
        tmp_path,
        """
        ## Launch

        ```bash
        vllm serve acme/demo --moe-backend triton
        ```

        ## NVIDIA Blackwell

        ```bash
        vllm serve acme/demo --moe-backend triton
        ```
        """,
        BLACKWELL_ONLY_MOE,
    )
    assert finding.message.startswith(
        "the recipe selects the MoE backend `triton` only for blackwell hardware "
        "(hardware_overrides.blackwell.extra_args), but the guide's command under no hardware "
        "heading that selects it also serves h200, h100, mi300x"
    )


def test_a_command_serving_a_checkpoint_only_one_generation_runs_is_not_confined(
    tmp_path: Path,
) -> None:
    variants = """\
variants:
  default:
    precision: bf16
    vram_minimum_gb: 20
  nvfp4:
    model_id: acme/demo-NVFP4
    precision: nvfp4
    vram_minimum_gb: 10
    extra_args: ["--moe-backend", "triton"]
"""
    assert (
        _rl607(
            tmp_path,
            """
            ## NVIDIA

            ```bash
            vllm serve acme/demo-NVFP4 --moe-backend triton
            ```
            """,
            variants,
        )
        == []
    )


def test_the_cli_reports_it_in_a_tree(tmp_path: Path) -> None:
    guide = _guide(
        """
        ## AMD MI300X

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```
        """
    )
    root = build_tree(tmp_path / "tree", {RECIPE: guide})
    result = CliRunner().invoke(
        cli, ["check", "--select", "RL607", "--format", "json", str(root)], catch_exceptions=False
    )
    assert result.exit_code == 0  # a warning
    [finding] = json.loads(result.stdout)
    assert (finding["code"], finding["path"].endswith(RECIPE)) == ("RL607", True)


def test_an_organisations_repository_or_inline_code_names_no_hardware(tmp_path: Path) -> None:
    [finding] = _rl607(
        tmp_path,
        """
        Serve the nvidia/Demo-FP8 build (`--gpus all` is not needed) on MI300X:

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```
        """,
    )
    assert "under “Serve the nvidia/Demo-FP8 build" in finding.message
    assert "for MI300X, but" in finding.message


def test_a_broken_taxonomy_leaves_it_to_the_root_cause(tmp_path: Path) -> None:
    # A usable taxonomy with a schema error where hardware is defined: its findings would be echoes.
    text = context_text("taxonomy.yaml")
    at = text.index("generation: amd", text.index("  mi300x:"))
    taxonomy = text[:at] + "generation: 5" + text[at + len("generation: amd") :]
    guide = _guide(
        """
        ## AMD MI300X

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```
        """
    )
    found = findings_by_code(tmp_path, {RECIPE: guide, "taxonomy.yaml": taxonomy})
    assert "RL607" not in found and "RL020" in found
