"""resolve/hardware.py: generations, hardware keys, precision constraints, what fits a node.

docs/upstream-behaviour.md#hardware-keyspaces, #compatible-hardware, #default-hardware and
#non-scalable-hardware, on small in-test profiles.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from recipelint.jsvalue import UNDEFINED
from recipelint.resolve.hardware import (
    default_among,
    fits_single_node,
    generation_of,
    gpu_count_of,
    hardware_key,
    hardware_keyed_value,
    is_hardware_supported,
    is_kv_store_brand_supported,
    is_nvidia,
    is_scalable,
    is_variant_hardware_supported,
    list_compatible_hardware,
    matches_constraint,
    pd_fits_single_node,
    pick_default_hardware,
    pick_fitting_variant,
    precision_constraint,
    runs_on,
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
        ({"vram_gb": math.nan}, None, True),  # upstream tests the minimum first: 0 <= 0
        ({"vram_gb": math.nan}, 100, False),  # then nothing compares with NaN
        ({"vram_gb": 0.5}, 1, False),  # sizes below one GPU-gigabyte are compared as well
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
        ({"gpu_count": 8, "vram_gb": "big"}, {"vram_minimum_gb": 0.4}, False),  # big counts as 0
        ({"gpu_count": 8, "vram_gb": -1}, {}, False),  # -1 >= 2 * 0 is false
        ({}, {"vram_minimum_gb": 10}, False),  # no GPU count
        (H200, {}, True),  # an object is truthy: no minimum, it fits
        (H200, None, False),  # no variant
    ],
)
def test_co_located_pd_needs_two_gpus_and_twice_the_variant(
    profile: dict[str, Any], variant: Any, fits: bool
) -> None:
    assert pd_fits_single_node(profile, variant) is fits


@pytest.mark.parametrize(
    ("table", "value"),
    [
        ({"h200": 1, "hopper": 2, "nvidia": 3, "default": 4}, 1),
        ({"hopper": 2, "nvidia": 3, "default": 4}, 2),
        ({"h200": None, "nvidia": 3}, 3),  # `??` skips null
        ({"default": 4}, 4),
        ({}, UNDEFINED),  # an empty mapping is truthy in JS, and finds nothing
        ({"h100": 1}, UNDEFINED),
        (["h200"], UNDEFINED),  # only a mapping is looked up
        ("h200", UNDEFINED),
        (None, UNDEFINED),
        (UNDEFINED, UNDEFINED),
    ],
)
def test_hardware_keyed_value_reads_exact_id_then_generation_then_brand_then_default(
    table: Any, value: Any
) -> None:
    assert hardware_keyed_value(table, H200, "h200") == value


def test_a_generation_that_is_no_string_is_looked_up_by_its_string() -> None:
    profile = {"brand": "NVIDIA", "generation": 9}
    assert hardware_keyed_value({"9": "yes", "default": "no"}, profile, "x") == "yes"
    assert hardware_key({"9": "yes", "default": "no"}, profile, "x") == "9"


@pytest.mark.parametrize("table", [["h200"], "h200", None, UNDEFINED, 3])
def test_a_hardware_table_that_is_no_mapping_has_no_key(table: Any) -> None:
    assert hardware_key(table, H200, "h200") is None


@pytest.mark.parametrize("variant", [{}, {"precision": 4}, {"precision": "bf16"}, None])
def test_a_variant_without_a_constrained_precision_has_upstreams_undefined_constraint(
    variant: Any,
) -> None:
    assert precision_constraint(variant) is UNDEFINED
    assert matches_constraint(MI300X, precision_constraint(variant))


def test_a_constraint_without_a_brand_asks_only_for_the_generation() -> None:
    variant = {"precision_hardware": {"generation": "hopper"}}
    hybrid = {"brand": "Other", "generation": ["ada", "hopper"]}  # any of its generations
    profiles = {"h200": H200, "mi300x": MI300X, "b200": B200, "hybrid": hybrid}
    assert list_compatible_hardware(profiles, variant, {}) == ["h200", "hybrid"]


@pytest.mark.parametrize(
    ("supported", "compatible"),
    [
        (["b200", "mi300x"], ["mi300x", "b200"]),  # in taxonomy order
        ([], ["h200", "mi300x", "b200"]),  # empty: no restriction
        ("h200", ["h200", "mi300x", "b200"]),  # not a list: no restriction, no substring match
        ({"b200": True}, ["h200", "mi300x", "b200"]),
    ],
)
def test_a_variants_supported_hardware_restricts_only_as_a_non_empty_list(
    supported: Any, compatible: list[str]
) -> None:
    variant = {"supported_hardware": supported}
    profiles = {"h200": H200, "mi300x": MI300X, "b200": B200}
    assert list_compatible_hardware(profiles, variant, {}) == compatible
    assert [hw for hw in profiles if is_variant_hardware_supported(variant, hw)] == compatible


def test_hardware_the_recipe_marks_unsupported_is_left_out() -> None:
    data = {"meta": {"hardware": {"h200": "unsupported", "b200": "verified"}}}
    assert not is_hardware_supported(data, "h200")
    assert is_hardware_supported(data, "b200")
    assert is_hardware_supported({}, "h200")
    profiles = {"h200": H200, "mi300x": MI300X, "b200": B200}
    assert list_compatible_hardware(profiles, {}, data) == ["mi300x", "b200"]


PROFILES = {
    "a100": {"brand": "NVIDIA", "generation": "ampere"},
    "b300": {"brand": "NVIDIA", "generation": "blackwell"},
    "gb200": {"brand": "NVIDIA", "generation": "blackwell"},
    "b200": B200,
    "h200": H200,
    "mi300x": MI300X,
    "spark": {"brand": "NVIDIA", "generation": "blackwell", "restricted": True},
}


def test_the_default_hardware_is_the_authors_pick_when_it_is_a_candidate() -> None:
    assert pick_default_hardware(PROFILES, {}, {"meta": {"default_hardware": "mi300x"}}) == "mi300x"
    # one the variant cannot land on falls through to the usual choice
    unsupported = {"meta": {"default_hardware": "mi300x", "hardware": {"mi300x": "unsupported"}}}
    assert pick_default_hardware(PROFILES, {}, unsupported) == "h200"
    unknown = {"meta": {"default_hardware": "tpu"}}
    assert pick_default_hardware(PROFILES, {}, unknown) == "h200"


def test_a_blackwell_variant_lands_on_b200_then_gb200_before_the_alphabet() -> None:
    nvfp4 = {"precision": "nvfp4"}
    assert pick_default_hardware(PROFILES, nvfp4, {}) == "b200"
    without_b200 = {hw: p for hw, p in PROFILES.items() if hw != "b200"}
    assert pick_default_hardware(without_b200, nvfp4, {}) == "gb200"  # not b300, first by name
    # without a Blackwell constraint neither is preferred: h200, else by brand and name
    assert default_among(PROFILES, {}, {}, ["b200", "a100"]) == "a100"
    assert default_among(PROFILES, {}, {}, ["b200", "h200"]) == "h200"


def test_a_restricted_profile_is_a_default_only_where_the_recipe_declares_it() -> None:
    profiles = {"spark": PROFILES["spark"], "mi300x": MI300X}
    assert pick_default_hardware(profiles, {}, {}) == "mi300x"
    declared = {"meta": {"hardware": {"spark": "verified"}}}
    assert pick_default_hardware(profiles, {}, declared) == "spark"  # NVIDIA before AMD


def test_the_default_hardware_is_among_the_variants_supported_hardware() -> None:
    variant = {"supported_hardware": ["mi300x"]}
    assert pick_default_hardware(PROFILES, variant, {}) == "mi300x"


def test_only_the_brand_nvidia_as_written_is_nvidia() -> None:
    assert is_nvidia(H200)
    assert not is_nvidia(MI300X)
    assert not is_nvidia({"brand": "nvidia"})
    assert not is_nvidia({})


@pytest.mark.parametrize(
    ("scalable", "expected"), [(False, False), (True, True), (0, True), (None, True)]
)
def test_only_scalable_false_stops_a_profile_from_scaling_out(
    scalable: Any, expected: bool
) -> None:
    assert is_scalable({"scalable": scalable}) is expected
    assert is_scalable({})


WORKSTATION = {"brand": "NVIDIA", "generation": "blackwell", "vram_gb": 100, "scalable": False}


def test_any_variant_runs_on_scalable_hardware_and_one_that_fits_on_a_workstation() -> None:
    big = {"vram_minimum_gb": 5000}
    assert runs_on(H200, big, "h200")
    assert not runs_on(WORKSTATION, big, "station")
    assert runs_on(WORKSTATION, {"vram_minimum_gb": 100}, "station")
    assert not runs_on(H200, {"precision": "nvfp4"}, "h200")  # the precision's hardware
    assert not runs_on(H200, {"supported_hardware": ["b200"]}, "h200")


def test_a_workstation_takes_the_largest_variant_that_fits_it() -> None:
    variants: dict[str, Any] = {
        "unsized": {},  # counts as 0
        "small": {"vram_minimum_gb": 0.5},
        "big": {"vram_minimum_gb": 200},
        "fits": {"vram_minimum_gb": 60},
    }
    assert pick_fitting_variant({"variants": variants}, WORKSTATION, "station") == "fits"
    del variants["fits"]
    assert pick_fitting_variant({"variants": variants}, WORKSTATION, "station") == "small"
    only_big = {"variants": {"big": variants["big"]}}
    assert pick_fitting_variant(only_big, WORKSTATION, "station") is None
    assert pick_fitting_variant({}, WORKSTATION, "station") is None
    # a variant without a size counts as 0, above a negative one
    negative = {"negative": {"vram_minimum_gb": -0.5}, "unsized": {}}
    assert pick_fitting_variant({"variants": negative}, WORKSTATION, "station") == "unsized"


@pytest.mark.parametrize(("profile", "count"), [(H200, 8), ({}, 1), ({"gpu_count": "8"}, 1)])
def test_a_profile_without_a_numeric_gpu_count_counts_one_gpu(profile: Any, count: int) -> None:
    assert gpu_count_of(profile) == count


def test_kv_store_deployments_are_for_nvidia_and_amd_only() -> None:
    assert is_kv_store_brand_supported(H200) is True
    assert is_kv_store_brand_supported(MI300X) is True
    assert is_kv_store_brand_supported({"brand": "Google"}) is False
    assert is_kv_store_brand_supported({}) is False
