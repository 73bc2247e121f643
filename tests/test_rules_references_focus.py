"""A finding between two files reaches every named file that takes part in it (RL210).

pre-commit names only the files a commit touches: a new recipe that copies another
one's slug must be reported when only the new file is checked, and each file must get
the findings a check of the whole tree gives it, so that a baseline written from the
whole tree matches a check of one file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import EMBEDDED_TREE

from recipelint.cli import main

ORIGINAL = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
# Sorts before the original (`-` < `.`): the original is the later of the two in tree order.
COPY = "models/Qwen/Qwen2.5-7B-Instruct-Copy.yaml"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The embedded tree with a copy of a recipe under another model_id and the same slug."""
    root = tmp_path / "tree"
    shutil.copytree(EMBEDDED_TREE, root)
    text = (root / ORIGINAL).read_text(encoding="utf-8")
    model_id = 'model_id: "Qwen/Qwen2.5-7B-Instruct"'
    assert model_id in text
    copy = text.replace(model_id, 'model_id: "Qwen/Qwen2.5-7B-Instruct-Copy"', 1)
    (root / COPY).write_text(copy, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def _slug_findings(capsys: pytest.CaptureFixture[str], *paths: str) -> list[tuple[str, list[str]]]:
    """(file, files of the related places) of each RL210 finding of ``check PATHS``."""
    status = main(["check", "--jobs", "1", "--format", "json", "--select", "RL210", *paths])
    found = json.loads(capsys.readouterr().out)
    assert status == (1 if found else 0)
    return [(f["path"], [r["path"] for r in f["related"]]) for f in found]


def test_only_the_new_copy_named_reports_the_duplicate_slug(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _slug_findings(capsys, COPY) == [(COPY, [ORIGINAL])]


def test_only_the_untouched_original_named_reports_it_too(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _slug_findings(capsys, ORIGINAL) == [(ORIGINAL, [COPY])]


def test_both_named_give_each_file_one_finding_as_the_whole_tree_does(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    both = _slug_findings(capsys, COPY, ORIGINAL)
    assert both == [(COPY, [ORIGINAL]), (ORIGINAL, [COPY])]
    assert _slug_findings(capsys, ".") == both


def test_a_baseline_of_the_whole_tree_covers_a_check_of_the_copy(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--select", "RL210", "--write-baseline", "b.json", "."]) == 0
    capsys.readouterr()
    assert main(["check", "--select", "RL210", "--baseline", "b.json", COPY]) == 0
    assert "1 finding was already present in b.json" in capsys.readouterr().err
