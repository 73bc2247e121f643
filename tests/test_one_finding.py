"""One problem, one finding: no echoes of schema findings, rendering failures once, list items collapsed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from treehelp import (
    BlockYaml,
    Fragment,
    base_recipe,
    build_tree,
    check_tree,
    checked,
    findings_by_code,
    tree_findings,
)

from recipelint.compile.compiler import compile_tree

RECIPE = "models/acme/demo.yaml"


def _changed(change: Callable[[dict[str, Any]], None]) -> dict[str, BlockYaml]:
    """The base recipe with ``change`` applied, as the tree's one recipe."""
    data = base_recipe()
    change(data)
    return {RECIPE: BlockYaml(data)}


def test_mapping_where_a_list_belongs_is_one_schema_finding(tmp_path: Path) -> None:
    def change(data: dict) -> None:
        data["variants"] = {
            name: {
                "precision": "bf16",
                "vram_minimum_gb": 20,
                "extra_args": {"enforce_eager": True},
            }
            for name in ("default", "fast")
        }

    codes = sorted((d.code, d.line) for d in tree_findings(tmp_path, _changed(change)))
    assert [c for c, _ in codes] == ["RL102", "RL102"]
    # compile still reports the rendering failure, once per failing value
    failures = [d for d in compile_tree(tmp_path).diagnostics if d.code == "RL704"]
    assert len(failures) == 1  # only the default variant is rendered here
    assert all(
        d.pointer[-1] == "extra_args" and "[object Object] is not iterable" in d.message
        for d in failures
    )


def test_rendering_failure_points_at_the_failing_value_and_names_what_it_breaks(
    tmp_path: Path,
) -> None:
    def change(data: dict) -> None:
        # an unrendered variant holds the same number first in the file: the failure is the default's
        data["variants"] = {
            "fast": {"precision": "bf16", "vram_minimum_gb": 20, "extra_args": ["--y", 2]},
            "default": {"precision": "bf16", "vram_minimum_gb": 20, "extra_args": ["--x", 2]},
        }

    target = build_tree(tmp_path, _changed(change)) / RECIPE
    failures = [d for d in compile_tree(tmp_path).diagnostics if d.code == "RL704"]
    assert [(d.path, d.pointer) for d in failures] == [
        (target, ("variants", "default", "extra_args", 1))
    ]
    assert failures[0].message.startswith("cannot render variant 'default' × ")
    assert "hardware (" in failures[0].message and failures[0].message.endswith(
        "(quote it in the YAML)"
    )


def test_repeated_item_findings_collapse_into_one(tmp_path: Path) -> None:
    def change(data: dict) -> None:
        data["variants"]["default"]["extra_args"] = [
            "--enforce_eager",
            "--x",
            "--enforce_eager",
            "--enforce_eager",
        ]

    found = findings_by_code(tmp_path, _changed(change)).get("RL304", [])
    assert len(found) == 1
    assert found[0].pointer == ("variants", "default", "extra_args", 0)
    assert found[0].message.endswith("(and 2 more items of `variants.default.extra_args`)")
    assert [r.span.line for r in found[0].related] == [found[0].line + 2, found[0].line + 3]


def test_a_suppression_in_a_file_out_of_focus_is_not_called_unused(tmp_path: Path) -> None:
    """Checking one recipe runs no rule on the others, so their suppressions cannot be judged."""
    other = Fragment('model:\n  base_args: ["--seed", "1"]  # recipelint: disable=RL301\n')
    documents = {"models/acme/demo.yaml": Fragment("{}"), "models/acme/other.yaml": other}
    focus = tmp_path / "models" / "acme" / "demo.yaml"
    in_focus = checked(tmp_path, documents, focus=lambda path: path == focus)
    assert [d for d in in_focus if d.code == "RL015"] == []
    everything = check_tree(tmp_path)
    assert [d.path.name for d in everything if d.code == "RL015"] == ["other.yaml"]
