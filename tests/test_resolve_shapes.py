"""A shape's walk judges a combination alike whether it lays the document out or not.

Each deploy type (recipelint.resolve.shapes) is one walk; the LayOut walker builds the
command lines and the document, the Judge walker only works the commands out and judges
them (the plan uses it when only findings are wanted). Every combination the plan renders,
of generated recipes and of the corpora's recipes (the edge tree's throw in each shape's
steps; the generated ones seldom throw), is rendered both ways, and the two must raise the
same RenderError or report the same problems and the same missing image.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given
from test_layers_kv import MOONCAKE, OFFLOAD, PD, PROFILES, SINGLE, catalog, recipe
from test_properties_recipes import RENDER_PROFILE, base_inputs, recipes, to_yaml, with_recipe

from recipelint.compile.compilation import Compiler
from recipelint.compile.compiler import OutputMap
from recipelint.read.tree import load_tree
from recipelint.resolve.command import (
    Combination,
    Placement,
    Rendered,
    RenderInputs,
    placed_rendering,
    render_command,
)
from recipelint.resolve.formatting import RenderError
from recipelint.resolve.plan import Problems, render_variant

INPUTS = base_inputs()


def _outcome(placement: Placement, combo: Combination, documents: bool) -> Any:
    """What a rendering judges: its RenderError's message, or its problems and missing image."""
    try:
        rendered = placed_rendering(placement, combo, documents)
    except RenderError as error:
        return ("raises", str(error))
    return ("renders", rendered.problems, rendered.image_missing)


def _both_ways(seen: list[Combination]) -> Any:
    def rendering(placement: Placement, combo: Combination, documents: bool) -> Rendered:
        seen.append(combo)
        assert _outcome(placement, combo, True) == _outcome(placement, combo, False), combo
        return placed_rendering(placement, combo, documents)

    return rendering


def _outcomes_agree(inputs: Any, recipe: dict[str, Any]) -> list[Combination]:
    """Every combination the plan renders of the recipe, each judged both ways alike."""
    seen: list[Combination] = []
    with patch("recipelint.resolve.plan.placed_rendering", _both_ways(seen)):
        for variant_key in recipe["variants"]:
            render_variant(inputs, recipe, variant_key, Problems(), False, {})
    return seen


@RENDER_PROFILE
@given(recipes())
def test_renderer_and_checker_judge_every_combination_alike(generated: dict[str, Any]) -> None:
    _tree, doc = with_recipe(to_yaml(generated))
    recipe = doc.data
    _outcomes_agree(INPUTS, recipe)


@pytest.mark.parametrize("corpus", ["upstream", "edge"])
def test_renderer_and_checker_judge_the_corpora_alike(shared_dir: Path, corpus: str) -> None:
    tree = load_tree(shared_dir / "corpus" / corpus / "tree")
    found = Compiler[OutputMap](tree).prepare()
    assert found is not None
    seen = [
        combo
        for doc in tree.recipes
        if doc.usable and isinstance(doc.data.get("variants"), dict)
        for combo in _outcomes_agree(found.inputs, doc.data)
    ]
    assert seen


# --- the kv_store shape: what a Mooncake instance's document holds ----------------------------

KV_INSTALL = {"nvidia": "pip install kv-cuda", "amd": "pip install kv-rocm"}
KV = dict(MOONCAKE, vllm=dict(MOONCAKE["vllm"], install=KV_INSTALL))
MULTI = {"name": "multi_node_tp", "deploy_type": "multi_node", "vllm_args": ["--multi"]}
KV_PROFILES = dict(
    PROFILES, mi300x={"brand": "AMD", "generation": "amd", "gpu_count": 8, "vram_gb": 1536}
)
KV_INPUTS = RenderInputs(
    {"hardware_profiles": KV_PROFILES},
    KV_PROFILES,
    {"pd_cluster": PD, "single_node_tp": SINGLE, "multi_node_tp": MULTI, "kv_mooncake": KV},
)


def _kv_rendering(strategy: str, hw_id: str, nodes: int = 1) -> dict[str, Any]:
    served = recipe(compatible_strategies=["single_node_tp", "multi_node_tp"])
    combo = Combination("default", strategy, hw_id, nodes, kv_offload="kv_mooncake")
    return render_command(KV_INPUTS, served, combo)


