"""resolve.placement: what a variant's renderings on one hardware share, seen in the compiled
documents (the single_node_tp size, the image, the kv instance count, spread and env runs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from treehelp import Fragment, build_tree, context_text

from recipelint.compile.compiler import compile_tree
from recipelint.resolve.formatting import RenderError
from recipelint.resolve.placement import spread

RECIPE = "models/acme/demo.yaml"


def _documents(root: Path, recipe: str, **context: str) -> dict[str, object]:
    """The compiled documents of a tree holding the recipe fragment (and context files replaced)."""
    build_tree(root, {RECIPE: Fragment(recipe), **context})
    files = compile_tree(root).files
    return {path: files.document(path) for path in files.paths()}


def _tp(document: object) -> str:
    assert isinstance(document, dict)
    argv = document["argv"]
    return str(argv[argv.index("--tensor-parallel-size") + 1])


def test_spread_gives_a_string_as_its_characters() -> None:
    assert spread(["--a", "1"]) == ["--a", "1"]
    assert spread("ab") == ["a", "b"]
    with pytest.raises(RenderError, match="is not iterable"):
        spread(7)


@pytest.mark.parametrize(
    ("vram", "tp"),
    [
        ("vram_minimum_gb: !delete", "8"),  # no size: every GPU of the node
        ("vram_minimum_gb: 100", "1"),  # fits one GPU of an h200 (141 GB)
        ("vram_minimum_gb: 200", "8"),  # does not: the whole node
    ],
)
def test_single_node_tp_fits_the_variant_to_one_gpu_or_the_node(
    tmp_path: Path, vram: str, tp: str
) -> None:
    recipe = f"variants:\n  default:\n    precision: bf16\n    {vram}\n"
    documents = _documents(tmp_path, recipe)
    assert _tp(documents["acme/demo/hw/h200.json"]) == tp


def test_without_the_nodes_memory_a_sized_variant_takes_every_gpu(tmp_path: Path) -> None:
    """No vram_gb: no per-GPU memory to fit into, so the size is the node's GPU count."""
    taxonomy = context_text("taxonomy.yaml").replace("    vram_gb: 1128\n", "", 1)
    recipe = "variants:\n  default:\n    precision: bf16\n    vram_minimum_gb: 0.5\n"
    documents = _documents(tmp_path, recipe, **{"taxonomy.yaml": taxonomy})
    assert _tp(documents["acme/demo/hw/h200.json"]) == "8"


def test_an_image_pinned_per_hardware_is_that_hardwares(tmp_path: Path) -> None:
    recipe = """\
variants:
  default:
    precision: bf16
    hardware_overrides:
      h100: {docker_image: "acme/serve:h100"}
      h200: {docker_image: "acme/serve:h200"}
"""
    documents = _documents(tmp_path, recipe)
    for hardware in ("h100", "h200"):
        document = documents[f"acme/demo/hw/{hardware}.json"]
        assert isinstance(document, dict)
        assert document["docker_image"] == f"acme/serve:{hardware}"


def test_a_kv_store_without_default_instances_runs_two(tmp_path: Path) -> None:
    kv = "kv_store/kv_store_centralized_mooncake.yaml"
    text = context_text(kv)
    assert "default_instances: 2\n" in text
    recipe = "variants:\n  default:\n    precision: bf16\n"
    documents = _documents(tmp_path, recipe, **{kv: text.replace("default_instances: 2\n", "")})
    document = documents["acme/demo/strategies/kv_store_centralized_mooncake.json"]
    assert isinstance(document, dict)
    assert document["instances"] == 2


def test_env_runs_equal_but_for_one_and_true_keep_their_own_text(tmp_path: Path) -> None:
    """Runs whose strings are equal share one mapping; 1 and true compare equal in Python but
    print differently, so mappings holding them are never shared."""
    recipe = """\
variants:
  default:
    precision: bf16
compatible_strategies: [single_node_tp, single_node_dep]
strategy_overrides:
  single_node_tp:
    env: {FLAG: 1}
  single_node_dep:
    env: {FLAG: true}
"""
    flags = {
        (document["strategy"], document["env"]["FLAG"], document["docker_command"].count("FLAG="))
        for path, document in _documents(tmp_path, recipe).items()
        if path.startswith("acme/demo/")
        and isinstance(document, dict)
        and "docker_command" in document
    }
    assert {(strategy, repr(flag), count) for strategy, flag, count in flags} == {
        ("single_node_tp", "1", 1),
        ("single_node_dep", "True", 1),
    }


def test_a_node_of_no_gpus_has_no_per_gpu_memory_to_fit_into(tmp_path: Path) -> None:
    """gpu_count 0: no per-GPU memory (not 1128 / 0), so the size is the GPU count, 0."""
    taxonomy = context_text("taxonomy.yaml").replace(
        "    gpu_count: 8\n    vram_gb: 1128\n", "    gpu_count: 0\n    vram_gb: 1128\n", 1
    )
    recipe = "variants:\n  default:\n    precision: bf16\n    vram_minimum_gb: 100\n"
    documents = _documents(tmp_path, recipe, **{"taxonomy.yaml": taxonomy})
    assert _tp(documents["acme/demo/hw/h200.json"]) == "0"
