"""Hardware-specific attention backends and quantization methods, read from vLLM's sources."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from recipelint.commands.flags import flags_group
from recipelint.flags.hardware import (
    attention_backend,
    backend_runs_on,
    extract_hardware,
    moe_backend,
    moe_backend_runs_on,
    quantization_on,
)

REGISTRY = """
    from enum import Enum

    class AttentionBackendEnum(Enum):
        FLASH_ATTN = "vllm.backends.flash.FlashBackend"
        CUTLASS_MLA = "vllm.backends.cutlass.CutlassBackend"
        ROCM_ATTN = "vllm.backends.rocm.RocmBackend"
        CUSTOM = ""
"""
FLASH = """
    class FlashBackend:
        @classmethod
        def supports_compute_capability(cls, capability):
            return capability >= DeviceCapability(8, 0)
"""
CUTLASS = """
    class CutlassBackend:
        @classmethod
        def supports_compute_capability(cls, capability):
            return capability.major == 10
"""
CUDA = """
    from vllm.registry import AttentionBackendEnum

    class CudaPlatform:
        def priorities(self):
            return [AttentionBackendEnum.CUTLASS_MLA, AttentionBackendEnum.FLASH_ATTN]
"""
ROCM = """
    from vllm.registry import AttentionBackendEnum

    class RocmPlatform:
        supported_quantization: list[str] = ["awq", "fp8"]

        def select(self, backend):
            if backend == AttentionBackendEnum.CUTLASS_MLA:
                raise ValueError("not on ROCm")
            if backend == AttentionBackendEnum.ROCM_ATTN:
                return "rocm"
            return AttentionBackendEnum.FLASH_ATTN
"""


def write_release(root: Path, version: str) -> Path:
    files = {
        "vllm/__init__.py": "",
        "vllm/_version.py": f"__version__ = '{version}'\n",
        "vllm/registry.py": REGISTRY,
        "vllm/backends/__init__.py": "",
        "vllm/backends/flash.py": FLASH,
        "vllm/backends/cutlass.py": CUTLASS,
        "vllm/backends/rocm.py": "class RocmBackend:\n    pass\n",
        "vllm/platforms/__init__.py": "",
        "vllm/platforms/interface.py": "class Platform:\n    supported_quantization = []\n",
        "vllm/platforms/cuda.py": CUDA,
        "vllm/platforms/rocm.py": ROCM,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_backends_belong_to_the_platforms_that_select_them(tmp_path: Path) -> None:
    entries = extract_hardware(write_release(tmp_path, "0.20.0"))["entries"]
    assert entries["attention/FLASH_ATTN"] == {
        "platforms": ["cuda", "rocm"],
        "capability": "capability >= DeviceCapability(8, 0)",
        "min": "8.0",
    }
    # ROCm names CUTLASS_MLA only to refuse it.
    assert entries["attention/CUTLASS_MLA"]["platforms"] == ["cuda"]
    assert entries["attention/CUTLASS_MLA"]["majors"] == [10]
    assert entries["attention/ROCM_ATTN"] == {"platforms": ["rocm"]}
    assert entries["attention/CUSTOM"] == {"platforms": []}
    assert entries["quantization/rocm"] == {"methods": ["awq", "fp8"]}
    assert "quantization/cuda" not in entries


def test_hardware_command_folds_releases_into_eras(tmp_path: Path) -> None:
    old = write_release(tmp_path / "vllm-0.19.0", "0.19.0")
    new = write_release(tmp_path / "vllm-0.20.0", "0.20.0")
    out = tmp_path / "hardware.json"
    result = CliRunner().invoke(flags_group, ["hardware", str(new), str(old), "-o", str(out)])
    assert result.exit_code == 0, result.output
    catalog = json.loads(out.read_text())
    assert catalog["releases"] == ["0.19.0", "0.20.0"]
    assert catalog["entries"]["attention/ROCM_ATTN"] == [
        {"first": "0.19.0", "last": "0.20.0", "platforms": ["rocm"]}
    ]
    bad = CliRunner().invoke(flags_group, ["hardware", str(tmp_path / "none"), "-o", str(out)])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_sm100_only_kernels_run_on_blackwell_only() -> None:
    assert backend_runs_on("CUTLASS_MLA", "0.17.0", "cuda", (10, 0)) == "yes"
    assert backend_runs_on("CUTLASS_MLA", "0.17.0", "cuda", (9, 0)) == "no"
    assert backend_runs_on("CUTLASS_MLA", "0.17.0", "rocm") == "no"


def test_vendor_specific_backends() -> None:
    assert backend_runs_on("ROCM_AITER_MLA", "0.17.0", "cuda", (9, 0)) == "no"
    assert backend_runs_on("ROCM_AITER_MLA", "0.17.0", "rocm") == "yes"
    assert backend_runs_on("FLASH_ATTN", "0.17.0", "cuda", (7, 5)) == "no"
    assert backend_runs_on("flash_attn", "0.17.0", "cuda", (9, 0)) == "yes"
    assert backend_runs_on("NO_SUCH_BACKEND", "0.17.0", "cuda") == "unknown"
    assert attention_backend("FLASH_ATTN", "0.3.0") is None


def test_config_era_quantization_lists(tmp_path: Path) -> None:
    root = write_release(tmp_path, "0.5.0")
    (root / "vllm/config.py").write_text(
        textwrap.dedent(
            """
            class ModelConfig:
                def _verify_quantization(self):
                    rocm_supported_quantization = ["gptq", "squeezellm"]
                    tpu_supported_quantization = ["tpu_int8"]
            """
        )
    )
    (root / "vllm/platforms/rocm.py").write_text("class RocmPlatform:\n    pass\n")
    entries = extract_hardware(root)["entries"]
    assert entries["quantization/rocm"] == {"methods": ["gptq", "squeezellm"]}
    assert entries["quantization/tpu"] == {"methods": ["tpu_int8"]}


def test_platform_quantization_lists() -> None:
    assert quantization_on("awq", "0.4.0", "rocm") == "no"  # rocm_not_supported_quantization
    assert quantization_on("gptq", "0.4.0", "rocm") == "yes"
    assert quantization_on("awq", "0.5.0", "rocm") == "no"
    assert quantization_on("awq", "0.17.0", "rocm") == "yes"
    assert quantization_on("bitsandbytes", "0.8.0", "rocm") == "no"
    assert quantization_on("bitsandbytes", "0.8.0", "cuda") == "yes"  # CUDA lists none: all pass
    assert quantization_on("awq", "0.3.0", "cuda") == "unknown"


KERNEL_CONFIG = """
    from typing import Literal

    MoEBackend = Literal["auto", "triton", "cutedsl", "cutlass", "aiter", "b12x", "named"]
