"""A broken tree-wide file is reported once, at its cause, not as hundreds of reference errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from treehelp import BlockYaml, Document, base_recipe, build_tree, check_tree, context_text

from recipelint.configuration.config import Config

RECIPE = "models/acme/demo.yaml"


def _recipe() -> dict[str, Any]:
    data = base_recipe()
    data["meta"]["hardware"] = {"h200": "verified", "h100": "verified"}
    return data


def _tree(root: Path, others: dict[str, Document] | None = None) -> Path:
    """The tree's recipe, verified on two GPUs, and ``others`` (which may replace it); its path."""
    build_tree(root, {RECIPE: BlockYaml(_recipe()), **(others or {})})
    return root / RECIPE


def _broken_taxonomy() -> str:
    text = context_text("taxonomy.yaml")
    return text.replace("hardware_profiles:\n", "hardware_profiles:\n  h100: {}\n  h100: {}\n", 1)


def test_broken_taxonomy_is_reported_and_references_are_skipped(tmp_path: Path) -> None:
    target = _tree(tmp_path, {"taxonomy.yaml": _broken_taxonomy()})
    found = check_tree(tmp_path, focus=lambda path: path == target)
    codes = sorted((d.path.name, d.code) for d in found)
    assert ("taxonomy.yaml", "RL002") in codes
    assert not [c for c in codes if c[1] in ("RL201", "RL202") or c[1].startswith("RL7")]
    notes = [d for d in found if d.code == "RL020"]
    assert len(notes) == 1 and notes[0].path == target and notes[0].line == 1
    assert "taxonomy.yaml cannot be used" in notes[0].message
    assert notes[0].related[0].path.name == "taxonomy.yaml"


def test_intact_tree_has_no_skip_note(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert not [d for d in check_tree(tmp_path) if d.code == "RL020"]


def test_broken_strategy_name_skips_strategy_references(tmp_path: Path) -> None:
    target = _tree(tmp_path, {"strategies/single_node_tp.yaml": "name: [1\n"})
    found = check_tree(tmp_path, focus=lambda path: path == target)
    assert [d.code for d in found if d.path.name == "single_node_tp.yaml"] == ["RL001"]
    assert not [d for d in found if d.code == "RL203"]
    assert [d.code for d in found if d.path == target and d.code == "RL020"] == ["RL020"]


def test_unused_suppression_of_a_switched_off_rule_is_not_reported(tmp_path: Path) -> None:
    text = BlockYaml(_recipe()).text.replace("meta:\n", "meta:  # recipelint: disable=RL201\n", 1)
    _tree(tmp_path, {RECIPE: text})
    assert [d.code for d in check_tree(tmp_path) if d.code == "RL015"] == ["RL015"]
    ignored = check_tree(tmp_path, Config(ignore=("RL2",)))
    assert not [d for d in ignored if d.code == "RL015"]


def _related_hint(tmp_path: Path, related: list[str], others: list[str]) -> list[str | None]:
    data = _recipe()
    data["meta"]["related_recipes"] = related
    stubs: dict[str, Document] = {f"models/{other}.yaml": "meta:\n  title: X\n" for other in others}
    recipe = _tree(tmp_path, {RECIPE: BlockYaml(data), **stubs})
    return [d.hint for d in check_tree(tmp_path) if d.code == "RL208" and d.path == recipe]


def test_related_recipe_hint_is_only_a_respelling_of_another_recipe(tmp_path: Path) -> None:
    hints = _related_hint(
        tmp_path, ["acme/Demo", "acme/demo-8b", "acme/Qwen3-4B", "acme/Qwen3-8X"], ["acme/Qwen3-8B"]
    )
    # own id in other case: no hint; a different size: no hint; one edit: the respelling
    assert hints == [None, None, None, "did you mean `acme/Qwen3-8B`?"]
