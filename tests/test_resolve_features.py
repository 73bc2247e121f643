"""resolve/features.py: a feature's args where a hardware override replaces them, and companions.

docs/upstream-behaviour.md#layer-order: a feature contributes `overrides[gen] || (nvidia ?
overrides.nvidia : null)`'s args when set (`??`), else its own; a modal feature its mode's,
with the mode's hardware override (exact id, generation, brand, `default`) first. A feature's
companion command is published only for the strategies its `strategies` allow-list names
(none: every strategy).
"""

from __future__ import annotations

from typing import Any

import pytest

from recipelint.resolve.command import Combination, RenderInputs, render_command
from recipelint.resolve.features import (
    FeatureContext,
    FeatureResolver,
    allowed_for_strategy,
    companions,
    feature_args,
    feature_mode_problems,
)

PROFILES: dict[str, Any] = {
    "h200": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 1128},
    "mi300x": {"brand": "AMD", "generation": "amd", "gpu_count": 8, "vram_gb": 1536},
}
STRATEGIES: dict[str, Any] = {
    "single_node_tp": {"name": "single_node_tp", "deploy_type": "single_node", "vllm_args": []},
    "single_node_tep": {"name": "single_node_tep", "deploy_type": "single_node", "vllm_args": []},
}
INPUTS = RenderInputs({"hardware_profiles": PROFILES}, PROFILES, STRATEGIES)


def recipe(features: dict[str, Any]) -> dict[str, Any]:
    return {
        "meta": {"title": "T", "provider": "P", "tasks": ["text"]},
        "model": {"model_id": "org/model"},
        "features": features,
        "variants": {"default": {"precision": "bf16", "vram_minimum_gb": 60}},
        "compatible_strategies": ["single_node_tp", "single_node_tep"],
    }


def feature_tokens(features: dict[str, Any], hw_id: str, strategy: str = "single_node_tp") -> Any:
    """What the enabled feature adds after the emitter's `--tensor-parallel-size N`."""
    doc = render_command(
        INPUTS, recipe(features), Combination("default", strategy, hw_id, features=("f",))
    )
    argv = doc["argv"]
    return argv[argv.index("--tensor-parallel-size") + 2 :]


# ------------------------------------------------------------------ a plain feature


@pytest.mark.parametrize(
    ("overrides", "hw_id", "expected"),
    [
        ({"hopper": {"args": ["--on-hopper"]}}, "h200", ["--on-hopper"]),
        ({"nvidia": {"args": ["--on-nvidia"]}}, "h200", ["--on-nvidia"]),
        ({"hopper": {"args": ["--on-hopper"]}}, "mi300x", ["--own"]),
        ({"hopper": {"args": []}}, "h200", []),  # `??`: an empty list is set, and replaces
        ({"hopper": {"args": None}}, "h200", ["--own"]),  # null is not set
        ({"hopper": {"env": {}}}, "h200", ["--own"]),  # no args in the override
    ],
)
def test_a_features_hardware_override_replaces_its_args(
    overrides: dict[str, Any], hw_id: str, expected: list[str]
) -> None:
    feature = {"args": ["--own"], "hardware_overrides": overrides}
    assert feature_tokens({"f": feature}, hw_id) == expected


def test_a_feature_without_an_override_adds_its_own_args() -> None:
    assert feature_tokens({"f": {"args": ["--own", "1"]}}, "h200") == ["--own", "1"]


# ------------------------------------------------------------------ a modal feature


def modal(hardware_overrides: dict[str, Any]) -> dict[str, Any]:
    return {
        "default_mode": "fast",
        "modes": {
            "fast": {"args": ["--fast"], "hardware_overrides": hardware_overrides},
            "slow": {"args": ["--slow"]},
        },
    }


@pytest.mark.parametrize(
    ("overrides", "hw_id", "expected"),
    [
        ({"h200": {"args": ["--fast-h200"]}}, "h200", ["--fast-h200"]),
        ({"hopper": {"args": ["--fast-hopper"]}}, "h200", ["--fast-hopper"]),
        ({"default": {"args": ["--fast-any"]}}, "mi300x", ["--fast-any"]),
        ({"h200": {"args": ["--fast-h200"]}}, "mi300x", ["--fast"]),
        ({"h200": {"env": {}}}, "h200", ["--fast"]),  # the override sets no args
    ],
)
def test_a_modes_hardware_override_replaces_the_modes_args(
    overrides: dict[str, Any], hw_id: str, expected: list[str]
) -> None:
    assert feature_tokens({"f": modal(overrides)}, hw_id) == expected


