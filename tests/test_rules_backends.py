"""rules/backends.py's reading of the hardware: which vLLM platform and compute capabilities
a profile stands for, and the findings of RL370–RL373 it judges (reported by the check that
plans commands, rules/resolved.py, whose own tests are in test_rules_resolved.py)."""

from __future__ import annotations

from treehelp import Fragment, document_text, tree_in_memory

from recipelint.check.engine import run_checks
from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.flags.hardware import backend_runs_on
from recipelint.rules.backends import CODES, Target, backend_judge, target_of
from recipelint.rules.commandplan import plan_of
from recipelint.rules.context import CheckContext

RECIPE = "models/acme/demo.yaml"
CUDA_HARDWARE = "h200, h100, b200, b300, gb200, gb300"
AMD_HARDWARE = "mi300x, mi325x, mi355x"
HINT = "move it to a hardware_overrides entry of hardware that runs {}, or select one this hardware supports"


def _findings(fragment: str) -> list[Diagnostic]:
    """RL370–RL373's findings in the catalog's base recipe with ``fragment`` merged in."""
    tree, _doc = tree_in_memory(RECIPE, document_text(RECIPE, Fragment(fragment)))
    return run_checks(tree, Config(select=CODES))


def _seen(fragment: str) -> list[tuple[str, tuple[object, ...], str]]:
    return [(d.code, d.pointer, d.message) for d in _findings(fragment)]


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


def test_each_nvidia_generation_reads_as_the_cuda_capabilities_its_gpus_report() -> None:
    expected = {
        "volta": ((7, 0),),
        "turing": ((7, 5),),
        "ampere": ((8, 0), (8, 6), (8, 7)),
        "ada": ((8, 9),),
        "hopper": ((9, 0),),
        "blackwell": ((10, 0), (10, 3), (11, 0), (12, 0), (12, 1)),
    }
    for generation, capabilities in expected.items():
        profile = {"brand": "NVIDIA", "generation": generation}
        assert target_of(profile) == Target("cuda", capabilities), generation
    both = target_of({"brand": "NVIDIA", "generation": ["hopper", "blackwell"]})
    assert both == Target("cuda", (*expected["blackwell"], *expected["hopper"]))


def test_a_compute_arch_names_the_major_and_the_minor_capability() -> None:
    assert target_of({"brand": "NVIDIA", "compute_arch": "sm_103a"}) == Target("cuda", ((10, 3),))
    assert target_of({"brand": "NVIDIA", "compute_arch": "sm86"}) == Target("cuda", ((8, 6),))


def test_a_profile_of_two_builtin_platforms_is_none_of_them() -> None:
    assert target_of({"brand": "NVIDIA", "generation": ["cpu", "tpu"]}) is None
    assert target_of({"brand": "NVIDIA", "generation": ["hopper", "cpu"]}) == Target("cpu")


def test_a_backend_for_the_wrong_platform_names_the_value_the_hardware_and_the_release() -> None:
    found = _findings('model:\n  base_args: ["--attention-backend", "ROCM_AITER_FA"]\n')
    [finding] = found
    assert (finding.code, finding.pointer) == ("RL370", ("model", "base_args", 1))
    assert finding.severity is Severity.ERROR
    assert finding.message == (
        "`--attention-backend ROCM_AITER_FA` selects the attention backend `ROCM_AITER_FA` for "
        f"{CUDA_HARDWARE}, but in vLLM 0.20.0 only the rocm platform selects it: "
        "vLLM refuses to start"
    )
    assert finding.hint == HINT.format("ROCM_AITER_FA")


def test_an_option_written_with_its_value_is_reported_at_that_item() -> None:
    assert _seen(
        'model:\n  base_args: ["--max-num-seqs", "8", "--attention-backend=ROCM_AITER_FA"]\n'
    ) == [
        (
            "RL370",
            ("model", "base_args", 2),
            "`--attention-backend ROCM_AITER_FA` selects the attention backend `ROCM_AITER_FA` "
            f"for {CUDA_HARDWARE}, but in vLLM 0.20.0 only the rocm platform selects it: "
            "vLLM refuses to start",
        )
    ]


