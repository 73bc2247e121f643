"""RL340/RL341 share a command's layers between hardware of one layer class.

rules/commandplan.py's Assembler keeps the parts of a command's layers under the hardware's
layer class (what the layers read of it) instead of its id, and RL340 walks one combination
per class. Here every combination is assembled both ways: the layers must be the very same
lists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from recipelint.configuration.config import Config
from recipelint.read.tree import load_tree
from recipelint.resolve.plan import SYNTHESIS_ERRORS
from recipelint.rules import commandplan
from recipelint.rules.context import CheckContext


class _ByHardwareId(commandplan.Assembler):
    """Parts kept under the exact hardware id, as before layer classes."""

    def layer_class(self, hw_id: str) -> Any:
        return hw_id


def _signature(
    assembler: commandplan.Assembler, combo: commandplan.CommandChoice
) -> tuple[Any, ...] | str:
    try:
        return tuple((id(layer.items), layer.pointer) for layer in assembler.layers(combo))
    except SYNTHESIS_ERRORS as error:
        return type(error).__name__


@pytest.mark.parametrize("which", ["corpus_tree", "edge_tree", "embedded_tree"])
def test_layers_do_not_depend_on_which_hardware_of_a_class(
    which: str, request: pytest.FixtureRequest
) -> None:
    root: Path = request.getfixturevalue(which)
    ctx = CheckContext(load_tree(root), Config())
    catalog = commandplan.render_inputs(ctx)
    checked = 0
    plans = (commandplan.plan_of(ctx, catalog, doc) for doc in commandplan.planned_recipes(ctx))
    for shared, combos in filter(None, plans):
        exact = _ByHardwareId(ctx, catalog, shared.doc)
        first: dict[tuple[Any, ...], Any] = {}
        for combo in combos:
            expected = _signature(exact, combo)
            assert _signature(shared, combo) == expected, (shared.doc.rel, combo)
            key = (combo.variant, shared.layer_class(combo.hw_id), combo.strategy, combo.role)
            assert first.setdefault(key, expected) == expected, (shared.doc.rel, combo)
            checked += 1
    assert checked or which != "corpus_tree"
