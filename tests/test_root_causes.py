"""A broken tree-wide file is reported once, at its cause, not as hundreds of reference errors."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from catalog_harness import DEMO_RECIPE, build_context

from recipelint.config import Config
from recipelint.engine import run_checks
from recipelint.tree import load_tree

RECIPE = "models/acme/demo.yaml"


def _tree(root: Path, recipe: dict | None = None) -> Path:
    build_context(root)
    target = root / RECIPE
    target.parent.mkdir(parents=True, exist_ok=True)
    data = copy.deepcopy(recipe or DEMO_RECIPE)
    data["meta"]["hardware"] = {"h200": "verified", "h100": "verified"}
    target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return target


def _break_taxonomy(root: Path) -> None:
    taxonomy = root / "taxonomy.yaml"
    text = taxonomy.read_text(encoding="utf-8")
    taxonomy.write_text(
        text.replace("hardware_profiles:\n", "hardware_profiles:\n  h100: {}\n  h100: {}\n", 1),
        encoding="utf-8",
    )


def test_broken_taxonomy_is_reported_and_references_are_skipped(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    _break_taxonomy(tmp_path)
    found = run_checks(load_tree(tmp_path), focus=lambda path: path == target)
    codes = sorted((d.path.name, d.code) for d in found)
    assert ("taxonomy.yaml", "RL002") in codes
    assert not [c for c in codes if c[1] in ("RL201", "RL202") or c[1].startswith("RL7")]
    notes = [d for d in found if d.code == "RL020"]
    assert len(notes) == 1 and notes[0].path == target and notes[0].line == 1
    assert "taxonomy.yaml cannot be used" in notes[0].message
    assert notes[0].related[0].path.name == "taxonomy.yaml"


def test_intact_tree_has_no_skip_note(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert not [d for d in run_checks(load_tree(tmp_path)) if d.code == "RL020"]


def test_broken_strategy_name_skips_strategy_references(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    (tmp_path / "strategies" / "single_node_tp.yaml").write_text("name: [1\n", encoding="utf-8")
    found = run_checks(load_tree(tmp_path), focus=lambda path: path == target)
    assert [d.code for d in found if d.path.name == "single_node_tp.yaml"] == ["RL001"]
    assert not [d for d in found if d.code == "RL203"]
    assert [d.code for d in found if d.path == target and d.code == "RL020"] == ["RL020"]


def test_unused_suppression_of_a_switched_off_rule_is_not_reported(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    target.write_text(
        target.read_text(encoding="utf-8").replace(
            "meta:\n", "meta:  # recipelint: disable=RL201\n", 1
        ),
        encoding="utf-8",
    )
    assert [d.code for d in run_checks(load_tree(tmp_path)) if d.code == "RL015"] == ["RL015"]
    ignored = run_checks(load_tree(tmp_path), Config(ignore=("RL2",)))
    assert not [d for d in ignored if d.code == "RL015"]


def _related_hint(tmp_path: Path, related: list[str], others: list[str]) -> list[str | None]:
    _tree(tmp_path)
    for other in others:
        path = tmp_path / "models" / f"{other}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("meta:\n  title: X\n", encoding="utf-8")
    recipe = tmp_path / RECIPE
    data = yaml.safe_load(recipe.read_text(encoding="utf-8"))
    data["meta"]["related_recipes"] = related
    recipe.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return [
        d.hint for d in run_checks(load_tree(tmp_path)) if d.code == "RL208" and d.path == recipe
    ]


def test_related_recipe_hint_is_only_a_respelling_of_another_recipe(tmp_path: Path) -> None:
    hints = _related_hint(
        tmp_path, ["acme/Demo", "acme/demo-8b", "acme/Qwen3-4B", "acme/Qwen3-8X"], ["acme/Qwen3-8B"]
    )
    # own id in other case: no hint; a different size: no hint; one edit: the respelling
    assert hints == [None, None, None, "did you mean `acme/Qwen3-8B`?"]
