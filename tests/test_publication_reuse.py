"""A variant published twice (the default one promoted under its model_id too) is rendered
once: what it publishes and reports is what rendering it again would publish and report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given
from test_properties_recipes import ORG, RENDER_PROFILE, recipes, to_yaml, with_recipe

from recipelint.compile.compiler import Compiler
from recipelint.compile.publication import PlannedPaths, Publisher, _RecipePublisher
from recipelint.read.tree import RecipeTree, load_tree
from recipelint.resolve.plan import render_variant


def _rendered_again(self: _RecipePublisher, recipe: dict[str, Any], variant_key: str) -> Any:
    return render_variant(
        self.inputs,
        recipe,
        variant_key,
        self.problems,
        self.outcome.writes.keeps_documents,
        self.shared_work,
    )


def _compiled(tree: RecipeTree) -> tuple[dict[str, bytes], list[Any]]:
    result = Compiler(tree).run()
    files = {path: result.files.serialize(path) for path in result.files.paths()}
    return files, result.diagnostics


def _planned(tree: RecipeTree) -> tuple[dict[str, str], list[Any]]:
    publisher, paths = Publisher(tree), PlannedPaths()
    globals_ = publisher.publish_globals(paths)
    assert globals_ is not None
    for doc in tree.recipes:
        outcome = publisher.publish_recipe(doc, globals_, paths_only=True)
        outcome.writes.apply_to(paths)
        publisher.diagnostics.extend(outcome.diagnostics)
    return paths.ledger.origins, publisher.diagnostics


def _alike_when_rendered_again(tree: RecipeTree, publish: Callable[[RecipeTree], Any]) -> Any:
    once = publish(tree)
    with patch.object(_RecipePublisher, "_rendered_variant", _rendered_again):
        assert publish(tree) == once
    return once


@RENDER_PROFILE
@given(recipes())
def test_a_promoted_default_variant_publishes_what_rendering_it_again_would(
    generated: dict[str, Any],
) -> None:
    generated["variants"]["default"]["model_id"] = f"{ORG}/Promoted-Default"
    tree, _doc = with_recipe(to_yaml(generated))
    _alike_when_rendered_again(tree, _compiled)
    _alike_when_rendered_again(tree, _planned)


def test_a_promoted_default_variant_reports_its_fallbacks_as_rendering_it_again_would() -> None:
    """RL711 names each hardware once per publication of the variant."""
    recipe = {
        "meta": {"title": "Gen", "provider": "Acme", "tasks": ["text"]},
        "model": {"model_id": f"{ORG}/Gen-7B", "base_args": ["--trust-remote-code"]},
        "variants": {"default": {"precision": "bf16", "model_id": f"{ORG}/Promoted-Default"}},
        "compatible_strategies": [],
    }
    tree, _doc = with_recipe(to_yaml(recipe))
    _files, diagnostics = _alike_when_rendered_again(tree, _compiled)
    assert [d.code for d in diagnostics] == ["RL711"]
    _alike_when_rendered_again(tree, _planned)


@pytest.mark.parametrize("corpus", ["upstream", "edge"])
def test_the_corpora_publish_what_rendering_every_variant_again_would(
    shared_dir: Path, corpus: str
) -> None:
    tree = load_tree(shared_dir / "corpus" / corpus / "tree")
    _alike_when_rendered_again(tree, _planned)