def test_a_kv_store_installs_what_it_names_for_the_hardware_s_brand() -> None:
    assert _kv_rendering("single_node_tp", "h200")["vllm_install"] == "pip install kv-cuda"
    assert _kv_rendering("single_node_tp", "mi300x")["vllm_install"] == "pip install kv-rocm"


def test_a_multi_node_kv_instance_names_its_first_worker_s_command_and_argv() -> None:
    found = _kv_rendering("multi_node_tp", "h200", 2)
    assert isinstance(found["vllm_worker_command"], str)
    assert found["vllm_worker_command"] == found["vllm_worker_commands"][0]
    assert "--node-rank 1" in found["vllm_worker_command"]
    assert found["vllm_worker_argv"] == found["vllm_worker_argvs"][0]
    assert found["vllm_worker_argv"][:2] == ["vllm", "serve"]


def test_a_kv_store_of_several_instances_routes_to_port_8000_unless_its_vllm_names_one() -> None:
    served = recipe(compatible_strategies=["single_node_tp"])
    for kv, port in (
        (dict(KV, default_instances=2), "8000"),
        (dict(KV, default_instances=2, vllm=dict(KV["vllm"], port=9100)), "9100"),
    ):
        inputs = RenderInputs(
            {"hardware_profiles": KV_PROFILES},
            KV_PROFILES,
            {"single_node_tp": SINGLE, "kv_mooncake": kv},
        )
        combo = Combination("default", "single_node_tp", "h200", kv_offload="kv_mooncake")
        router = render_command(inputs, served, combo)["router"]["command"]
        assert f"--backend-url http://$VLLM_INSTANCE_1:{port} \\" in router
        assert f"--backend-url http://$VLLM_INSTANCE_2:{port} \\" in router


# --- companions: a feature's or a kv offload option's side command ----------------------------


def test_an_enabled_feature_with_a_companion_command_lists_it() -> None:
    with_companion = recipe(
        features={"spec": {"args": ["--feature"], "companion": {"command": "spec-server --go  \n"}}}
    )
    combo = Combination("default", "single_node_tp", "h200", features=("spec",))
    assert render_command(catalog(), with_companion, combo)["companions"] == [
        {"feature": "spec", "label": "spec", "description": "", "command": "spec-server --go"}
    ]
    assert "companions" not in render_command(catalog(), recipe(), combo)


def test_a_kv_offload_option_with_a_companion_command_lists_it() -> None:
    option = dict(
        OFFLOAD,
        install="pip install lmcache",
        companion={"command": "lmcache up\n", "label": "LMCache", "description": "Cache server."},
    )
    combo = Combination("default", "single_node_tp", "h200", kv_offload="native")
    doc = render_command(catalog(offload={"native": option}), recipe(), combo)
    assert doc["companions"] == [
        {
            "feature": "kv_offload:native",
            "label": "LMCache",
            "description": "Cache server. Requires: pip install lmcache",
            "command": "lmcache up",
        }
    ]


# --- multi node and PD cluster: what the documents name ----------------------------------------


def test_a_multi_node_rendering_names_its_first_worker_s_command() -> None:
    served = recipe(compatible_strategies=["multi_node_tp"])
    doc = render_command(KV_INPUTS, served, Combination("default", "multi_node_tp", "h200", 3))
    assert doc["worker_command"] == doc["worker_commands"][0]
    assert "--node-rank 1" in doc["worker_command"]
    assert doc["worker_argv"] == doc["worker_argvs"][0]


def test_a_pd_pool_s_gpus_are_half_a_shared_node_or_all_of_its_own_nodes() -> None:
    served = recipe(compatible_strategies=["pd_cluster", "single_node_tp"])
    shared = render_command(catalog(), served, Combination("default", "pd_cluster", "h200"))
    pools = Combination("default", "pd_cluster", "h200", pd_nodes={"prefill": 2, "decode": 1})
    own = render_command(catalog(), served, pools)
    pool = ("nodes", "parallelism", "poolGpus", "dpLocal", "dpSize")
    assert [shared[role][key] for role in ("prefill", "decode") for key in pool] == [
        0, "tp", 4, 0, 1,
        0, "tp", 4, 0, 1,
    ]  # fmt: skip
    assert [own[role][key] for role in ("prefill", "decode") for key in pool] == [
        2, "tp", 16, 0, 1,
        1, "tp", 8, 0, 1,
    ]  # fmt: skip
