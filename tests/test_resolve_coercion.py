"""A number written as text (or as a one-item list) where upstream compares or multiplies it.

Upstream's synthesis reads `vram_minimum_gb || 0`, a `strategy_min_gpus` floor and a kv
store's `default_instances` with JavaScript's `<=`, `*`, `/` and `Math.max`, which read
`"700"` and `[700]` as 700: the rendered commands are those of the number (the recipe's own
document, and a kv rendering's `instances`, still publish the value as written). The schema reports the quoted value; the
compile must not refuse it, as it did while Python compared a string with a number. Each
case was checked against upstream's own build of the same tree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from treehelp import Fragment, build_tree, context_text

from recipelint.compile.compiler import compile_tree
from recipelint.jsvalue import js_ge, js_gt, js_le, js_less_than, js_lt, js_times

RECIPE = "models/acme/demo.yaml"
CHANGED_KV = "kv_store_centralized_mooncake"
FOLDER = "acme/demo/"
# 700 GB: more than an h100 node holds (multi-node there), less than an h200 node.
BIG_VARIANT = """\
variants:
  default:
    precision: bf16
    vram_minimum_gb: {vram}
compatible_strategies: [single_node_tp, multi_node_tp]
strategy_min_gpus:
  multi_node_tp: {floor}
"""


def _rendered(root: Path, vram: str, floor: str, instances: str = "2") -> dict[str, object]:
    """Every document compiled under the recipe's folder (its renderings), by path."""
    kv = f"kv_store/{CHANGED_KV}.yaml"
    build_tree(
        root,
        {
            RECIPE: Fragment(BIG_VARIANT.format(vram=vram, floor=floor)),
            kv: context_text(kv).replace("default_instances: 2", f"default_instances: {instances}"),
        },
    )
    result = compile_tree(root)
    assert result.ok, [d.message for d in result.diagnostics]
    return {
        path: result.files.document(path)
        for path in sorted(result.files.paths())
        if path.startswith(FOLDER)
    }


@pytest.mark.parametrize(
    ("vram", "floor", "instances"),
    [
        ('"700"', "16", "2"),
        ("[700]", "16", "2"),
        ("700", '"16"', "2"),
        ("700", "[16]", "2"),
        ("700", "16", '"2"'),
        ("700", "16", "[2]"),
    ],
)
def test_a_number_written_as_text_renders_as_the_number(
    tmp_path: Path, vram: str, floor: str, instances: str
) -> None:
    written = _rendered(tmp_path / "number", "700", "16")
    assert written  # the recipe renders on some hardware
    as_text = _rendered(tmp_path / "text", vram, floor, instances)
    published = {
        json.dumps(doc.pop("instances"))
        for documents in (as_text, written)
        for path, doc in documents.items()
        if path.endswith(f"/{CHANGED_KV}.json") and isinstance(doc, dict)
    }
    assert published == {"2", json.dumps(json.loads(instances))}
    assert as_text == written


def test_the_floor_is_read(tmp_path: Path) -> None:
    """The cases above would pass unread: 64 GPUs take four times the nodes 16 take (two of
    eight GPUs, four of four)."""
    nodes = {
        floor: {
            doc["node_count"]
            for path, doc in _rendered(tmp_path / floor, "700", floor).items()
            if isinstance(doc, dict) and doc.get("strategy") == "multi_node_tp"
        }
        for floor in ("16", "64")
    }
    assert nodes["16"] == {2, 4}
    assert nodes["64"] == {4 * count for count in nodes["16"]}


def test_a_kv_instance_count_written_as_text_lists_that_many_backends(tmp_path: Path) -> None:
    documents = _rendered(tmp_path, "700", "16", instances='"3"')
    routers = [
        json.dumps(doc) for path, doc in documents.items() if path.endswith(f"/{CHANGED_KV}.json")
    ]
    assert routers
    assert all("$VLLM_INSTANCE_3" in text and "$VLLM_INSTANCE_4" not in text for text in routers)


@pytest.mark.parametrize(
    ("a", "b", "less"),
    [
        ("96", 141, True),  # a string and a number compare as numbers
        ("141", "96", True),  # two strings compare as text
        ([96], 141, True),  # a list is its String()
        ([1, 2], 3, None),  # "1,2" is NaN
        ({"a": 1}, 0, None),
        ("abc", 1, None),
        (None, 1, True),  # null is 0
        (True, 2, True),
        ("", 1, True),  # "" is 0
        ("\U0001f600", "\uffff", True),  # UTF-16 code units: a surrogate sorts below U+FFFF
    ],
)
def test_less_than_is_javascripts(a: object, b: object, less: bool | None) -> None:
    assert js_less_than(a, b) is less
    assert js_lt(a, b) is (less is True)
    assert js_ge(a, b) is (less is False)


def test_an_undefined_comparison_is_false_both_ways() -> None:
    assert not js_le("abc", 1) and not js_le(1, "abc")
    assert not js_gt("abc", 1) and not js_ge(1, "abc")
    assert js_le("1", 1) and js_ge([1], "1")  # "1" >= "1": both strings


def test_times_reads_each_side_as_a_number() -> None:
    assert js_times(2, "48") == 96
    assert js_times(2, [48]) == 96
    assert js_times(2, None) == 0
    assert js_times(2, {"a": 1}) != js_times(2, {"a": 1})  # NaN


PD_VARIANT = """\
variants:
  default:
    precision: bf16
    vram_minimum_gb: {vram}
compatible_strategies: [single_node_tp, single_node_dep, pd_cluster]
strategy_overrides:
  pd_cluster:
    prefill:
      parallelism: dep
"""


def _pools(root: Path, vram: str) -> set[tuple[object, object, object, str]]:
    """(nodes, currentNode, startRank, the --data-parallel-start-rank its command gives) of
    every prefill pool (a DEP pool) the recipe publishes."""
    build_tree(root, {RECIPE: Fragment(PD_VARIANT.format(vram=vram))})
    files = compile_tree(root).files
    return {
        (pool["nodes"], pool["currentNode"], pool["startRank"], _start_rank(pool["argv"]))
        for path in files.paths()
        if path.startswith(FOLDER) and path.endswith("/pd_cluster.json")
        for pool in [json.loads(files.serialize(path))["prefill"]]
    }


def _start_rank(argv: list[str]) -> str:
    return argv[argv.index("--data-parallel-start-rank") + 1]


def test_a_pd_pool_sized_from_a_vram_that_is_no_number_is_null_throughout(tmp_path: Path) -> None:
    """ceil("abc" / vram_gb) is NaN nodes per pool; its first node, max(0, min(max(1, NaN) - 1,
    0)), and start rank are NaN too, which JSON writes as null and the command as NaN."""
    assert _pools(tmp_path / "text", '"abc"') == {(None, None, None, "NaN")}
    number = _pools(tmp_path / "number", "700")
    assert {(current, start, flag) for _, current, start, flag in number} == {(0, 0, "0")}
