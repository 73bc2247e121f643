"""RL370–RL373: attention backends, quantization methods and MoE backends selected for hardware that cannot run them."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import yaml
from treehelp import CONTEXT, Fragment, findings_by_code

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.flags.hardware import attention_backend, backend_runs_on
from recipelint.rules import backends, resolved
from recipelint.rules.backends import Target, target_of
from recipelint.rules.registry import registered_checks

RECIPE = "models/acme/demo.yaml"
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


def test_generation_capabilities_decide_only_when_every_one_disagrees() -> None:
    blackwell = target_of({"brand": "NVIDIA", "generation": "blackwell"})
    hopper = target_of({"brand": "NVIDIA", "generation": "hopper"})
    assert blackwell is not None and hopper is not None
    runs = {backend_runs_on("CUTLASS_MLA", "0.20.0", "cuda", c) for c in blackwell.capabilities}
    assert runs == {"yes", "no"}  # SM100 and SM120 parts: not judged without compute_arch
    assert {backend_runs_on("CUTLASS_MLA", "0.20.0", "cuda", c) for c in hopper.capabilities} == {
        "no"
    }


def test_profiles_read_as_vllm_platforms() -> None:
    assert target_of({"brand": "NVIDIA", "generation": "hopper", "compute_arch": "sm90"}) == (
        Target("cuda", ((9, 0),))
    )
    assert target_of({"brand": "NVIDIA", "generation": "x", "compute_arch": "sm121"}) == Target(
        "cuda", ((12, 1),)
    )
    assert target_of({"brand": "AMD", "generation": "amd", "compute_arch": "gfx942"}) == Target(
        "rocm"
    )
    assert target_of({"brand": "Intel", "generation": "xpu"}) == Target("xpu")
    assert target_of({"brand": "Google", "generation": "tpu"}) == Target("tpu")
    assert target_of({"brand": "NVIDIA", "generation": "rubin"}) == Target("cuda")
    assert target_of({"brand": "Huawei", "generation": "npu"}) is None  # a plugin's platform
    assert target_of({"brand": 3, "generation": None}) is None
    assert target_of("not a profile") is None


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
    # selects is not in vLLM's source. 0.13's in-tree TPU platform falls back.
    def fragment(minimum: str) -> str:
        return (
            f'model:\n  min_vllm_version: "{minimum}"\n'
            "meta:\n  hardware: {trillium: verified}\n"
            'hardware_overrides:\n  tpu:\n    extra_args: ["--attention-backend", "FLASHINFER"]\n'
        )

    assert _findings(tmp_path / "new", fragment("0.14.0")) == {code: [] for code in CODES}
    [finding] = _findings(tmp_path / "old", fragment("0.13.0"))["RL371"]
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
