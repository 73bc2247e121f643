"""RL103 on a key the format made required after trees were written (meta.date_added,
upstream pull request #686): required once the tree uses it, never before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from treehelp import base_recipe, build_context, findings_by_code

from recipelint.check.checking import CheckOptions, run_check


def _recipe(name: str, dated: bool) -> dict[str, Any]:
    data = base_recipe()
    data["meta"]["slug"] = name
    data["model"]["model_id"] = f"acme/{name}"
    if not dated:
        del data["meta"]["date_added"]
    return data


def _missing_date(found: dict[str, list]) -> list[str]:
    return [
        Path(d.path).name
        for d in found.get("RL103", [])
        if "missing required key 'date_added'" in d.message
    ]


def test_a_tree_that_predates_date_added_is_not_asked_for_it(tmp_path: Path) -> None:
    found = findings_by_code(
        tmp_path,
        {
            "models/acme/one.yaml": _recipe("one", dated=False),
            "models/acme/two.yaml": _recipe("two", dated=False),
        },
    )
    assert _missing_date(found) == []


def test_a_recipe_without_date_added_in_a_tree_that_uses_it_is_reported(tmp_path: Path) -> None:
    found = findings_by_code(
        tmp_path,
        {
            "models/acme/one.yaml": _recipe("one", dated=True),
            "models/acme/two.yaml": _recipe("two", dated=False),
        },
    )
    assert _missing_date(found) == ["two.yaml"]


def test_the_check_cache_tells_the_tree_before_and_after_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same recipe text, first in a tree that predates the key, then once a recipe with
    # the key is added beside it: the schema findings kept for its text are not reused.
    monkeypatch.delenv("RECIPELINT_NO_CACHE", raising=False)
    options = CheckOptions(use_cache=True, cache_dir=tmp_path / "cache")
    tree = build_context(tmp_path / "tree")
    (tree / "models/acme").mkdir(parents=True)
    (tree / "models/acme/two.yaml").write_text(json.dumps(_recipe("two", dated=False)))
    first = run_check([tree], options)
    assert first.files and not [d for d in first.diagnostics if d.code == "RL103"]
    (tree / "models/acme/one.yaml").write_text(json.dumps(_recipe("one", dated=True)))
    second = run_check([tree], options)
    assert [Path(d.path).name for d in second.diagnostics if d.code == "RL103"] == ["two.yaml"]