def test_a_quantization_method_rocm_does_not_list_is_reported_for_amd_as_spelled() -> None:
    fragment = 'model:\n  min_vllm_version: "0.30.0"\n  base_args: ["-q", "moe_wna16"]\n'
    [finding] = _findings(fragment)
    assert (finding.code, finding.pointer) == ("RL372", ("model", "base_args", 1))
    assert finding.message == (
        f"`-q moe_wna16` selects the quantization method `moe_wna16` for {AMD_HARDWARE}, but in "
        "vLLM 0.30.0 vLLM's rocm platform does not list it: vLLM refuses to start"
    )
    assert finding.hint == HINT.format("moe_wna16")


def test_moe_backends_are_read_as_vllm_spells_them_and_unknown_ones_are_left_alone() -> None:
    fragment = (
        'model:\n  min_vllm_version: "0.20.0"\n'
        "hardware_overrides:\n"
        '  amd:\n    extra_args: ["--moe-backend", "FLASHINFER-CUTLASS"]\n'
        '  hopper:\n    extra_args: ["--moe-backend", "NOT_A_MOE_BACKEND",'
        ' "--moe-backend", "flashinfer_cutedsl"]\n'
    )
    assert _seen(fragment) == [
        (
            "RL373",
            ("hardware_overrides", "amd", "extra_args", 1),
            "`--moe-backend FLASHINFER-CUTLASS` selects the MoE backend `flashinfer_cutlass` for "
            f"{AMD_HARDWARE}, but in vLLM 0.20.0 its kernels run on the cuda platform only: "
            "vLLM refuses to start",
        ),
        (
            "RL373",
            ("hardware_overrides", "hopper", "extra_args", 3),
            "`--moe-backend flashinfer_cutedsl` selects the MoE backend `flashinfer_cutedsl` for "
            "h200, h100, but in vLLM 0.20.0 its kernels support CUDA capabilities 10.0, 10.3 "
            "only: vLLM refuses to start",
        ),
    ]


def test_a_moe_backend_is_judged_only_on_the_platforms_whose_oracles_validate_it() -> None:
    # The CPU platform runs its own MoE kernels whatever --moe-backend asks for:
    # flashinfer_cutlass, a CUDA kernel, is reported for AMD alone.
    fragment = (
        'model:\n  min_vllm_version: "0.20.0"\n'
        "meta:\n  hardware: {xeon6: verified, mi300x: verified}\n"
        'hardware_overrides:\n  cpu:\n    extra_args: ["--moe-backend", "flashinfer_cutlass"]\n'
        '  amd:\n    extra_args: ["--moe-backend", "flashinfer_cutlass"]\n'
    )
    assert [(code, pointer) for code, pointer, _ in _seen(fragment)] == [
        ("RL373", ("hardware_overrides", "amd", "extra_args", 1))
    ]


def test_lists_of_equal_items_are_each_reported_at_their_own_place() -> None:
    # The two lists share their units (a list's units are read once per distinct list): the
    # selection xeon6 reads is still the cpu list's.
    fragment = (
        'model:\n  min_vllm_version: "0.20.0"\n'
        "meta:\n  hardware: {xeon6: verified}\n"
        'hardware_overrides:\n  amd:\n    extra_args: ["--attention-backend", "FLASHINFER"]\n'
        '  cpu:\n    extra_args: ["--attention-backend", "FLASHINFER"]\n'
    )
    assert [
        (code, pointer, message.split(", but")[0]) for code, pointer, message in _seen(fragment)
    ] == [
        (
            "RL370",
            ("hardware_overrides", "amd", "extra_args", 1),
            f"`--attention-backend FLASHINFER` selects the attention backend `FLASHINFER` for {AMD_HARDWARE}",
        ),
        (
            "RL371",
            ("hardware_overrides", "cpu", "extra_args", 1),
            "`--attention-backend FLASHINFER` selects the attention backend `FLASHINFER` for xeon6",
        ),
    ]


