"""The kv layers of a command: a kv_store's lists and the taxonomy's kv_offload option.

docs/upstream-behaviour.md#layer-order and #env-layers; upstream's `buildArgs` ends with
the features, `kvOpt.args`, `kv.vllm.vllm_args` (in a kv_store composition) and
`kv.pd[role].args` (a PD role with a kv_store); `buildEnv` assigns `kvOpt.env`, then
`kv.vllm.env` (in a composition, or for a PD role of a kv_store with `pd`) right after
the strategy's env and before a PD role's device pinning. The build reaches none of the
PD × kv_store or kv_offload lists today (docs/upstream-behaviour.md#kv-store), so the corpus
cannot tell when one is dropped: these tests do.
"""

from __future__ import annotations

from typing import Any

from recipelint.resolve import layers
from recipelint.resolve.command import Combination, RenderInputs, render_command

PROFILES: dict[str, Any] = {
    "h200": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 1128},
}
PD = {
    "name": "pd_cluster",
    "deploy_type": "pd_cluster",
    "prefill": {"vllm_args": ["--port", "8001"], "env": {"P": "prefill"}},
    "decode": {"vllm_args": ["--port", "8002"], "env": {"D": "decode"}},
}
SINGLE = {
    "name": "single_node_tp",
    "deploy_type": "single_node",
    "vllm_args": ["--file"],
    "env": {"S": "strategy"},
}
MOONCAKE = {
    "name": "kv_mooncake",
    "deploy_type": "kv_store_lb",
    "default_instances": 1,
    "vllm": {"vllm_args": ["--kv-transfer-config", "{}"], "env": {"MC": "kv"}},
    "pd": {"prefill": {"args": ["--kv-prefill"]}, "decode": {"args": ["--kv-decode", "d"]}},
}
OFFLOAD = {"args": ["--kv-offloading-backend", "native"], "env": {"OFF": "on"}}


def catalog(kv: dict[str, Any] = MOONCAKE, offload: Any = None) -> RenderInputs:
    taxonomy: dict[str, Any] = {"hardware_profiles": PROFILES}
    if offload is not None:
        taxonomy["kv_offload"] = offload
    strategies = {"pd_cluster": PD, "single_node_tp": SINGLE, kv["name"]: kv}
    return RenderInputs(taxonomy, PROFILES, strategies)


def recipe(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "meta": {"title": "T", "provider": "P", "tasks": ["text"]},
        "model": {"model_id": "org/model", "base_args": ["--base"]},
        "features": {"spec": {"args": ["--feature"]}},
        "variants": {"default": {"precision": "bf16", "vram_minimum_gb": 60}},
        "compatible_strategies": ["single_node_tp", "pd_cluster"],
        "strategy_overrides": {
            "pd_cluster": {"prefill": {"env": {"SO": "override"}}},
            "single_node_tp": {"env": {"SO": "override"}},
        },
    }
    base.update(extra)
    return base


def pd_rendering(kv: dict[str, Any] = MOONCAKE) -> dict[str, Any]:
    return render_command(
        catalog(kv),
        recipe(),
        Combination("default", "pd_cluster", "h200", features=("spec",), kv_offload=kv["name"]),
    )


# ------------------------------------------------------------------ PD roles with a kv_store


def test_a_pd_role_ends_with_its_kv_store_role_args() -> None:
    doc = pd_rendering()
    assert doc["prefill"]["argv"][-2:] == ["--feature", "--kv-prefill"]
    assert doc["decode"]["argv"][-3:] == ["--feature", "--kv-decode", "d"]


def test_a_pd_rendering_does_not_compose_the_kv_stores_own_args() -> None:
    doc = pd_rendering()  # kvComposing is false for pd_cluster: no --kv-transfer-config
    assert "--kv-transfer-config" not in doc["prefill"]["argv"]
    assert "--kv-transfer-config" not in doc["decode"]["argv"]


def test_a_pd_role_gets_the_kv_stores_env_before_its_device_pinning() -> None:
    doc = pd_rendering()
    assert list(doc["prefill"]["env"].items()) == [
        ("P", "prefill"),
        ("MC", "kv"),
        ("CUDA_VISIBLE_DEVICES", "0,1,2,3"),
        ("SO", "override"),
    ]
    assert list(doc["decode"]["env"].items()) == [
        ("D", "decode"),
        ("MC", "kv"),
        ("CUDA_VISIBLE_DEVICES", "4,5,6,7"),
    ]


def test_a_kv_store_without_pd_adds_nothing_to_a_pd_role() -> None:
    plain = {key: value for key, value in MOONCAKE.items() if key != "pd"}
    doc = pd_rendering(plain)
    assert doc["prefill"]["argv"][-1] == "--feature" and doc["decode"]["argv"][-1] == "--feature"
    assert "MC" not in doc["prefill"]["env"] and "MC" not in doc["decode"]["env"]


# ------------------------------------------------------------------ a kv_store composition


