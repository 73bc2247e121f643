"""Helpers the rule tests of more than one tests/test_rules_<module>.py share (tests/treehelp.py
builds the trees they check)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from treehelp import BlockYaml, Fragment, checked, findings_by_code

from recipelint.diagnostics import Diagnostic


def codes(tmp_path: Path, data: dict[str, Any], code: str) -> list[str]:
    """The messages of ``code`` in a tree whose one recipe is ``data``."""
    found = checked(tmp_path, {"models/acme/demo.yaml": BlockYaml(data)})
    return [d.message for d in found if d.code == code]


def findings_of(tmp_path: Path, recipe: str, code: str) -> list[Diagnostic]:
    """The findings of ``code`` in a tree whose one recipe is the fragment ``recipe``."""
    return findings_by_code(tmp_path, {"models/acme/demo.yaml": Fragment(recipe)}).get(code, [])


# Strategies whose commands span nodes or data-parallel ranks, beside the single-node one.
MULTI_NODE = "compatible_strategies: [single_node_tp, multi_node_tp, single_node_dep]\n"
