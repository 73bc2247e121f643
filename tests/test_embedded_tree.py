"""The embedded recipe tree (recipes/) loads cleanly, is self-consistent, and compiles to the seed.

The seed (seeds/000_*.txt of the reference data, tests/conftest.py's SHARED) is the upstream compiler's JSON for the Nemotron 3.5
Lightning recipe, captured with runs of white space inside strings collapsed; the same
collapse is applied to our output before comparing.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from recipelint.read.tree import RecipeTree, load_tree, recipe_hf_id

SEED_HF_ID = "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16"
SEED_SOURCE_OPTIONS = [
    "--source-name",
    "vllm",
    "--source-repo",
    "vllm-project/vllm",
    "--source-ref",
    "main",
    "--source-sha",
    "564ac0de1b228568cafcbfbe8ccaccc82d6023eb",
]
SERVING_STRATEGIES = {
    "single_node_tp",
    "single_node_tep",
    "single_node_dep",
    "multi_node_tp",
    "multi_node_tep",
    "multi_node_dep",
    "multi_node_tp_pp",
    "multi_node_tp_dp",
    "pd_cluster",
}
KV_STORES = {"kv_store_centralized_mooncake", "kv_store_distributed_mooncake"}


@pytest.fixture(scope="module")
def tree(embedded_tree: Path) -> RecipeTree:
    return load_tree(embedded_tree)


def test_tree_loads_without_problems(tree: RecipeTree) -> None:
    problems = list(tree.all_problems())
    assert problems == []
    assert tree.taxonomy is not None and tree.platforms is not None
    assert all(doc.usable and isinstance(doc.data, dict) for doc in tree.documents())


def test_recipelint_check_finds_no_errors_in_the_embedded_tree(
    embedded_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Warnings are allowed: the seed recipe's content is fixed by the seed artifact, and it
    # uses flags that later vLLM releases deprecate.
    from recipelint.cli import main

    exit_code = main(["check", "--format", "json", str(embedded_tree)])
    findings = json.loads(capsys.readouterr().out)
    errors = [finding for finding in findings if finding["severity"] == "error"]
    assert errors == []
    assert exit_code == 0


def test_strategy_and_kv_store_files_are_named_after_their_ids(tree: RecipeTree) -> None:
    for doc in [*tree.strategies, *tree.kv_stores]:
        assert doc.data["name"] == Path(doc.rel).stem, doc.rel
    assert {doc.data["name"] for doc in tree.strategies} == SERVING_STRATEGIES
    assert {doc.data["name"] for doc in tree.kv_stores} == KV_STORES
    assert {doc.data["deploy_type"] for doc in tree.kv_stores} == {"kv_store_lb"}


def test_every_recipe_hf_id_matches_its_path(tree: RecipeTree) -> None:
    assert len(tree.recipes) >= 5
    for doc in tree.recipes:
        parts = doc.rel.split("/")
        assert len(parts) == 3, f"{doc.rel}: recipes live at models/<hf_org>/<hf_repo>.yaml"
        assert doc.data["model"]["model_id"] == recipe_hf_id(doc.rel), doc.rel


def test_recipes_name_only_known_hardware_and_strategies(tree: RecipeTree) -> None:
    profiles = tree.taxonomy.data["hardware_profiles"]
    for doc in tree.recipes:
        recipe = doc.data
        for hw in recipe["meta"].get("hardware", {}):
            assert hw in profiles, f"{doc.rel}: meta.hardware names unknown profile {hw}"
        for strategy in recipe.get("compatible_strategies", []):
            assert strategy in SERVING_STRATEGIES, f"{doc.rel}: unknown strategy {strategy}"


def test_recipes_cover_every_compile_path(tree: RecipeTree) -> None:
    recipes = [doc.data for doc in tree.recipes]
    tasks = [set(r["meta"]["tasks"]) for r in recipes]
    assert any("omni" in t for t in tasks)
    assert any("multimodal" in t for t in tasks)
    assert any(
        r["model"]["architecture"] == "dense" and "omni" not in r["meta"]["tasks"] for r in recipes
    )
    assert any(
        r["model"]["architecture"] == "moe" and "pd_cluster" in r.get("compatible_strategies", [])
        for r in recipes
    )
    assert SEED_HF_ID in {recipe_hf_id(doc.rel) for doc in tree.recipes}


def test_hardware_profiles_carry_the_documented_fields(tree: RecipeTree) -> None:
    required = (
        "brand",
        "generation",
        "compute_arch",
        "display_name",
        "description",
        "gpu_count",
        "vram_gb",
    )
    for hw, profile in tree.taxonomy.data["hardware_profiles"].items():
        missing = [key for key in required if key not in profile]
        assert not missing, f"{hw} lacks {missing}"


def _collapse_whitespace(value: Any) -> Any:
    if isinstance(value, str):
        return re.sub(r"\s+", " ", value)
    if isinstance(value, list):
        return [_collapse_whitespace(item) for item in value]
    if isinstance(value, dict):
        return {key: _collapse_whitespace(item) for key, item in value.items()}
    return value


def _first_difference(ours: Any, seed: Any, pointer: str = "") -> str | None:
    """JSON pointer and values of the first difference, key order included."""
    if isinstance(ours, dict) and isinstance(seed, dict):
        if list(ours) != list(seed):
            return f"{pointer or '/'}: keys {list(ours)} != {list(seed)}"
        for key in ours:
            found = _first_difference(ours[key], seed[key], f"{pointer}/{key}")
            if found:
                return found
        return None
    if isinstance(ours, list) and isinstance(seed, list) and len(ours) == len(seed):
        for index, (a, b) in enumerate(zip(ours, seed, strict=False)):
            found = _first_difference(a, b, f"{pointer}/{index}")
            if found:
                return found
        return None
    if ours != seed or type(ours) is not type(seed):
        return f"{pointer or '/'}: {ours!r} != {seed!r}"
    return None


def _compiler_available() -> bool:
    return importlib.util.find_spec("recipelint.compile.compiler") is not None


@pytest.fixture(scope="module")
def compiled(embedded_tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not _compiler_available():
        pytest.skip("recipelint.compile.compiler is not importable yet")
    from recipelint.cli import main

    out = tmp_path_factory.mktemp("embedded") / "out"
    exit_code = main(["compile", str(embedded_tree), "-o", str(out), *SEED_SOURCE_OPTIONS])
    assert exit_code == 0
    return out


def test_seed_recipe_compiles_to_the_seed_artifact(
    compiled: Path, shared_dir: Path, embedded_tree: Path
) -> None:
    seeds = sorted((shared_dir / "seeds").glob("000_*.txt"))
    if not seeds:
        pytest.skip(f"the seed artifact 000_*.txt is absent from {shared_dir / 'seeds'}")
    seed = json.loads(seeds[0].read_text(encoding="utf-8"))
    ours = json.loads((compiled / f"{SEED_HF_ID}.json").read_text(encoding="utf-8"))
    if not (embedded_tree.parent / ".git").exists():
        # The source block's path is relative to the git checkout; without one it is omitted.
        seed.pop("source", None)
        ours.pop("source", None)
    difference = _first_difference(_collapse_whitespace(ours), _collapse_whitespace(seed))
    assert difference is None, difference


def test_whole_tree_compiles_every_deployment_kind(compiled: Path, tree: RecipeTree) -> None:
    written = {path.relative_to(compiled).as_posix() for path in compiled.rglob("*.json")}
    assert any(path.endswith("/strategies/pd_cluster.json") for path in written)
    for kv_store in KV_STORES:
        assert any(path.endswith(f"/strategies/{kv_store}.json") for path in written)
    for doc in tree.recipes:
        hf_id = recipe_hf_id(doc.rel)
        document = json.loads((compiled / f"{hf_id}.json").read_text(encoding="utf-8"))
        if "omni" in doc.data["meta"]["tasks"]:
            assert "recommended_command" not in document, hf_id
        else:
            assert document["recommended_command"]["by_hardware"], hf_id