# ------------------------------------------------------------------ companions


def companion(**extra: Any) -> dict[str, Any]:
    return {"companion": {"command": "run-me  \n", "label": "Run"}, **extra}


def test_a_feature_without_an_allow_list_has_its_companion_on_every_strategy() -> None:
    data = recipe({"f": companion()})
    expected = [{"feature": "f", "label": "Run", "description": "", "command": "run-me"}]
    assert companions(data, ["f"], "single_node_tp") == expected
    assert companions(data, ["f"], "single_node_tep") == expected


def test_a_companion_is_published_only_for_the_strategies_its_feature_allows() -> None:
    data = recipe({"f": companion(strategies=["single_node_tep"]), "g": companion()})
    assert [c["feature"] for c in companions(data, ["f", "g"], "single_node_tep")] == ["f", "g"]
    assert [c["feature"] for c in companions(data, ["f", "g"], "single_node_tp")] == ["g"]


@pytest.mark.parametrize(
    ("allow", "allowed"),
    [(None, True), ([], True), ("single_node_tp", True), (["a", "b"], False), (["b", "a"], False)],
)
def test_allowed_for_strategy(allow: Any, allowed: bool) -> None:
    # only a non-empty list restricts; `strategy` here is "single_node_tp"
    feature = {} if allow is None else {"strategies": allow}
    assert allowed_for_strategy(feature, "single_node_tp") is allowed
    assert allowed_for_strategy({"strategies": ["single_node_tp"]}, "single_node_tp") is True


def test_the_rendering_carries_the_companions_of_its_enabled_features() -> None:
    features = {"f": companion(args=["--f"]), "g": companion(strategies=["single_node_tep"])}
    doc = render_command(
        INPUTS,
        recipe(features),
        Combination("default", "single_node_tp", "h200", features=("f", "g")),
    )
    assert [c["feature"] for c in doc["companions"]] == ["f"]


# ------------------------------------------------------------------ the mode a feature uses


def test_without_a_default_a_modal_feature_uses_its_first_mode_the_hardware_supports() -> None:
    feature = {
        "modes": {
            "first": {"args": ["--first"], "hardware": {"hopper": "unsupported"}},
            "second": {"args": ["--second"]},
        }
    }
    assert feature_tokens({"f": feature}, "mi300x") == ["--first"]
    assert feature_tokens({"f": feature}, "h200") == ["--second"]


# ------------------------------------------------------------------ the resolver's entry points


def test_feature_args_gives_each_enabled_feature_s_list_in_order() -> None:
    data = recipe({"f": {"args": ["--f"]}, "g": {"args": ["--g", "1"]}, "off": None})
    ctx = FeatureContext(data, {}, "default", "single_node_tp", PROFILES["h200"], "h200", False)
    assert feature_args(ctx, ["g", "off", "f"]) == [["--g", "1"], ["--f"]]


def test_a_resolver_asked_for_several_strategies_keeps_each_allow_list() -> None:
    data = recipe(
        {"f": {"args": ["--f"], "strategies": ["single_node_tep"]}, "g": {"args": ["--g"]}}
    )
    resolver = FeatureResolver(data, {}, "default", PROFILES["h200"], "h200")
    assert resolver.args_for(("f", "g"), "single_node_tep", False) == [["--f"], ["--g"]]
    assert resolver.args_for(("f", "g"), "single_node_tp", False) == [["--g"]]
    assert resolver.args_for(("g",), "single_node_tp", False) == [["--g"]]


# ------------------------------------------------------------------ mode validation


def test_a_mode_s_variants_that_are_no_list_are_a_problem() -> None:
    data = recipe(
        {
            "f": {"modes": {"a": {"args": [], "variants": "default"}}},
            "g": {"modes": {"b": {"args": [], "variants": ["default"]}}},
        }
    )
    assert feature_mode_problems(data) == [
        (
            ("features", "f", "modes", "a", "variants"),
            "features.f.modes.a.variants must be an array",
        )
    ]
