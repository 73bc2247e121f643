"""The pure resolver functions on small, in-test data (no files)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recipelint.argv import dedupe_tokens
from recipelint.jsvalue import UNDEFINED
from recipelint.resolve.command import Combination, RenderInputs, render_command
from recipelint.resolve.docker import docker_meta
from recipelint.resolve.features import default_features, feature_mode_problems
from recipelint.resolve.formatting import RenderError, format_command, shell_quote
from recipelint.resolve.hardware import pick_default_hardware, pick_fitting_variant
from recipelint.resolve.install import synthesize_install
from recipelint.resolve.plan import Problems, build_variant_rendering, variant_hardware
from recipelint.resolve.strategy import (
    SKIP,
    effective_compatible,
    min_gpus,
    nodes_for_strategy,
    pd_pool_modes,
    pick_pd_nodes,
    recommend_strategy,
)

PROFILES: dict[str, Any] = {
    "h100": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 640},
    "h200": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 1128},
    "b200": {"brand": "NVIDIA", "generation": "blackwell", "gpu_count": 8, "vram_gb": 1440},
    "gb200": {"brand": "NVIDIA", "generation": "blackwell", "gpu_count": 4, "vram_gb": 768},
    "mi300x": {"brand": "AMD", "generation": "amd", "gpu_count": 8, "vram_gb": 1536},
    "station": {
        "brand": "NVIDIA",
        "generation": "blackwell",
        "gpu_count": 1,
        "vram_gb": 96,
        "scalable": False,
        "restricted": True,
    },
}
STRATEGIES: dict[str, Any] = {
    "multi_node_dep": {
        "name": "multi_node_dep",
        "deploy_type": "multi_node",
        "vllm_args": ["--enable-expert-parallel"],
        "parallel_flag": "--data-parallel-size",
    },
    "multi_node_tp": {"name": "multi_node_tp", "deploy_type": "multi_node", "vllm_args": []},
    "pd_cluster": {
        "name": "pd_cluster",
        "deploy_type": "pd_cluster",
        "prefill": {"vllm_args": ["--port", "8001"], "env": {"NCCL_CUMEM_ENABLE": "1", "A": "p"}},
        "decode": {"vllm_args": ["--port", "8002"], "env": {"B": "d"}},
    },
    "single_node_tep": {
        "name": "single_node_tep",
        "deploy_type": "single_node",
        "vllm_args": ["--enable-expert-parallel"],
    },
    "single_node_tp": {"name": "single_node_tp", "deploy_type": "single_node", "vllm_args": []},
    "kv_store_distributed_mooncake": {
        "name": "kv_store_distributed_mooncake",
        "deploy_type": "kv_store_lb",
        "default_instances": 1,
        "vllm": {
            "vllm_args": ["--kv-transfer-config", '{"kv_connector":"MooncakeStoreConnector"}'],
            "env": {"MOONCAKE_CONFIG_PATH": "$MOONCAKE_CONFIG_PATH", "PYTHONHASHSEED": 0},
        },
    },
}
CATALOG = RenderInputs({"hardware_profiles": PROFILES}, PROFILES, STRATEGIES)


def recipe(**extra: Any) -> dict[str, Any]:
    base = {
        "meta": {"title": "T", "provider": "P", "tasks": ["text"]},
        "model": {"model_id": "org/model", "base_args": ["--trust-remote-code"]},
        "features": {},
        "variants": {"default": {"precision": "bf16", "vram_minimum_gb": 60}},
        "compatible_strategies": ["single_node_tp", "multi_node_tp"],
    }
    base.update(extra)
    return base


# ------------------------------------------------------------------ dedupe and formatting


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--a", "1", "--b", "--a", "2"], ["--b", "--a", "2"]),
        (["--offset", "-1"], ["--offset", "-1"]),
        (["--a", "-1", "--b", "-1"], ["--a", "--b", "-1"]),
        (["--x=1", "--x", "2", "--x=3"], ["--x=1", "--x", "2", "--x=3"]),
        (["--foo_bar", "1", "--foo-bar", "2"], ["--foo_bar", "1", "--foo-bar", "2"]),
        (["--enable-x", "pos", "--enable-x"], ["--enable-x"]),
        (["pos", "pos", "--f"], ["pos", "pos", "--f"]),
        (["--max-num-seqs", 0, "--empty", "", "--z"], ["--max-num-seqs", "--empty", "--z"]),
    ],
)
def test_dedupe_keeps_the_last_occurrence(args: list[Any], expected: list[Any]) -> None:
    assert dedupe_tokens(args) == expected


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("plain-1.0/x:y@z,w+%=", "plain-1.0/x:y@z,w+%="),
        ("$HOME", "$HOME"),
        ("$HEAD_IP", "$HEAD_IP"),
        ("$lower", "'$lower'"),
        ("${HOME}", "'${HOME}'"),
        ("~/p", "'~/p'"),
        ("a*b", "'a*b'"),
        ("x y", "'x y'"),
        ("it's", "'it'\\''s'"),
        ('{"a":"b"}', '\'{"a":"b"}\''),
        ("", ""),
        (5, 5),
    ],
)
def test_shell_quote(value: Any, quoted: Any) -> None:
    assert shell_quote(value) == quoted


def test_format_command_pairs_flags_with_values() -> None:
    assert format_command("m", []) == "vllm serve m"
    assert (
        format_command("m", ["--a", "x y", "--b", "pos"])
        == "vllm serve m \\\n  --a 'x y' \\\n  --b pos"
    )
    with pytest.raises(RenderError):
        format_command("m", ["--max-model-len", 4096])


# ------------------------------------------------------------------ hardware choice


def test_default_hardware_prefers_author_then_blackwell_then_h200() -> None:
    r = recipe()
    assert pick_default_hardware(PROFILES, r["variants"]["default"], r) == "h200"
    r["meta"]["default_hardware"] = "b200"
    assert pick_default_hardware(PROFILES, r["variants"]["default"], r) == "b200"
    nvfp4 = {"precision": "nvfp4"}
    r["meta"]["default_hardware"] = "station"  # restricted and undeclared: falls through
    assert pick_default_hardware(PROFILES, nvfp4, r) == "b200"
    r["meta"]["hardware"] = {"station": "verified"}
    assert pick_default_hardware(PROFILES, nvfp4, r) == "station"


def test_default_hardware_fallback_sorts_by_brand_then_id() -> None:
    r = recipe(meta={"title": "T", "hardware": {"h200": "unsupported"}})
    assert pick_default_hardware(PROFILES, {}, r) == "b200"
    assert pick_default_hardware(PROFILES, {"supported_hardware": ["mi300x"]}, r) == "mi300x"
    assert pick_default_hardware(PROFILES, {"supported_hardware": ["nothing"]}, r) == "h200"


def test_hardware_list_starts_with_default_and_hides_undeclared_restricted() -> None:
    r = recipe(meta={"title": "T", "default_hardware": "b200"})
    assert variant_hardware(CATALOG, r, r["variants"]["default"]) == (
        "b200",
        ["b200", "h100", "h200", "gb200", "mi300x"],
    )


def test_fitting_variant_substitutes_the_largest_that_fits() -> None:
    r = recipe(
        variants={
            "default": {"vram_minimum_gb": 200},
            "fp8": {"vram_minimum_gb": 90},
            "int4": {"vram_minimum_gb": 40},
        }
    )
    assert pick_fitting_variant(r, PROFILES["station"], "station") == "fp8"


# ------------------------------------------------------------------ strategy choice


def test_effective_compatible_appends_supported_grants() -> None:
    r = recipe(
        strategy_hardware={
            "single_node_tep": {"b200": "supported"},
            "pd_cluster": {"h100": "unsupported"},
        }
    )
    assert effective_compatible(r) == ["single_node_tp", "multi_node_tp", "single_node_tep"]


def test_recommend_strategy_rules() -> None:
    r = recipe(
        compatible_strategies=["single_node_tep", "multi_node_tep", "multi_node_dep"],
        default_strategy="single_node_tep",
    )
    assert recommend_strategy(r, 1) == "single_node_tep"
    assert recommend_strategy(r, 2) == "multi_node_tep"
    r["compatible_strategies"] = ["single_node_tep", "multi_node_dep", "multi_node_tp"]
    assert recommend_strategy(r, 2) == "multi_node_tp"
    assert recommend_strategy(recipe(compatible_strategies=[]), 1) == "single_node_tp"


def test_min_gpus_and_nodes() -> None:
    r = recipe(
        strategy_min_gpus={
            "multi_node_tp": 16,
            "h100": 48,
            "gb200": {"multi_node_tp": 12},
            "dep": 8,
        }
    )
    assert min_gpus(r, "multi_node_tp", "h200") == 16
    assert nodes_for_strategy(r, "multi_node_tp", 8, "h100") == 6
    assert nodes_for_strategy(r, "multi_node_tp", 4, "gb200") == 4
    assert min_gpus(r, "dep", None) == 8 and min_gpus(r, "tep", None) == 0


def test_pd_pool_modes_and_nodes() -> None:
    r = recipe(compatible_strategies=["single_node_tp", "multi_node_dep", "pd_cluster"])
    assert pd_pool_modes(r) == ["tp", "dep"]
    r["strategy_overrides"] = {"pd_cluster": {"pool_modes": ["dep"]}}
    assert pd_pool_modes(r) == ["dep"]
    variant = {"vram_minimum_gb": 1000}
    assert pick_pd_nodes(PROFILES["h100"], variant, r, STRATEGIES, "h100") == {
        "prefill": 2,
        "decode": 2,
    }
    assert pick_pd_nodes(PROFILES["h100"], {"vram_minimum_gb": 3000}, r, STRATEGIES, "h100") == SKIP
    assert pick_pd_nodes(PROFILES["h100"], {}, r, STRATEGIES, "h100") is None


def test_variant_that_does_not_fit_is_recommended_multi_node() -> None:
    r = recipe(variants={"default": {"vram_minimum_gb": 1000}})
    built = build_variant_rendering(CATALOG, r, "default", "h100", Problems())
    assert built is not None
    assert (built.recommended["strategy"], built.recommended["node_count"]) == ("multi_node_tp", 2)
    assert built.recommended["worker_command"].count("--headless") == 1
    assert set(built.alternatives) == {"single_node_tp", "kv_store_distributed_mooncake"}
    kv = built.alternatives["kv_store_distributed_mooncake"]
    assert (kv["serving_strategy"], kv["node_count"], kv["router"]) == ("multi_node_tp", 2, None)


# ------------------------------------------------------------------ layers


def test_strategy_generation_override_replaces_recipe_and_variant_layers() -> None:
    r = recipe(
        hardware_overrides={
            "hopper": {"extra_args": ["--recipe-hopper"]},
            "nvidia": {"extra_args": ["--nv"]},
        },
        variants={
            "default": {
                "vram_minimum_gb": 60,
                "extra_args": ["--variant"],
                "hardware_overrides": {
                    "hopper": {"extra_args": ["--variant-hopper"]},
                    "h100": {"extra_args": ["--exact"]},
                },
            }
        },
        strategy_overrides={
            "multi_node_tp": {"hardware_overrides": {"hopper": {"extra_args": ["--so-hopper"]}}}
        },
    )
    single = render_command(CATALOG, r, Combination("default", "single_node_tp", "h100"))
    assert single["argv"][3:] == [
        "--trust-remote-code",
        "--variant",
        "--exact",
        "--tensor-parallel-size",
        "1",
        "--recipe-hopper",
        "--variant-hopper",
    ]
    multi = render_command(
        CATALOG, r, Combination("default", "multi_node_tp", "h100", node_count=3)
    )
    assert multi["head_argv"][-1] == "--so-hopper" and "--recipe-hopper" not in multi["head_argv"]
    assert [w[w.index("--node-rank") + 1] for w in multi["worker_argvs"]] == ["1", "2"]
    blackwell = render_command(CATALOG, r, Combination("default", "single_node_tp", "b200"))
    assert blackwell["argv"][-1] == "--nv"  # nvidia fallback when no generation key


def test_empty_generation_override_suppresses_the_nvidia_fallback() -> None:
    r = recipe(hardware_overrides={"hopper": {}, "nvidia": {"extra_args": ["--nv"]}})
    assert (
        "--nv"
        not in render_command(CATALOG, r, Combination("default", "single_node_tp", "h100"))["argv"]
    )


def test_multi_node_dep_start_rank_uses_the_recipe_local_size() -> None:
    r = recipe(
        compatible_strategies=["multi_node_dep"],
        strategy_overrides={"multi_node_dep": {"extra_args": ["--data-parallel-size-local", "2"]}},
    )
    doc = render_command(CATALOG, r, Combination("default", "multi_node_dep", "h200", node_count=2))
    worker = doc["worker_argv"]
    assert worker[worker.index("--data-parallel-start-rank") + 1] == "2"
    assert worker[worker.index("--data-parallel-size") + 1] == "16"


def test_pd_env_pins_devices_and_scrubs_nvl4_keys_off_gb200() -> None:
    r = recipe(compatible_strategies=["pd_cluster"])
    doc = render_command(CATALOG, r, Combination("default", "pd_cluster", "h200", pd_nodes=None))
    assert doc["prefill"]["env"] == {"A": "p", "CUDA_VISIBLE_DEVICES": "0,1,2,3"}
    assert doc["decode"]["env"] == {"B": "d", "CUDA_VISIBLE_DEVICES": "4,5,6,7"}
    assert doc["prefill"]["argv"][-2:] == ["--tensor-parallel-size", "4"]
    gb = render_command(
        CATALOG,
        r,
        Combination("default", "pd_cluster", "gb200", pd_nodes={"prefill": 2, "decode": 1}),
    )
    assert gb["prefill"]["env"]["NCCL_CUMEM_ENABLE"] == "1"
    assert gb["prefill"]["env"]["NCCL_SOCKET_IFNAME"] == "$IFACE_NAME"
    assert "--nnodes" in gb["prefill"]["argv"] and "--nnodes" not in gb["decode"]["argv"]


def test_env_keeps_first_insertion_position_and_yaml_types() -> None:
    r = recipe(
        model={"model_id": "m", "base_env": {"A": 1, "B": None}},
        variants={"default": {"extra_env": {"C": True, "A": "x"}}},
    )
    doc = render_command(CATALOG, r, Combination("default", "single_node_tp", "h200"))
    assert doc["env"] == {"A": "x", "B": None, "C": True}
    assert "-e B=null" in doc["docker_command"] and "-e C=true" in doc["docker_command"]


# ------------------------------------------------------------------ features, install, docker


def test_default_features_drop_opt_ins_unless_forced() -> None:
    r = recipe(
        features={"a": {"args": ["--a"]}, "b": {"args": ["--b"]}, "c": {"args": ["--c"]}},
        opt_in_features=["b"],
        hardware_opt_in_features={"h100": ["c"]},
        variants={"default": {"default_modes": {"b": "x"}}},
    )
    assert default_features(r, "h200", "default") == ["a", "b", "c"]
    r["variants"]["default"] = {}
    assert default_features(r, "h100", "default") == ["a"]


def test_feature_mode_problems() -> None:
    r = recipe(
        features={"spec": {"args": [], "modes": {"m": {"variants": ["nope"]}}, "default_mode": "z"}}
    )
    messages = [m for _, m in feature_mode_problems(r)]
    assert "features.spec cannot declare both args and modes" in messages
    assert "features.spec.default_mode references unknown mode z" in messages
    assert "features.spec.modes.m.args must be an array" in messages
    assert "features.spec.modes.m.variants references unknown variant nope" in messages
    assert "features.spec has no mode available for variant default" in messages


def test_install_block_order_and_switches() -> None:
    r = recipe(
        model={
            "model_id": "m",
            "install": {"docker": {"note": "n"}, "pip": None},
            "docker_image": {"nvidia": {"cu129": "img:129"}},
        },
        dependencies=[{"command": "x"}],
    )
    assert synthesize_install(r) == {
        "pip": {
            "command": "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"
        },
        "docker": {"command": "docker pull img:129", "note": "n"},
        "extras": [{"command": "x"}],
    }
    r["model"]["install"] = {"pip": False, "docker": False}
    r["dependencies"] = []
    assert synthesize_install(r) is None


def test_docker_image_precedence() -> None:
    r = recipe(
        model={"model_id": "m", "docker_image": {"nvidia": {"cu130": "nv:130"}, "amd": "rocm:x"}}
    )
    variant = {
        "docker_image": {"amd": "rocm:variant"},
        "hardware_overrides": {"b200": {"docker_image": "exact"}},
    }
    assert docker_meta(r, variant, PROFILES["h100"], "h100").image == "nv:130"
    assert docker_meta(r, variant, PROFILES["mi300x"], "mi300x").image == "rocm:variant"
    assert docker_meta(r, variant, PROFILES["b200"], "b200").image == "exact"
    tpu = {"brand": "Google", "generation": "tpu"}
    assert docker_meta(r, {}, tpu, "tpu").gpu_flags.startswith("--privileged --network host")
    cpu_nightly = recipe(model={"model_id": "m", "nightly_required": True})
    assert (
        docker_meta(cpu_nightly, {}, {"brand": "Intel", "generation": "cpu"}, "xeon").image
        is UNDEFINED
    )


def _reference_dedupe(args: list[Any]) -> list[Any]:
    """The spec's three steps, with no shortcut: tokenize into units, keep last flags, emit."""
    tokens = [t for t in args if t not in ("", 0, None, False)]
    units: list[tuple[str, Any]] = []
    i = 0
    while i < len(tokens):
        cur = tokens[i]
        if isinstance(cur, str) and cur.startswith("-"):
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if i + 1 < len(tokens) and not (isinstance(nxt, str) and nxt.startswith("-")):
                units.append(("flag", (cur, nxt)))
                i += 2
                continue
            units.append(("flag", (cur,)))
        else:
            units.append(("pos", (cur,)))
        i += 1
    last = {u[1][0]: index for index, u in enumerate(units) if u[0] == "flag"}
    out: list[Any] = []
    for index, (kind, parts) in enumerate(units):
        if kind == "pos" or last[parts[0]] == index:
            out.extend(parts)
    return out


@given(
    st.lists(
        st.sampled_from(["--a", "--b", "--c=1", "-1", "x", "y", "", 0, 7, "--a.b"]), max_size=12
    )
)
def test_dedupe_matches_the_reference_algorithm(args: list[Any]) -> None:
    assert dedupe_tokens(args) == _reference_dedupe(args)