def test_a_release_that_refuses_outweighs_an_earlier_one_that_falls_back() -> None:
    # ROCm 0.11.1 runs its own backend for CPU_ATTN; from 0.12.0 it refuses it.
    fragment = (
        'model:\n  min_vllm_version: "0.11.1"\n'
        'hardware_overrides:\n  amd:\n    extra_args: ["--attention-backend", "CPU_ATTN"]\n'
    )
    assert _seen(fragment) == [
        (
            "RL370",
            ("hardware_overrides", "amd", "extra_args", 1),
            "`--attention-backend CPU_ATTN` selects the attention backend `CPU_ATTN` for "
            f"{AMD_HARDWARE}, but in vLLM 0.12.0 (the recipe claims 0.11.1 on) only the cpu "
            "platform selects it: vLLM refuses to start",
        )
    ]


def test_a_platform_that_runs_its_own_backend_is_warned_that_the_choice_does_nothing() -> None:
    fragment = (
        "meta:\n  hardware: {xeon6: verified}\n"
        'hardware_overrides:\n  cpu:\n    extra_args: ["--attention-backend", "FLASHINFER"]\n'
    )
    [finding] = _findings(fragment)
    assert (finding.code, finding.severity) == ("RL371", Severity.WARNING)
    assert finding.message == (
        "`--attention-backend FLASHINFER` selects the attention backend `FLASHINFER` for xeon6, "
        "but in vLLM 0.20.0 only the cuda platform selects it: vLLM runs its own backend "
        "instead, so the choice does nothing there"
    )


def test_a_backend_some_gpus_of_a_generation_cannot_run_warns_for_those() -> None:
    fragment = (
        "meta:\n  hardware: {b200: verified, rtx_5090: verified}\n"
        'hardware_overrides:\n  blackwell:\n    extra_args: ["--attention-backend", "CUTLASS_MLA"]\n'
    )
    [finding] = _findings(fragment)
    assert (finding.code, finding.severity) == ("RL371", Severity.WARNING)
    assert finding.message.endswith(
        "for rtx_5090, but in vLLM 0.20.0 it supports `capability.major == 10` only: "
        "vLLM refuses it or runs another backend"
    )


def test_an_out_of_tree_platform_is_judged_only_in_releases_with_its_platform_in_tree() -> None:
    def fragment(minimum: str, image: str = "vllm/vllm-tpu:v0.13.0") -> str:
        return (
            f'model:\n  min_vllm_version: "{minimum}"\n  docker_image: {{tpu: "{image}"}}\n'
            "meta:\n  hardware: {trillium: verified}\n"
            'hardware_overrides:\n  tpu:\n    extra_args: ["--attention-backend", "FLASHINFER"]\n'
        )

    assert _findings(fragment("0.14.0")) == []
    [finding] = _findings(fragment("0.13.0"))
    assert finding.code == "RL371"
    assert "for trillium, but in vLLM 0.13.0 only the cuda platform selects it" in finding.message


def test_a_hardware_is_judged_by_the_platform_its_image_runs() -> None:
    """PR 510: TPU hardware runs `vllm/vllm-tpu:latest`, whose newest release takes the TPU
    platform from the tpu-inference plugin: the in-tree platform of the recipe's old minimum,
    which lists no `awq`, is not what runs. An image of an in-tree release still is; a stock
    GPU image is judged over the recipe's range as before."""

    def fragment(image: str) -> str:
        return (
            f'model:\n  min_vllm_version: "0.8.5"\n{image}'
            "meta:\n  hardware: {trillium: verified, ironwood: verified, mi300x: verified}\n"
            'variants:\n  default:\n    extra_args: ["--quantization", "awq"]\n'
        )

    assert _findings(fragment("")) == []
    pinned = _findings(fragment('  docker_image: {tpu: "vllm/vllm-tpu:v0.9.0"}\n'))
    assert [(d.code, d.pointer) for d in pinned] == [
        ("RL372", ("variants", "default", "extra_args", 1))
    ]
    assert "selects the quantization method `awq` for trillium, ironwood, but in vLLM 0.8.5" in (
        pinned[0].message
    )
    community = _findings(fragment('  docker_image: {tpu: "acme/tpu-build:v0.9.0"}\n'))
    assert community == []
    amd = 'model:\n  min_vllm_version: "0.30.0"\n  base_args: ["-q", "moe_wna16"]\n'
    assert [d.code for d in _findings(amd)] == ["RL372"]
    on_own_build = amd + '  docker_image: {amd: "acme/rocm-build:1"}\n'
    assert _findings(on_own_build) == []


