"""The tree-wide inputs of a rendering (recipelint.resolve.inputs)."""

from __future__ import annotations

from typing import Any

from test_layers_kv import catalog, recipe

from recipelint.resolve.command import render_command
from recipelint.resolve.inputs import Combination, RenderInputs

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
