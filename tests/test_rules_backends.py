"""rules/backends.py's reading of the hardware: which vLLM platform and compute capabilities
a profile stands for. The findings of RL370–RL373, which it judges, are tested with the check
that reports them, in test_rules_resolved.py."""

from __future__ import annotations

from recipelint.flags.hardware import backend_runs_on
from recipelint.rules.backends import Target, target_of


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
