"""`--format github`: checks skipped for one cause are one annotation, not one per recipe."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import EMBEDDED_TREE

from recipelint.cli import main


def test_a_broken_taxonomy_gives_one_skipped_checks_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(EMBEDDED_TREE, tree)
    with (tree / "taxonomy.yaml").open("a", encoding="utf-8") as taxonomy:
        taxonomy.write("hardware: [\n")
    recipes = len(list((tree / "models").rglob("*.yaml")))
    assert recipes > 1
    monkeypatch.chdir(tree)
    status = main(["check", "--format", "github", "--jobs", "1", "."])
    out = capsys.readouterr().out
    skipped = [line for line in out.splitlines() if "title=RL020" in line]
    assert status == 1
    assert len(skipped) == 1
    assert f"and {recipes - 1} other files)" in skipped[0]
    assert "title=RL001" in out  # the taxonomy's own error is still annotated
