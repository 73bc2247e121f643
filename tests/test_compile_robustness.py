"""Whatever the recipe data holds, compiling yields documents or diagnostics, never a traceback."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipelint.compile.compiler import Compiler, unsafe_path_reason
from recipelint.read.load import Document
from recipelint.read.tree import RecipeTree

PROFILES = {
    "h200": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 1128},
    "gb200": {"brand": "NVIDIA", "generation": ["blackwell"], "gpu_count": 4, "vram_gb": 768},
    "mi300x": {"brand": "AMD", "generation": "amd", "gpu_count": 8, "vram_gb": 1536},
    "box": {
        "brand": "NVIDIA",
        "generation": "blackwell",
        "gpu_count": 1,
        "vram_gb": 32,
        "scalable": False,
        "restricted": True,
    },
    "xeon": {"brand": "Intel", "generation": "cpu", "gpu_count": 1, "restricted": True},
}
STRATEGIES = [
    {"name": "single_node_tp", "deploy_type": "single_node", "vllm_args": []},
    {
        "name": "multi_node_dep",
        "deploy_type": "multi_node",
        "parallel_flag": "--data-parallel-size",
    },
    {"name": "multi_node_tp_pp", "deploy_type": "multi_node", "parallelism": "tp_pp"},
    {
        "name": "pd_cluster",
        "deploy_type": "pd_cluster",
        "prefill": {"vllm_args": ["--port", "8001"]},
        "decode": {"env": {"A": "1"}},
    },
]
KV = [
    {
        "name": "kv_c",
        "deploy_type": "kv_store_lb",
        "vllm": {"vllm_args": ["--kv", "x"], "env": {"X_CONFIG_PATH": "/c"}},
        "mooncake_store_config": {"command": "store"},
    }
]
BASE: dict[str, Any] = {
    "meta": {
        "title": "T",
        "provider": "P",
        "tasks": ["text"],
        "hardware": {"box": "verified", "xeon": "verified"},
    },
    "model": {
        "model_id": "org/m",
        "base_args": ["--a", "1"],
        "base_env": {"E": "1"},
        "docker_image": {"nvidia": {"cu130": "img"}},
    },
    "features": {
        "f": {"args": ["--f"]},
        "g": {
            "modes": {
                "m1": {"args": ["--g", "1"]},
                "m2": {"args": ["--g", "2"], "variants": ["fp8"]},
            }
        },
    },
    "opt_in_features": ["f"],
    "variants": {
        "default": {"precision": "bf16", "vram_minimum_gb": 100, "tp": {"hopper": 2}},
        "fp8": {
            "model_id": "org/m-fp8",
            "precision": "fp8",
            "vram_minimum_gb": 20,
            "default_modes": {"g": "m2"},
        },
    },
    "compatible_strategies": ["single_node_tp", "multi_node_dep", "multi_node_tp_pp", "pd_cluster"],
    "strategy_overrides": {"pd_cluster": {"prefill": {"parallelism": "dep", "tp": 2}}},
    "strategy_min_gpus": {"multi_node_tp_pp": 16},
    "hardware_overrides": {"hopper": {"extra_args": ["--h"]}},
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**20),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.sampled_from(["", "/", "..", "a/b", "omni", "unsupported", "dep"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


WORLD = {"recipe": BASE, "profiles": PROFILES, "strategies": STRATEGIES, "kv": KV}
ALL_PATHS = [p for p in _paths(WORLD) if len(p) > 1]


def _replace(data: dict, path: tuple, value: Any) -> None:
    target = data
    for step in path[:-1]:
        target = target[step]
    # Loaded YAML has string keys only: an index step into what an earlier edit made a mapping is skipped.
    if isinstance(target, dict) and not isinstance(path[-1], str):
        raise TypeError("an index into a mapping")
    target[path[-1]] = value


def _doc(rel: str, data: Any, kind: str) -> Document:
    return Document(
        path=Path("/virtual") / rel, rel=rel, kind=kind, text="", data=data, usable=True
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(ALL_PATHS), values), min_size=1, max_size=3))
def test_mutated_recipes_compile_to_documents_or_diagnostics(
    edits: list[tuple[tuple, Any]],
) -> None:
    world = copy.deepcopy(WORLD)
    for path, value in edits:
        try:
            _replace(world, path, value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed the parent
    tree = RecipeTree(
        root=Path("/virtual"),
        taxonomy=_doc("taxonomy.yaml", {"hardware_profiles": world["profiles"]}, "taxonomy"),
        strategies=[
            _doc(f"strategies/s{i}.yaml", s, "strategy") for i, s in enumerate(world["strategies"])
        ],
        kv_stores=[_doc(f"kv_store/k{i}.yaml", s, "kv_store") for i, s in enumerate(world["kv"])],
        recipes=[_doc("models/org/m.yaml", world["recipe"], "recipe")],
    )
    result = Compiler(tree).run()
    for path, data in result.files.items():
        assert unsafe_path_reason(path) is None
        assert isinstance(data, bytes)


def test_absurd_gpu_floors_do_not_render_billions_of_nodes() -> None:
    recipe = copy.deepcopy(BASE)
    recipe["strategy_min_gpus"] = {"dep": 10**6}
    recipe["variants"]["default"]["vram_minimum_gb"] = 2000
    tree = RecipeTree(
        root=Path("/virtual"),
        taxonomy=_doc("taxonomy.yaml", {"hardware_profiles": PROFILES}, "taxonomy"),
        strategies=[_doc(f"strategies/{s['name']}.yaml", s, "strategy") for s in STRATEGIES],
        kv_stores=[_doc(f"kv_store/{s['name']}.yaml", s, "kv_store") for s in KV],
        recipes=[_doc("models/org/m.yaml", recipe, "recipe")],
    )
    result = Compiler(tree).run()
    assert any(
        d.code == "RL704" and "beyond any real deployment" in d.message for d in result.diagnostics
    )


def test_absurd_gpu_counts_do_not_list_billions_of_devices() -> None:
    profiles = copy.deepcopy(PROFILES)
    for profile in profiles.values():
        profile["gpu_count"] = 2**60
        profile["vram_gb"] = 2**70
    tree = RecipeTree(
        root=Path("/virtual"),
        taxonomy=_doc("taxonomy.yaml", {"hardware_profiles": profiles}, "taxonomy"),
        strategies=[_doc(f"strategies/{s['name']}.yaml", s, "strategy") for s in STRATEGIES],
        kv_stores=[_doc(f"kv_store/{s['name']}.yaml", s, "kv_store") for s in KV],
        recipes=[_doc("models/org/m.yaml", copy.deepcopy(BASE), "recipe")],
    )
    result = Compiler(tree).run()  # the co-located PD pools pin half the GPUs each
    assert any(
        d.code == "RL704" and "beyond any real deployment" in d.message for d in result.diagnostics
    )