def test_the_variable_and_the_attention_config_select_a_backend_but_other_keys_do_not() -> None:
    fragment = (
        'model:\n  min_vllm_version: "0.14.0"\nhardware_overrides:\n  amd:\n'
        "    extra_env: {VLLM_ATTENTION_BACKEND: FLASHINFER}\n"
        '    extra_args: ["--attention-config.flash_attn_version", \'{"backend": "FLASHMLA"}\','
        ' "--attention-config", \'{"backend": "FLASHMLA"}\','
        ' "--attention-config.backend=CUTLASS_MLA"]\n'
    )
    tail = f"for {AMD_HARDWARE}, but in vLLM 0.14.0 only the cuda platform selects it: "
    tail += "vLLM refuses to start"
    assert sorted(_seen(fragment)) == [
        (
            "RL370",
            ("hardware_overrides", "amd", "extra_args", 3),
            f"`--attention-config backend FLASHMLA` selects the attention backend `FLASHMLA` {tail}",
        ),
        (
            "RL370",
            ("hardware_overrides", "amd", "extra_args", 4),
            "`--attention-config.backend backend CUTLASS_MLA` selects the attention backend "
            f"`CUTLASS_MLA` {tail}",
        ),
        (
            "RL370",
            ("hardware_overrides", "amd", "extra_env", "VLLM_ATTENTION_BACKEND"),
            f"`VLLM_ATTENTION_BACKEND=FLASHINFER` selects the attention backend `FLASHINFER` {tail}",
        ),
    ]


def test_odd_values_beside_a_reported_selection_select_nothing() -> None:
    fragment = (
        'model:\n  base_args: ["--attention-backend", "ROCM_AITER_FA",'
        ' "--attention-backend", "NOT_A_BACKEND"]\n'
        "  base_env: {VLLM_ATTENTION_BACKEND: {x: 1}}\n"
        "hardware_overrides:\n  amd:\n    extra_env: {VLLM_ATTENTION_BACKEND: [FLASHINFER]}\n"
    )
    assert [(code, pointer) for code, pointer, _ in _seen(fragment)] == [
        ("RL370", ("model", "base_args", 1))
    ]


def test_the_judge_plans_only_recipes_some_hardware_refuses() -> None:
    def judged(fragment: str) -> tuple[frozenset[Target], bool, list[str | None]]:
        tree, doc = tree_in_memory(RECIPE, document_text(RECIPE, Fragment(fragment)))
        ctx = CheckContext(tree, Config())
        judge = backend_judge(ctx, ctx.render_inputs)
        assert judge is not None
        plan = plan_of(ctx, ctx.render_inputs, doc)
        assert plan is not None
        found = [f.code for f in judge.findings(*plan)]
        return judge.refusing(ctx, doc), judge.wants(ctx, doc), found

    assert judged("model:\n  base_args: [--max-num-seqs, '8']\n") == (frozenset(), False, [])
    refusing, wants, found = judged(
        'model:\n  base_args: ["--attention-backend", "ROCM_AITER_FA"]\n'
    )
    assert wants is True and found == ["RL370"]
    assert Target("cuda", ((9, 0),)) in refusing
    # CPU runs its own backend instead (RL371); TPU selects out of tree from 0.14 on.
    assert {target.platform for target in refusing} == {"cuda", "cpu"}


def test_no_judge_is_made_when_none_of_its_rules_is_enabled() -> None:
    tree, _doc = tree_in_memory(RECIPE, document_text(RECIPE, Fragment("{}")))
    for select, made in ((("RL340",), False), (("RL373",), True)):
        ctx = CheckContext(tree, Config(select=select))
        assert (backend_judge(ctx, ctx.render_inputs) is not None) is made, select