"""
MOE_ORACLE = """
    from enum import Enum

    from vllm.platforms import current_platform


    class Nvfp4Backend(Enum):
        CUTEDSL = "CUTEDSL"
        CUTLASS = "CUTLASS"
        AITER = "AITER"
        B12X = "B12X"
        NAMED = "NAMED"


    def backend_to_kernel_cls(backend):
        if backend == Nvfp4Backend.CUTEDSL:
            from vllm.kernels import CuteDslExperts

            return [CuteDslExperts]
        elif backend in (Nvfp4Backend.CUTLASS, Nvfp4Backend.NAMED):
            from vllm.kernels import CutlassExperts

            return CutlassExperts
        elif backend == Nvfp4Backend.AITER:
            from vllm.kernels import AiterExperts

            return AiterExperts
        elif backend == Nvfp4Backend.B12X:
            from vllm.kernels import B12xExperts

            return B12xExperts


    def map_nvfp4_backend(runner_backend):
        mapping = {
            "cutedsl": Nvfp4Backend.CUTEDSL,
            "cutlass": Nvfp4Backend.CUTLASS,
            "aiter": Nvfp4Backend.AITER,
            "b12x": [Nvfp4Backend.B12X],
            "named": Nvfp4Backend.NAMED,
        }
        return mapping[runner_backend]
"""
MOE_KERNELS = """
    from vllm.platforms import current_platform


    class CuteDslExperts:
        @staticmethod
        def _supports_current_device() -> bool:
            p = current_platform
            return p.is_cuda() and p.is_device_capability_family(100) and has_cutedsl()


    class CutlassExperts:
        @staticmethod
        def _supports_current_device() -> bool:
            p = current_platform
            return p.is_cuda() and (
                p.is_device_capability(90) or p.has_device_capability((10, 0))
            )


    class AiterExperts:
        @staticmethod
        def _supports_current_device() -> bool:
            return rocm_aiter_ops.is_fused_moe_enabled()


    class B12xExperts:
        @staticmethod
        def _supports_current_device() -> bool:
            if not current_platform.is_cuda():
                return False
            return current_platform.is_device_capability_family(120)
"""
# Code outside the oracles that tests a choice by name: its hardware is not the kernels' alone.
MODEL = """
    def build(vllm_config):
        return vllm_config.kernel_config.moe_backend == "named"
