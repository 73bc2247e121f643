"""The tree-wide inputs of a rendering (recipelint.resolve.inputs)."""

from __future__ import annotations

from typing import Any

from test_layers_kv import catalog, recipe

from recipelint.jsvalue import UNDEFINED
from recipelint.resolve.command import render_command
from recipelint.resolve.inputs import Combination, RenderInputs, typed

PROFILES: dict[str, Any] = {
    "h200": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 1128},
    "odd": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "gpu_generation": ["x"]},
}


def test_a_hardware_whose_read_fields_are_scalars_has_a_reading_to_share() -> None:
    inputs = RenderInputs({"hardware_profiles": PROFILES}, PROFILES, {})
    reading = inputs.hardware("h200").reading
    assert reading is not None and hash(reading) == hash(inputs.hardware("h200").reading)
    assert reading[0] is False  # not an NVL4 machine


def test_a_hardware_with_a_field_that_is_no_scalar_shares_no_reading() -> None:
    inputs = RenderInputs({"hardware_profiles": PROFILES}, PROFILES, {})
    assert inputs.hardware("odd").reading is None


def test_a_combination_is_for_one_node_unless_told_otherwise() -> None:
    combo = Combination("default", "single_node_tp", "h200")
    assert (combo.node_count, combo.features, combo.pd_nodes, combo.kv_offload) == (
        1,
        (),
        None,
        None,
    )
    assert render_command(catalog(), recipe(), combo)["node_count"] == 1


def test_only_an_nvidia_brand_reads_as_nvidia() -> None:
    profiles = {**PROFILES, "mi300x": {"brand": "AMD", "generation": "cdna3", "gpu_count": 8}}
    inputs = RenderInputs({"hardware_profiles": profiles}, profiles, {})
    assert inputs.hardware("h200").nvidia is True
    assert inputs.hardware("mi300x").nvidia is False


def test_a_strategy_s_deploy_type_is_read_by_its_name_only() -> None:
    inputs = catalog()
    assert inputs.deploy_types["pd_cluster"] == "pd_cluster"
    assert inputs.deploy_type_of("single_node_tp") == "single_node"
    assert inputs.deploy_type_of("nope") is UNDEFINED
    assert inputs.deploy_type_of(["pd_cluster"]) is UNDEFINED  # strategies[name] of a non-string


def test_the_kv_deployments_are_the_kv_store_strategies() -> None:
    assert catalog().kv_ids == ["kv_mooncake"]


def test_typed_tells_apart_values_python_finds_equal() -> None:
    assert typed(1) == (int, 1)
    assert typed(0.5) == (float, (0.5).hex())
    assert len({typed(1), typed(1.0), typed(True)}) == 3
    assert typed(0.0) != typed(-0.0)
