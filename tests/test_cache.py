"""`compile --cache`: a cached compile publishes exactly what a fresh one does, and reuses only what is still valid."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import orjson
import pytest
from conftest import CORPUS_TREE as CORPUS
from conftest import SKIP_REASON
from hypothesis import given, settings
from hypothesis import strategies as st

from recipelint.cli import main
from recipelint.compile.cache import RecipeCache, _decode, _encode, tree_fingerprint
from recipelint.compile.compiler import Compiler
from recipelint.configuration.config import Config
from recipelint.jsvalue import UNDEFINED
from recipelint.read.tree import load_tree

PROJECT = Path(__file__).resolve().parent.parent
EMBEDDED = PROJECT / "recipes"
SEED_RECIPE = "models/nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"


def _copy_tree(source: Path, into: Path) -> Path:
    shutil.copytree(source, into, ignore=shutil.ignore_patterns(".*"))
    return into


def _compile(
    root: Path, cache_dir: Path | None
) -> tuple[dict[str, bytes], list, RecipeCache | None]:
    tree = load_tree(root)
    config = Config()
    cache = None
    if cache_dir is not None:
        cache = RecipeCache(
            cache_dir, tree_fingerprint(tree, None, config.max_renderings, config.limits)
        )
    result = Compiler(tree, None, config.max_renderings).run(source=cache)
    return dict(result.files.items()), result.diagnostics, cache


def test_cold_and_warm_cache_publish_exactly_the_fresh_output(tmp_path: Path) -> None:
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    fresh_files, fresh_findings, _ = _compile(root, None)
    cold_files, cold_findings, cold = _compile(root, tmp_path / "cache")
    warm_files, warm_findings, warm = _compile(root, tmp_path / "cache")
    assert cold.misses == 6 and cold.hits == 0
    assert warm.hits == 6 and warm.misses == 0
    assert cold_files == fresh_files == warm_files
    assert cold_findings == fresh_findings == warm_findings


def test_editing_one_recipe_renders_only_that_recipe(tmp_path: Path) -> None:
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    _compile(root, tmp_path / "cache")
    recipe = root / SEED_RECIPE
    recipe.write_text(recipe.read_text().replace("title: ", "title: Edited ", 1))
    files, findings, cache = _compile(root, tmp_path / "cache")
    assert (cache.hits, cache.misses) == (5, 1)
    assert (files, findings) == _compile(root, None)[:2]


def test_a_tree_wide_change_renders_everything_again(tmp_path: Path) -> None:
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    _compile(root, tmp_path / "cache")
    strategy = root / "strategies" / "single_node_tp.yaml"
    strategy.write_text(strategy.read_text() + "\n# a comment is a change too\n")
    files, _, cache = _compile(root, tmp_path / "cache")
    assert (cache.hits, cache.misses) == (0, 6)
    assert files == _compile(root, None)[0]


def test_findings_come_back_from_the_cache(tmp_path: Path) -> None:
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    recipe = root / SEED_RECIPE
    # A variant published under the recipe's own id: an RL706 finding from the compile.
    text = recipe.read_text()
    assert "\nvariants:\n" in text
    recipe.write_text(
        text.replace(
            "\nvariants:\n",
            "\nvariants:\n  again:\n"
            "    model_id: nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16\n",
            1,
        )
    )
    fresh = _compile(root, None)
    _compile(root, tmp_path / "cache")
    warm = _compile(root, tmp_path / "cache")
    assert any(d.code == "RL706" for d in fresh[1])
    assert warm[2].hits == 6 and warm[:2] == fresh[:2]


def test_a_damaged_entry_is_a_miss_not_an_error(tmp_path: Path) -> None:
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    cache_dir = tmp_path / "cache"
    _compile(root, cache_dir)
    entries = sorted(cache_dir.iterdir())
    entries[0].write_bytes(b'{"format": 1, "ops": [["write", "x.json", "o", 99]]')
    entries[1].write_bytes(entries[1].read_bytes()[:-10])  # truncated payload
    entries[2].write_bytes(b"\xff\xfe not json at all\n")
    files, _, cache = _compile(root, cache_dir)
    assert (cache.hits, cache.misses) == (3, 3)
    assert files == _compile(root, None)[0]


def test_prune_keeps_what_this_compile_used_and_foreign_files(tmp_path: Path) -> None:
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    cache_dir = tmp_path / "cache"
    _compile(root, cache_dir)
    stale = cache_dir / ("0" * 64 + ".rlc")
    stale.write_bytes(b"old")
    foreign = cache_dir / "README"
    foreign.write_text("mine")
    _, _, cache = _compile(root, cache_dir)
    assert cache.prune() == 1
    assert not stale.exists() and foreign.exists()
    assert len(list(cache_dir.glob("*.rlc"))) == 6


def _published(out: Path) -> dict[Path, bytes]:
    return {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_cli_reuses_the_cache_and_refuses_one_inside_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    out = tmp_path / "out"
    args = [
        "compile",
        str(root),
        "-o",
        str(out),
        "--cache",
        str(tmp_path / "cache"),
        "--no-provenance",
    ]
    assert main(args) == 0
    before = _published(out)
    capsys.readouterr()
    assert main(args) == 0
    assert "6 recipes from the cache, 0 rendered" in capsys.readouterr().err
    assert _published(out) == before
    assert main(["compile", str(root), "-o", str(out), "--cache", str(out / "cache")]) == 2
    assert "must not be inside the output folder" in capsys.readouterr().err


@pytest.mark.skipif(not CORPUS.is_dir(), reason=SKIP_REASON)
def test_corpus_recompile_after_one_edit_matches_a_fresh_compile(tmp_path: Path) -> None:
    root = _copy_tree(CORPUS, tmp_path / "tree")
    _compile(root, tmp_path / "cache")
    edited = sorted((root / "models").rglob("*.yaml"))[0]
    edited.write_text(edited.read_text() + "\n")
    files, findings, cache = _compile(root, tmp_path / "cache")
    assert (cache.hits, cache.misses) == (137, 1)
    assert (files, findings) == _compile(root, None)[:2]


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**80), 2**80),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.just(UNDEFINED),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


def _same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


@settings(max_examples=200, deadline=None)
@given(values)
def test_index_values_survive_the_cache_exactly(value: object) -> None:
    assert _same(_decode(orjson.loads(orjson.dumps(_encode(value)))), value)
