"""RL340/RL341 and RL370-RL373 plan a recipe's commands only when a cheap test of its own
lists says a rule could find something there; the recipes left unplanned must be ones the
full computation finds nothing in.

For every recipe of the trees and for generated ones: each list a command's layers hold is
one of the lists the tests read (the recipe's own at its declared places, the strategy
files'), a recipe the tests pass over gives no finding when it is planned anyway, and
RL370-RL373 find the same when they read only the commands of hardware that refuses
something the recipe selects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from test_properties_recipes import RENDER_PROFILE, recipes, to_yaml, with_recipe

from recipelint.configuration.config import Config
from recipelint.read.load import Document
from recipelint.read.tree import RecipeTree, load_tree
from recipelint.resolve.plan import SYNTHESIS_ERRORS
from recipelint.rules import commandplan, resolved
from recipelint.rules.backends import backend_judge
from recipelint.rules.context import CheckContext


def _unplanned_find_nothing(ctx: CheckContext, doc: Document) -> int:
    """Plans ``doc`` whatever the tests say; returns how many commands were assembled."""
    catalog = commandplan.render_inputs(ctx)
    plan = commandplan.plan_of(ctx, catalog, doc)
    if plan is None:
        return 0
    assembler, combos = plan
    known = {id(listed.items) for listed in ctx.arg_lists_of(doc)}
    known |= {id(listed.items) for listed in ctx.shared_arg_lists}
    assembled = 0
    for combo in combos:
        try:
            layers = assembler.layers(combo)
        except SYNTHESIS_ERRORS:
            continue
        assembled += 1
        assert all(id(layer.items) in known for layer in layers), (doc.rel, combo)
    if not resolved.may_shadow(ctx.arg_lists_of(doc), resolved._strategy_values(ctx)):
        assert list(resolved._shadowed_values(assembler, combos)) == [], doc.rel
    if not resolved.has_generation_tables(doc.data):
        assert list(resolved._strategy_override_replaces(assembler, combos)) == [], doc.rel
    judge = backend_judge(ctx, catalog)
    assert judge is not None
    every = list(judge.findings(assembler, combos))
    if not judge.wants(ctx, doc):
        assert every == [], doc.rel
    # Commands rendered only for hardware that refuses nothing the recipe selects are not read.
    assert list(judge.findings(assembler, combos, judge.refusing(ctx, doc))) == every, doc.rel
    return assembled


def _each_recipe(tree: RecipeTree) -> int:
    ctx = CheckContext(tree, Config())
    return sum(_unplanned_find_nothing(ctx, doc) for doc in commandplan.planned_recipes(ctx))


@pytest.mark.parametrize("which", ["corpus_tree", "edge_tree", "embedded_tree"])
def test_recipes_left_unplanned_have_nothing_to_find(
    which: str, request: pytest.FixtureRequest
) -> None:
    root: Path = request.getfixturevalue(which)
    assert _each_recipe(load_tree(root)) or which != "corpus_tree"


@RENDER_PROFILE
@given(recipes())
def test_generated_recipes_left_unplanned_have_nothing_to_find(recipe: dict[str, Any]) -> None:
    tree, _doc = with_recipe(to_yaml(recipe))
    _each_recipe(tree)