def test_a_composition_ends_with_the_kv_stores_args_and_assigns_its_env_after_the_strategys() -> (
    None
):
    doc = render_command(
        catalog(),
        recipe(),
        Combination(
            "default", "single_node_tp", "h200", features=("spec",), kv_offload="kv_mooncake"
        ),
    )
    assert doc["vllm_argv"][3:] == [
        "--base",
        "--file",
        "--tensor-parallel-size",
        "1",
        "--feature",
        "--kv-transfer-config",
        "{}",
    ]
    assert list(doc["env"].items()) == [("S", "strategy"), ("MC", "kv"), ("SO", "override")]


# ------------------------------------------------------------------ the taxonomy's kv_offload option


def test_a_kv_offload_option_adds_its_args_after_the_features_and_its_env_after_the_strategys() -> (
    None
):
    doc = render_command(
        catalog(offload={"native": OFFLOAD}),
        recipe(),
        Combination("default", "single_node_tp", "h200", features=("spec",), kv_offload="native"),
    )
    assert doc["argv"][3:] == [
        "--base",
        "--file",
        "--tensor-parallel-size",
        "1",
        "--feature",
        "--kv-offloading-backend",
        "native",
    ]
    assert list(doc["env"].items()) == [("S", "strategy"), ("OFF", "on"), ("SO", "override")]


def test_a_kv_offload_option_comes_before_a_kv_stores_args_of_the_same_name() -> None:
    doc = render_command(
        catalog(offload={"kv_mooncake": OFFLOAD}),
        recipe(),
        Combination("default", "single_node_tp", "h200", kv_offload="kv_mooncake"),
    )
    assert doc["vllm_argv"][-4:] == [
        "--kv-offloading-backend",
        "native",
        "--kv-transfer-config",
        "{}",
    ]
    assert list(doc["env"].items()) == [
        ("S", "strategy"),
        ("OFF", "on"),
        ("MC", "kv"),
        ("SO", "override"),
    ]


def test_a_kv_offload_option_stops_at_its_gates() -> None:
    gated = {
        "native": {**OFFLOAD, "strategies": ["multi_node_tp"]},  # not this strategy
        "opt_in": {**OFFLOAD, "requires_opt_in": True},  # the recipe did not verify it
        "amd_only": {**OFFLOAD, "brands": ["AMD"]},  # not this brand
    }
    for name in gated:
        doc = render_command(
            catalog(offload=gated),
            recipe(),
            Combination("default", "single_node_tp", "h200", kv_offload=name),
        )
        assert "--kv-offloading-backend" not in doc["argv"] and "OFF" not in doc["env"], name
    verified = recipe(kv_offload_support={"opt_in": "verified"})
    doc = render_command(
        catalog(offload=gated),
        verified,
        Combination("default", "single_node_tp", "h200", kv_offload="opt_in"),
    )
    assert doc["argv"][-2:] == ["--kv-offloading-backend", "native"]


# ------------------------------------------------------------------ the layers the rules see


def _selection(kv: Any, kv_option: Any = None, composing: bool = False) -> layers.Selection:
    r = recipe()
    return layers.Selection(
        r,
        "default",
        r["variants"]["default"],
        "h200",
        "hopper",
        True,
        "pd_cluster",
        PD,
        r["strategy_overrides"]["pd_cluster"],
        kv_composing=composing,
        kv_option_id="native" if kv_option is not None else None,
        kv_option=kv_option,
        kv=kv,
    )


def test_the_kv_layers_of_a_pd_role_have_their_places_and_scopes() -> None:
    found = layers.layers(_selection(MOONCAKE), "decode")
    assert [(layer.pointer, layer.scope, layer.items) for layer in found[-1:]] == [
        (("pd", "decode", "args"), layers.Scope("kv-file", role="decode"), ["--kv-decode", "d"])
    ]
    assert found[-1].document == layers.KV_FILE
    env = layers.layers(_selection(MOONCAKE), "decode", layers.ENV_STEPS)
    assert [(layer.pointer, layer.items) for layer in env] == [
        (("decode", "env"), {"D": "decode"}),
        (("vllm", "env"), {"MC": "kv"}),
    ]


def test_the_kv_offload_layers_carry_the_options_name() -> None:
    sel = _selection(None, OFFLOAD)
    [args] = [
        layer for layer in layers.layers(sel, "prefill") if layer.place is layers.KV_OPTION_ARGS
    ]
    assert (args.pointer, args.items) == (("kv_offload", "native", "args"), OFFLOAD["args"])
    [env] = [
        layer
        for layer in layers.layers(sel, "prefill", layers.ENV_STEPS)
        if layer.place is layers.KV_OPTION_ENV
    ]
    assert (env.pointer, env.document, env.items) == (
        ("kv_offload", "native", "env"),
        layers.TAXONOMY,
        OFFLOAD["env"],
    )


def test_no_kv_layer_without_a_role_or_a_kv() -> None:
    assert not [
        layer for layer in layers.layers(_selection(MOONCAKE), None) if layer.document != "recipe"
    ]
    assert layers.layers(_selection(None), "prefill")[-1].place is not layers.KV_ROLE_ARGS
