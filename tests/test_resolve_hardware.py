"""resolve/hardware.py: generations, hardware keys, precision constraints, what fits a node.

docs/upstream-behaviour.md#hardware-keyspaces, #compatible-hardware, #default-hardware and
#non-scalable-hardware, on small in-test profiles.
"""

from __future__ import annotations

from typing import Any

import pytest

from recipelint.jsvalue import UNDEFINED
from recipelint.resolve.hardware import (
    default_among,
    fits_single_node,
    generation_of,
    hardware_key,
    list_compatible_hardware,
    pd_fits_single_node,
    precision_constraint,
)

H200 = {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 1128}
MI300X = {"brand": "AMD", "generation": "amd", "gpu_count": 8, "vram_gb": 1536}
B200 = {"brand": "NVIDIA", "generation": "blackwell", "gpu_count": 8, "vram_gb": 1440}


@pytest.mark.parametrize(
    ("profile", "generation"),
    [
        ({"generation": "hopper"}, "hopper"),
        ({"generation": ["blackwell", "hopper"]}, "blackwell"),  # the first of several
        ({"generation": []}, UNDEFINED),
        ({"gpu_generation": "ampere"}, "ampere"),
        ({}, UNDEFINED),
    ],
)
def test_generation_of(profile: dict[str, Any], generation: Any) -> None:
    assert generation_of(profile) == generation


@pytest.mark.parametrize(
    ("table", "hw_id", "key"),
    [
        ({"h200": {}, "hopper": {}, "nvidia": {}, "default": {}}, "h200", "h200"),
        ({"hopper": {}, "nvidia": {}, "default": {}}, "h200", "hopper"),
        ({"nvidia": {}, "default": {}}, "h200", "nvidia"),
        ({"default": {}}, "h200", "default"),
        ({"h200": None, "hopper": {}}, "h200", "hopper"),  # `??` skips null
        ({"h100": {}}, "h200", None),
        ({"h200": {}, "hopper": {}}, None, "hopper"),
        ({}, "h200", None),
    ],
)
def test_hardware_key_is_exact_id_then_generation_then_brand_then_default(
    table: dict[str, Any], hw_id: str | None, key: str | None
) -> None:
    assert hardware_key(table, H200, hw_id) == key


def test_a_variants_precision_hardware_replaces_the_built_in_constraint() -> None:
    variant = {"precision": "nvfp4", "precision_hardware": {"brand": "AMD"}}
    assert precision_constraint(variant) == {"brand": "AMD"}
    profiles = {"h200": H200, "mi300x": MI300X, "b200": B200}
    assert list_compatible_hardware(profiles, variant, {}) == ["mi300x"]
    builtin = {"precision": "nvfp4"}
    assert precision_constraint(builtin) == {"brand": "NVIDIA", "generation": "blackwell"}
    assert list_compatible_hardware(profiles, builtin, {}) == ["b200"]


def test_the_default_among_unpreferred_candidates_is_nvidia_then_amd_then_any_brand() -> None:
    profiles = {
        "zeta": {"brand": "Other"},
        "mi300x": MI300X,
        "rtx6000": {"brand": "NVIDIA", "generation": "blackwell"},
        "a100": {"brand": "NVIDIA", "generation": "ampere"},
    }
    assert default_among(profiles, {}, {}, ["zeta", "mi300x", "rtx6000"]) == "rtx6000"
    assert default_among(profiles, {}, {}, ["zeta", "mi300x", "rtx6000", "a100"]) == "a100"
    assert default_among(profiles, {}, {}, ["zeta", "mi300x"]) == "mi300x"
    assert default_among(profiles, {}, {}, ["zeta"]) == "zeta"
    assert default_among(profiles, {}, {}, []) == "h200"


@pytest.mark.parametrize(
    ("profile", "vram", "fits"),
    [
        (H200, 1128, True),
        (H200, 1129, False),
        (H200, None, True),  # no minimum: fits anything
        ({"brand": "NVIDIA"}, 100, True),  # a node without vram_gb: fits anything
        ({"vram_gb": "big"}, 100, True),  # not a number: counted as 0
    ],
)
def test_fits_single_node(profile: dict[str, Any], vram: Any, fits: bool) -> None:
    assert fits_single_node(profile, {"vram_minimum_gb": vram}) is fits


@pytest.mark.parametrize(
    ("profile", "variant", "fits"),
    [
        (H200, {"vram_minimum_gb": 564}, True),  # half the node holds it
        (H200, {"vram_minimum_gb": 565}, False),
        ({**H200, "gpu_count": 2}, {"vram_minimum_gb": 10}, True),
        ({**H200, "gpu_count": 1}, {"vram_minimum_gb": 10}, False),  # one GPU cannot be halved
        ({"gpu_count": 8}, {"precision": "bf16"}, True),  # no sizes: 0 >= 2 * 0
        ({"gpu_count": 8, "vram_gb": 1}, {"precision": "bf16"}, True),
        ({}, {"vram_minimum_gb": 10}, False),  # no GPU count
        (H200, {}, True),  # an object is truthy: no minimum, it fits
        (H200, None, False),  # no variant
    ],
)
def test_co_located_pd_needs_two_gpus_and_twice_the_variant(
    profile: dict[str, Any], variant: Any, fits: bool
) -> None:
    assert pd_fits_single_node(profile, variant) is fits
