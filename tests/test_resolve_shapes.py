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
from test_properties_recipes import RENDER_PROFILE, base_inputs, recipes, to_yaml, with_recipe

from recipelint.compile.compilation import Compiler
from recipelint.compile.compiler import OutputMap
from recipelint.read.tree import load_tree
from recipelint.resolve.command import Combination, Placement, Rendered, placed_rendering
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
