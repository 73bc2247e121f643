"""The committed hardware catalog (``rules/vllm/vllm-hardware.json``): which platforms and CUDA
capabilities each release's attention backends, MoE backends and quantization methods run on.

:mod:`recipelint.flags.hardware` extracts it from vLLM's sources; the checks read it here,
without importing the source readers.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Literal, cast

import orjson

from recipelint.flags.catalog import version_key
from recipelint.flags.catalogfiles import HardwareCatalogFile, HardwareEra
from recipelint.packagedata import RULE_CATALOG, data_folder

HARDWARE_CATALOG = "vllm-hardware.json"
# CUDA capabilities a MoE kernel's device check is evaluated on: the GPUs vLLM names.
CUDA_CAPABILITIES = (
    (7, 0), (7, 5), (8, 0), (8, 6), (8, 7), (8, 9), (9, 0),
    (10, 0), (10, 3), (11, 0), (12, 0), (12, 1),
)  # fmt: skip

Runs = Literal["yes", "no", "unknown"]


@cache
def load_hardware_catalog() -> HardwareCatalogFile:
    data = (data_folder(RULE_CATALOG) / "vllm" / HARDWARE_CATALOG).read_bytes()
    return cast(HardwareCatalogFile, orjson.loads(data))  # the file `flags hardware` writes


def _entry(key: str, version: str) -> HardwareEra | None:
    at = _release_at(version)
    if at is None:
        return None
    for first, last, era in _eras(key):
        if first <= at <= last:
            return era.copy()
    return None


@lru_cache(maxsize=256)
def _release_at(version: str) -> int | None:
    """The position of the newest release at or below ``version``; None when none is.
    Every catalog question asks it, for the few releases recipes claim."""
    releases = load_hardware_catalog()["releases"]
    wanted = version_key(version)
    covered = [r for r in releases if version_key(r) <= wanted]
    return releases.index(covered[-1]) if covered else None


@lru_cache(maxsize=1024)
def _eras(key: str) -> tuple[tuple[int, int, HardwareEra], ...]:
    """A key's eras with the positions of their first and last releases."""
    catalog = load_hardware_catalog()
    releases = catalog["releases"]
    return tuple(
        (releases.index(era["first"]), releases.index(era["last"]), era)
        for era in catalog["entries"].get(key, ())
    )


def attention_backend(name: str, version: str) -> HardwareEra | None:
    """The release's (or closest lower one's) record of an attention backend enum name:
    ``platforms`` naming it, and ``capability`` / ``majors`` / ``min`` where the backend
    states the CUDA capabilities it supports. None: the release has no such backend."""
    return _entry(f"attention/{name.upper()}", version)


def attention_selector(platform: str, version: str) -> HardwareEra | None:
    """How the release's ``platform`` treats a selected attention backend it does not handle:
    ``unsupported`` (and ``mla``, for MLA models) ``refused`` or ``fallback``, or
    ``out_of_tree`` (a plugin selects: nothing is known). None: the release says nothing."""
    return _entry(f"selector/{platform}", version)


def backend_runs_on(
    name: str, version: str, platform: str, capability: tuple[int, int] | None = None
) -> Runs:
    """Whether a backend can be selected on ``platform`` (cuda, rocm, cpu, xpu, tpu...) and,
    for CUDA, on a GPU of ``capability`` (major, minor): "unknown" when the source says nothing."""
    entry = attention_backend(name, version)
    if entry is None:
        return "unknown"
    platforms = entry.get("platforms", [])
    if platforms and platform not in platforms:
        return "no"
    if capability is not None and platform == "cuda":
        if "majors" in entry:
            return "yes" if capability[0] in entry["majors"] else "no"
        low = _version_pair(entry.get("min", "0.0"))
        high = _version_pair(entry.get("max", "999.0"))
        if "min" in entry or "max" in entry:
            return "yes" if low <= capability <= high else "no"
    return "yes" if platforms else "unknown"


def _version_pair(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def moe_backend(name: str, version: str) -> HardwareEra | None:
    """The release's (or closest lower one's) record of a ``--moe-backend`` choice: the
    ``platforms`` its kernels run on and, where they state it, the CUDA ``capabilities``.
    None: the release's source does not tell (or has no such choice)."""
    return _entry(f"moe/{name.lower().replace('-', '_')}", version)


def moe_backend_runs_on(
    name: str, version: str, platform: str, capability: tuple[int, int] | None = None
) -> Runs:
    """Whether a ``--moe-backend`` choice has a kernel for ``platform`` and, on CUDA, for a GPU
    of ``capability`` (major, minor): "unknown" when the source says nothing of it."""
    entry = moe_backend(name, version)
    if entry is None:
        return "unknown"
    if platform not in entry["platforms"]:
        return "no"
    if capability is None or platform != "cuda" or "capabilities" not in entry:
        return "yes"
    listed = {_version_pair(c) for c in entry["capabilities"]}
    if capability in listed:
        return "yes"
    return "no" if capability in CUDA_CAPABILITIES else "unknown"


def quantization_on(method: str, version: str, platform: str) -> Runs:
    """Whether ``platform`` accepts a quantization method ("yes" when it lists none: all pass)."""
    entry = _entry(f"quantization/{platform}", version)
    if entry is None:
        return "yes" if _entry_known(version) else "unknown"
    if "excluded" in entry:
        return "no" if method in entry["excluded"] else "yes"
    return "yes" if method in entry["methods"] else "no"


def _entry_known(version: str) -> bool:
    return _release_at(version) is not None