"""


def write_moe_release(root: Path) -> Path:
    write_release(root, "0.20.0")
    files = {
        "vllm/config/__init__.py": "",
        "vllm/config/kernel.py": KERNEL_CONFIG,
        "vllm/kernels.py": MOE_KERNELS,
        "vllm/model_executor/layers/fused_moe/oracle/nvfp4.py": MOE_ORACLE,
        "vllm/models/special.py": MODEL,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_moe_backends_run_where_their_kernels_device_checks_say(tmp_path: Path) -> None:
    entries = extract_hardware(write_moe_release(tmp_path))["entries"]
    moe = {key: value for key, value in entries.items() if key.startswith("moe/")}
    assert moe == {
        "moe/cutedsl": {"platforms": ["cuda"], "capabilities": ["10.0", "10.3"]},
        "moe/cutlass": {
            "platforms": ["cuda"],
            "capabilities": ["9.0", "10.0", "10.3", "11.0", "12.0", "12.1"],
        },
    }
    # Not recorded: AITER's check is a helper's, B12X's has two returns, "named" is
    # also tested by a model, "triton" maps to no kernel here.


def test_moe_backends_from_the_catalog() -> None:
    assert moe_backend_runs_on("flashinfer_cutedsl", "0.20.0", "cuda", (10, 0)) == "yes"
    assert moe_backend_runs_on("flashinfer_cutedsl", "0.20.0", "cuda", (9, 0)) == "no"
    assert moe_backend_runs_on("flashinfer-cutedsl", "0.20.0", "rocm") == "no"
    assert moe_backend_runs_on("flashinfer_cutedsl", "0.20.0", "cuda", (6, 1)) == "unknown"
    assert moe_backend_runs_on("flashinfer_cutlass", "0.20.0", "cuda", (8, 0)) == "no"
    assert moe_backend_runs_on("flashinfer_cutlass", "0.20.0", "cuda", (12, 0)) == "yes"
    # The source does not let AITER's kernels be read: never judged.
    assert moe_backend_runs_on("aiter", "0.20.0", "cuda", (9, 0)) == "unknown"
    assert moe_backend("flashinfer_cutedsl", "0.16.0") is None  # before --moe-backend


SELECTORS = {
    # Falls back for what it does not handle (ROCm to 0.11): logs and returns its own.
    "rocm": """
        class RocmPlatform:
            @classmethod
            def get_attn_backend_cls(cls, selected_backend, use_mla):
                if use_mla:
                    if selected_backend == _Backend.TRITON_MLA:
                        return "triton_mla"
                    raise ValueError(f"{selected_backend.name} is not MLA type")
                if selected_backend == _Backend.ROCM_ATTN:
                    return "rocm"
                logger.info("%s is not supported in AMD GPUs.", selected_backend)
                return "rocm_flash"
    """,
    # Refuses any other selection (XPU from 0.10.2).
    "xpu": """
        class XPUPlatform:
            @classmethod
            def get_attn_backend_cls(cls, selected_backend, use_mla):
                if selected_backend == _Backend.TRITON_ATTN:
                    return "triton"
                elif selected_backend:
                    raise ValueError(f"Invalid attention backend for {cls.device_name}")
                return "flash"
    """,
    # An out-of-tree plugin's platform (TPU from 0.14): no class of its own.
    "tpu": """
        try:
            from tpu_inference.platforms import TpuPlatform as TpuInferencePlatform
            TpuPlatform = TpuInferencePlatform
        except ImportError:
            pass
    """,
    # Built on another platform's class: selects as that one does.
    "zen_cpu": "from vllm.platforms.xpu import XPUPlatform\n\nclass ZenPlatform(XPUPlatform):\n    pass\n",
}
FLASHMLA_OPS = """
    def is_flashmla_supported():
        if not current_platform.is_cuda():
            return False, "FlashMLA is only supported on CUDA devices."
        if current_platform.get_device_capability()[0] != 9:
            return False, "FlashMLA is only supported on Hopper devices."
        return True, None
"""


def test_what_each_platform_does_with_a_backend_it_does_not_handle(tmp_path: Path) -> None:
    root = write_release(tmp_path, "0.11.0")
    for name, text in SELECTORS.items():
        (root / "vllm/platforms" / f"{name}.py").write_text(textwrap.dedent(text))
    entries = extract_hardware(root)["entries"]
    assert entries["selector/rocm"] == {"mla": "refused", "unsupported": "fallback"}
    # No MLA branch of its own: the refusal stands for MLA models too.
    assert entries["selector/xpu"] == {"mla": "refused", "unsupported": "refused"}
    assert entries["selector/zen_cpu"] == entries["selector/xpu"]
    assert entries["selector/tpu"] == {"out_of_tree": True}
    assert "selector/cuda" not in entries  # a platform module whose class has no selector


def test_a_capability_stated_by_the_backends_own_support_check(tmp_path: Path) -> None:
    root = write_release(tmp_path, "0.10.0")
    registry = textwrap.dedent(REGISTRY).replace('CUSTOM = ""', 'CUSTOM = ""\n    FLASHMLA = ""')
    (root / "vllm/registry.py").write_text(registry)
    (root / "vllm/attention/ops").mkdir(parents=True)
    (root / "vllm/attention/__init__.py").write_text("")
    (root / "vllm/attention/ops/__init__.py").write_text("")
    (root / "vllm/attention/ops/flashmla.py").write_text(textwrap.dedent(FLASHMLA_OPS))
    entry = extract_hardware(root)["entries"]["attention/FLASHMLA"]
    assert entry == {
        "capability": "current_platform.get_device_capability()[0] == 9",
        "majors": [9],
        "platforms": [],
    }
