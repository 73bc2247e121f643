"""A finding the compile makes between two recipes reaches each named file that takes part.

pre-commit names only the files a commit touches. A new recipe whose id is another
recipe's variant model_id (RL706), or that promotes the same model_id as another
recipe (RL707), changes what the other recipe publishes: a check of the new file
alone must say so, and so must a check of the untouched one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import replace_once

from recipelint.cli import main

ORIGINAL = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
PROMOTED_ID = "Qwen/Qwen2.5-7B-Instruct-AWQ"


def _new_recipe(root: Path, model_id: str, awq_id: str = PROMOTED_ID) -> str:
    """A copy of the original recipe under ``model_id`` and a slug of its own, its AWQ
    variant serving ``awq_id``."""
    rel = f"models/{model_id}.yaml"
    text = (root / ORIGINAL).read_text(encoding="utf-8")
    (root / rel).write_text(text, encoding="utf-8")
    if awq_id != PROMOTED_ID:
        replace_once(root / rel, f'model_id: "{PROMOTED_ID}"', f'model_id: "{awq_id}"')
    replace_once(root / rel, 'model_id: "Qwen/Qwen2.5-7B-Instruct"', f'model_id: "{model_id}"')
    replace_once(root / rel, 'slug: "qwen2.5-7b-instruct"', f'slug: "{model_id.lower()[5:]}"')
    return rel


def _findings(
    capsys: pytest.CaptureFixture[str], code: str, *paths: str
) -> list[tuple[str, list[str]]]:
    """(file, files of the related places) of each ``code`` finding of ``check PATHS``."""
    main(["check", "--jobs", "1", "--format", "json", "--select", code, *paths])
    found = json.loads(capsys.readouterr().out)
    return [(f["path"], [r["path"] for r in f["related"]]) for f in found]


def test_a_new_recipe_under_a_variants_model_id_hears_of_the_variant_it_hides(
    embedded_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    standalone = _new_recipe(embedded_copy, PROMOTED_ID, awq_id=f"{PROMOTED_ID}-Other")
    assert _findings(capsys, "RL706", standalone) == [(standalone, [ORIGINAL])]
    assert [path for path, _ in _findings(capsys, "RL706", ORIGINAL)] == [ORIGINAL]


def test_a_check_showing_both_files_reports_the_hidden_variant_once(
    embedded_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One cause, one finding: at the variant. The standalone recipe's copy is for a check
    # that does not show the variant's file.
    standalone = _new_recipe(embedded_copy, PROMOTED_ID, awq_id=f"{PROMOTED_ID}-Other")
    for named in (["."], [ORIGINAL, standalone]):
        found = _findings(capsys, "RL706", *named)
        paths = sorted(path for path, _ in found if path.startswith("models/Qwen/"))
        assert paths == [ORIGINAL]


def test_two_recipes_promoting_one_model_id_are_each_told_when_named_alone(
    embedded_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The copy has the original's AWQ variant: both write that checkpoint's folder.
    copy = _new_recipe(embedded_copy, "Qwen/Qwen2.5-7B-Instruct-Copy")
    assert [path for path, _ in _findings(capsys, "RL707", copy)] == [copy]
    assert [path for path, _ in _findings(capsys, "RL707", ORIGINAL)] == [ORIGINAL]
    assert sorted(path for path, _ in _findings(capsys, "RL707", ".")) == sorted([copy, ORIGINAL])


def test_an_unrelated_recipe_named_alone_plans_no_neighbour(
    embedded_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _new_recipe(embedded_copy, "Qwen/Qwen2.5-7B-Instruct-Copy")
    assert _findings(capsys, "RL707", "models/google/gemma-3-27b-it.yaml") == []
