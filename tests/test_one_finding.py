"""One problem, one finding: no echoes of schema findings, rendering failures once, list items collapsed."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from catalog_harness import DEMO_RECIPE, build_context

from recipelint.compiler import compile_tree
from recipelint.engine import run_checks
from recipelint.tree import load_tree

RECIPE = "models/acme/demo.yaml"


def _write(root: Path, change) -> Path:
    build_context(root)
    data = copy.deepcopy(DEMO_RECIPE)
    data["model"]["model_id"] = "acme/demo"
    change(data)
    target = root / RECIPE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return target


def _codes(root: Path, target: Path) -> list[tuple[str, int]]:
    return sorted((d.code, d.line) for d in run_checks(load_tree(root)) if d.path == target)


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

    target = _write(tmp_path, change)
    codes = _codes(tmp_path, target)
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

    target = _write(tmp_path, change)
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

    target = _write(tmp_path, change)
    found = [d for d in run_checks(load_tree(tmp_path)) if d.path == target and d.code == "RL304"]
    assert len(found) == 1
    assert found[0].pointer == ("variants", "default", "extra_args", 0)
    assert found[0].message.endswith("(and 2 more items of `variants.default.extra_args`)")
    assert [r.span.line for r in found[0].related] == [found[0].line + 2, found[0].line + 3]


def test_a_suppression_in_a_file_out_of_focus_is_not_called_unused(tmp_path: Path) -> None:
    """Checking one recipe runs no rule on the others, so their suppressions cannot be judged."""
    from treehelp import Fragment, build_context, write_documents

    from recipelint.engine import run_checks
    from recipelint.tree import load_tree

    root = build_context(tmp_path)
    other = Fragment('model:\n  base_args: ["--seed", "1"]  # recipelint: disable=RL301\n')
    write_documents(
        root, {"models/acme/demo.yaml": Fragment("{}"), "models/acme/other.yaml": other}
    )
    focus = root / "models" / "acme" / "demo.yaml"
    in_focus = run_checks(load_tree(root), focus=lambda path: path == focus)
    assert [d for d in in_focus if d.code == "RL015"] == []
    everything = run_checks(load_tree(root))
    assert [d.path.name for d in everything if d.code == "RL015"] == ["other.yaml"]
