"""`--baseline` and `--write-baseline` when only some files of a tree are named (pre-commit).

A baseline records the findings of a whole tree; a run over some of its files says
nothing about the others, so none of their entries may look stale or be dropped.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import EMBEDDED_TREE

from recipelint.cli import main

QWEN = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
GEMMA = "models/google/gemma-3-27b-it.yaml"
DATES = "  date_added: 2026-11-29\n  date_updated: 2026-11-29\n"
BAD_DATES = "  date_added: 2026-11-29\n  date_updated: 2026-11-01\n"  # RL553


def _edit(tree: Path, rel: str, old: str, new: str) -> None:
    path = tree / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The embedded tree with an RL553 finding in two recipes, and the current folder there."""
    root = tmp_path / "tree"
    shutil.copytree(EMBEDDED_TREE, root)
    for rel in (QWEN, GEMMA):
        _edit(root, rel, DATES, BAD_DATES)
    monkeypatch.chdir(root)
    return root


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["check", "--jobs", "1", "--select", "RL5", *args])
    return status, capsys.readouterr().err


def _entries(path: Path) -> list[tuple[str, str]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return [(entry["path"], entry["code"]) for entry in document["findings"]]


def test_entries_of_files_not_named_are_not_stale(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "--write-baseline", "b.json", ".")[0] == 0
    assert _entries(tree / "b.json") == [(QWEN, "RL553"), (GEMMA, "RL553")]

    status, err = _run(capsys, "--baseline", "b.json", QWEN)
    assert status == 0 and "1 finding was already present" in err
    assert "match no finding" not in err

    _edit(tree, QWEN, BAD_DATES, DATES)
    status, err = _run(capsys, "--baseline", "b.json", QWEN)
    assert status == 0 and "1 baseline entry match no finding any more" in err
    assert f"{QWEN}: RL553" in err and GEMMA not in err


def test_a_named_folder_makes_the_entries_of_its_files_stale_and_no_others(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "--write-baseline", "b.json", ".")[0] == 0
    _edit(tree, QWEN, BAD_DATES, DATES)
    _edit(tree, GEMMA, BAD_DATES, DATES)
    status, err = _run(capsys, "--baseline", "b.json", "models/Qwen")
    assert status == 0 and "1 baseline entry match no finding any more" in err
    assert f"{QWEN}: RL553" in err and GEMMA not in err


def test_writing_the_baseline_for_some_files_keeps_the_entries_of_the_others(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "--write-baseline", "b.json", ".")[0] == 0
    others = [
        entry
        for entry in json.loads((tree / "b.json").read_text(encoding="utf-8"))["findings"]
        if entry["path"] == GEMMA
    ]
    _edit(tree, QWEN, BAD_DATES, DATES)
    _edit(tree, GEMMA, BAD_DATES, DATES)  # fixed, but not named: its entry stays

    status, err = _run(capsys, "--write-baseline", "b.json", QWEN)
    assert status == 0
    assert "wrote 1 finding to the baseline b.json (1 of them kept for files not checked)" in err
    kept = json.loads((tree / "b.json").read_text(encoding="utf-8"))["findings"]
    assert kept == others

    _edit(tree, QWEN, DATES, BAD_DATES)
    assert _run(capsys, "--write-baseline", "b.json", QWEN)[0] == 0
    assert _entries(tree / "b.json") == [(QWEN, "RL553"), (GEMMA, "RL553")]
    status, err = _run(capsys, "--baseline", "b.json", ".")
    assert status == 0 and "1 baseline entry match no finding any more" in err
    assert f"{GEMMA}: RL553" in err


def test_writing_a_first_baseline_for_some_files_is_a_usage_error(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _run(capsys, "--write-baseline", "b.json", QWEN)
    assert status == 2 and not (tree / "b.json").exists()
    assert "there is no b.json yet: write it for the whole tree first" in err

    status, err = _run(capsys, "--write-baseline", "-", QWEN)
    assert status == 2 and "--write-baseline - prints a whole baseline" in err


def test_a_whole_tree_rewrite_replaces_every_entry(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "--write-baseline", "b.json", ".")[0] == 0
    _edit(tree, GEMMA, BAD_DATES, DATES)
    status, err = _run(capsys, "--write-baseline", "b.json", ".")
    assert status == 0 and "wrote 1 finding to the baseline b.json\n" in err
    assert _entries(tree / "b.json") == [(QWEN, "RL553")]
