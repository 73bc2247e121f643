"""The check cache changes nothing a check reports: after any sequence of edits to a tree,
a check with the cache (warm from the runs before) prints byte for byte what a check
without it prints, for the whole tree and for one file; and on the corpus a cold, a first
and a warm run agree."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from propertyprofile import property_profile

from recipelint.check.checking import CheckOptions, run_check
from recipelint.check.rulecache import FileContext, TreeWideRead
from recipelint.configuration.config import Config
from recipelint.read.tree import load_tree
from recipelint.report.formats import format_json


def _report(tree: Path, target: Path, cache: Path | None) -> str:
    options = CheckOptions(jobs=1, use_cache=cache is not None, cache_dir=cache)
    result = run_check([target], options)
    return format_json(result.diagnostics, [tree])


@pytest.fixture
def caching(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    # The suite runs with the cache off (conftest); these tests are about it being on.
    monkeypatch.delenv("RECIPELINT_NO_CACHE", raising=False)
    monkeypatch.delenv("RECIPELINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


# --- edits ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """One change to one file of the tree: ``at`` picks the place among the candidates."""

    kind: str
    file: int
    at: int

    def apply(self, tree: Path) -> Path:
        files = _files(tree)
        path = files[self.file % len(files)]
        EDITS[self.kind](path, self.at, tree)
        return path


def _files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.yaml") if ".recipelint_cache" not in p.parts)


def _replace_nth(path: Path, old: str, new: str, at: int) -> None:
    text = path.read_text(encoding="utf-8")
    places = [i for i in range(len(text)) if text.startswith(old, i)]
    if places:
        i = places[at % len(places)]
        path.write_text(text[:i] + new + text[i + len(old) :], encoding="utf-8")


def _append(line: str) -> Callable[[Path, int, Path], None]:
    def edit(path: Path, at: int, tree: Path) -> None:
        with path.open("a", encoding="utf-8") as out:
            out.write(line)

    return edit


def _copy_recipe(path: Path, at: int, tree: Path) -> None:
    """A second recipe with the same text (same slug, same model): cross-file findings."""
    recipes = sorted((tree / "models").rglob("*.yaml"))
    source = recipes[at % len(recipes)]
    shutil.copyfile(source, source.with_name(f"copy-{at % 3}-{source.name}"))


def _remove(path: Path, at: int, tree: Path) -> None:
    if path.name not in ("taxonomy.yaml",):
        path.unlink()


# What a date edit writes: a day, one that is not a calendar day, a year jsonschema's
# date format rejects, a timestamp, and a quoted string that is no date.
DATES = ("2026-01-15", "2026-02-30", "0000-01-01", "2026-11-29T10:00:00Z", "'2026-13-01'")


def _date(path: Path, at: int, tree: Path) -> None:
    """A date rewritten, in the file picked or else (a file without dates) in a recipe."""
    if "date_" not in path.read_text(encoding="utf-8"):
        recipes = sorted((tree / "models").rglob("*.yaml"))
        path = recipes[at % len(recipes)]
    text = path.read_text(encoding="utf-8")
    places = list(re.finditer(r"(date_\w+: )(\S+)", text))
    if places:
        place = places[at % len(places)]
        new = DATES[at % len(DATES)]
        path.write_text(text[: place.start(2)] + new + text[place.end(2) :], encoding="utf-8")


# What a quickstart page's hardware_profile becomes: a profile, an unsafe path, a folder.
PROFILES = ("h200", "../h200", "a/b", "b200")


def _quickstart(path: Path, at: int, tree: Path) -> None:
    """A quickstart page written, rewritten or removed: read only by the rendering stage."""
    folder = tree / "quickstart"
    folder.mkdir(exist_ok=True)
    page = folder / f"page-{at % 2}.yaml"
    if page.exists() and at % 3 == 0:
        page.unlink()
    else:
        page.write_text(f"hardware_profile: {PROFILES[at % len(PROFILES)]}\n", encoding="utf-8")


EDITS: dict[str, Callable[[Path, int, Path], None]] = {
    "date": _date,
    "quickstart": _quickstart,
    "comment": _append("# an edit\n"),
    "break-yaml": _append("key: [unclosed\n"),
    "flag": lambda p, at, t: _replace_nth(p, "- --", "- --tensor_parallel_size=2\n    - --", at),
    "bool": lambda p, at, t: _replace_nth(p, "true", "false", at),
    "number": lambda p, at, t: _replace_nth(p, ": 8", ": 3", at),
    "rename-key": lambda p, at, t: _replace_nth(p, "name:", "nmae:", at),
    "drop-line": lambda p, at, t: _replace_nth(p, "\n", "\n#", at),
    "strategy": lambda p, at, t: _replace_nth(p, "single_node_tp", "single_node_tq", at),
    "hardware": lambda p, at, t: _replace_nth(p, "h200", "h300", at),
    "kv-opt-out": _append("kv_cache_strategy_hardware:\n  nowhere: []\n"),
    "suppress": _append("# recipelint: disable=RL303\n"),
    "copy-recipe": _copy_recipe,
    "remove": _remove,
}

edits = st.builds(
    Edit,
    kind=st.sampled_from(sorted(EDITS)),
    file=st.integers(0, 200),
    at=st.integers(0, 50),
)


@pytest.mark.slow
@property_profile(bounded=12, soak=500)
@given(sequence=st.lists(edits, min_size=1, max_size=4))
def test_warm_equals_cold_over_generated_edit_sequences(
    sequence: list[Edit], embedded_tree: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _warm_equals_cold_over(sequence, embedded_tree, tmp_path_factory)


def test_warm_equals_cold_over_an_edit_of_every_kind(
    caching: None, embedded_tree: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    sequence = [Edit(kind, file, at) for file, (at, kind) in enumerate(enumerate(sorted(EDITS)))]
    _warm_equals_cold_over(sequence, embedded_tree, tmp_path_factory)


def _warm_equals_cold_over(
    sequence: list[Edit], embedded_tree: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("RECIPELINT_NO_CACHE", raising=False)
        patch.delenv("RECIPELINT_CACHE_DIR", raising=False)
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))
        tree = tmp_path_factory.mktemp("tree") / "tree"
        shutil.copytree(embedded_tree, tree)
        cache = tree / ".recipelint_cache"
        _report(tree, tree, cache)  # warm from the start
        for edit in sequence:
            edited = edit.apply(tree)
            target = edited if edited.exists() else tree
            assert _report(tree, target, cache) == _report(tree, target, None), edit
            assert _report(tree, tree, cache) == _report(tree, tree, None), edit


# --- the corpus ----------------------------------------------------------------------------


def test_findings_with_and_without_the_cache_are_identical_on_the_corpus(
    caching: None, corpus_tree: Path, tmp_path: Path
) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(corpus_tree, tree)
    cache = tmp_path / "cache"
    cold = _report(tree, tree, None)
    assert _report(tree, tree, cache) == cold, "first run, cache empty"
    assert _report(tree, tree, cache) == cold, "warm run"
    recipe = next(iter(sorted((tree / "models").rglob("*.yaml"))))
    one = _report(tree, recipe, None)
    assert _report(tree, recipe, cache) == one, "one file, warm"
    recipe.write_text(recipe.read_text(encoding="utf-8") + "# an edit\n", encoding="utf-8")
    assert _report(tree, tree, cache) == _report(tree, tree, None), "after an edit"


# --- the tripwire --------------------------------------------------------------------------


def test_a_context_of_one_recipe_trips_on_every_read_of_another_file(embedded_tree: Path) -> None:
    tree = load_tree(embedded_tree)
    recipe = tree.recipes[0]
    alone = FileContext(tree, tree_config_of(embedded_tree), [recipe])
    assert alone.recipes == [recipe]
    for read in (
        lambda: alone.profiles,
        lambda: alone.strategies,
        lambda: alone.kv_stores,
        lambda: alone.all_recipes,
        lambda: alone.hf_ids,
        lambda: alone.shared_arg_lists,
        lambda: alone.tree.recipes,
        lambda: alone.tree.strategies,
        lambda: alone.tree.documents(),
        lambda: alone.tree.taxonomy.data,  # type: ignore[union-attr]
    ):
        with pytest.raises(TreeWideRead):
            read()
        assert alone.wire.tripped
    shared = FileContext(tree, tree_config_of(embedded_tree), [recipe], shared=True)
    assert shared.profiles and shared.strategies
    assert recipe.rel and set(shared.hf_ids)
    for read in (
        lambda: shared.all_recipes,
        lambda: shared.tree.recipes,
        lambda: next(iter(shared.hf_ids.values())),
    ):
        with pytest.raises(TreeWideRead):
            read()


def test_a_check_that_catches_every_exception_cannot_hide_a_tripped_read(
    embedded_tree: Path,
) -> None:
    tree = load_tree(embedded_tree)
    alone = FileContext(tree, tree_config_of(embedded_tree), [tree.recipes[0]])
    try:
        alone.profiles  # noqa: B018 - the read is the point
    except Exception:  # noqa: BLE001 - what a careless check would write
        pytest.fail("TreeWideRead must not be an Exception")
    except TreeWideRead:
        pass
    assert alone.wire.tripped


def tree_config_of(root: Path) -> Config:
    from recipelint.check.checking import tree_config

    return tree_config(root, CheckOptions())


def test_a_warm_check_sees_an_edit_of_a_quickstart_file(
    caching: None, embedded_tree: Path, tmp_path: Path
) -> None:
    # quickstart/ is read only by the rendering stage's closing files: its cached findings
    # must be keyed by those files too.
    tree = tmp_path / "tree"
    shutil.copytree(embedded_tree, tree)
    cache = tmp_path / "cache"
    (tree / "quickstart").mkdir()
    page = tree / "quickstart" / "h200.yaml"
    page.write_text("hardware_profile: h200\ntitle: q\n", encoding="utf-8")
    assert _report(tree, tree, cache) == _report(tree, tree, None)
    page.write_text("hardware_profile: ../h200\ntitle: q\n", encoding="utf-8")
    cold = _report(tree, tree, None)
    assert "quickstart" in cold
    assert _report(tree, tree, cache) == cold
