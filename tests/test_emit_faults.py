"""Writing the compiled output under faults: an interrupt before or right after the swap,
and an output folder that holds files no compile wrote."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_compile_safety import make_tree, recipe_text, snapshot

from recipelint.cli import main
from recipelint.compile import emit

CACHE_OR_NOT = [[], ["--cache"]]


def compile_cli(tree: Path, out: Path, options: list[str]) -> int:
    extra = ["--cache", str(out.parent / "cache")] if options else []
    return main(["compile", str(tree), "-o", str(out), "-q", "--no-provenance", *extra])


def leftovers(out: Path) -> list[str]:
    """What compiles leave beside OUT: staging folders and retired outputs (a kept spare
    of --cache is meant to stay)."""
    return sorted(
        name
        for name in os.listdir(out.parent)
        if name.startswith(f".{out.name}") and not name.endswith(".spare")
    )


def two_versions(tmp_path: Path) -> tuple[Path, Path]:
    """A tree and its output folder (to compile, edit, and compile again)."""
    return make_tree(tmp_path / "tree"), tmp_path / "out"


def edit(tree: Path) -> None:
    (tree / "models/org/model.yaml").write_text(recipe_text("org/model", title="Edited"))


@pytest.mark.parametrize("options", CACHE_OR_NOT)
def test_an_interrupt_right_after_the_swap_is_a_successful_compile(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
) -> None:
    tree, out = two_versions(tmp_path)
    assert compile_cli(tree, out, options) == 0
    edit(tree)
    expected_dir = tmp_path / "expected"
    assert main(["compile", str(tree), "-o", str(expected_dir), "-q", "--no-provenance"]) == 0
    expected = snapshot(expected_dir)
    real_exchange = emit._exchange

    def interrupted_once_done(a: Path, b: Path) -> bool:
        real_exchange(a, b)
        raise KeyboardInterrupt  # Ctrl-C delivered as the rename returns

    monkeypatch.setattr(emit, "_exchange", interrupted_once_done)
    capsys.readouterr()
    assert compile_cli(tree, out, options) == 0
    assert "Aborted" not in capsys.readouterr().err
    assert snapshot(out) == expected
    assert leftovers(out) == []
    monkeypatch.undo()
    assert compile_cli(tree, out, options) == 0  # the kept output's record still holds
    assert snapshot(out) == expected


def test_an_interrupt_after_the_fallback_swap_leaves_only_what_the_next_sweeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without renameat2 the swap is two renames; interrupted after the second, the new
    output is in place and the previous one waits in a retired folder for the next sweep."""
    tree, out = two_versions(tmp_path)
    assert compile_cli(tree, out, []) == 0
    edit(tree)
    real_rename = os.rename

    def rename(source: Any, target: Any) -> None:
        real_rename(source, target)
        if Path(target) == out:
            raise KeyboardInterrupt

    monkeypatch.setattr(emit, "_exchange", lambda a, b: False)
    monkeypatch.setattr(os, "rename", rename)
    assert compile_cli(tree, out, []) == 0
    monkeypatch.undo()
    new = snapshot(out)
    assert b"Edited" in b"".join(new.values())
    assert compile_cli(tree, out, []) == 0
    assert leftovers(out) == [] and snapshot(out) == new


@pytest.mark.parametrize("options", CACHE_OR_NOT)
def test_an_interrupt_before_the_swap_keeps_the_previous_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: list[str]
) -> None:
    tree, out = two_versions(tmp_path)
    assert compile_cli(tree, out, options) == 0
    before = snapshot(out)
    edit(tree)

    def interrupted_before(a: Path, b: Path) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(emit, "_exchange", interrupted_before)
    assert compile_cli(tree, out, options) == 2  # "Aborted."
    assert snapshot(out) == before
    monkeypatch.undo()
    assert compile_cli(tree, out, options) == 0
    assert leftovers(out) == []
    assert b"Edited" in b"".join(snapshot(out).values())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_sigint_delivered_as_the_swap_returns(tmp_path: Path) -> None:
    """The real signal, injected by strace when the exchanging rename returns."""
    tree, out = two_versions(tmp_path)
    assert compile_cli(tree, out, []) == 0
    edit(tree)
    command = [sys.executable, "-m", "recipelint", "compile", str(tree), "-o", str(out), "-q"]
    traced = subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-o",
            os.devnull,
            "-e",
            "trace=renameat2",
            "-e",
            f"inject=renameat2:signal={signal.SIGINT.name}",
            *command,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert traced.returncode == 0, traced.stderr
    assert b"Edited" in b"".join(snapshot(out).values())
    assert leftovers(out) == []


def test_an_output_folder_holding_foreign_files_is_not_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = make_tree(tmp_path / "tree")
    out = tmp_path / "out"
    out.mkdir()
    (out / "models.json").write_text("[]")
    (out / "precious.txt").write_text("keep me")
    (out / "org").mkdir()
    (out / "org" / "notes.md").write_text("mine")
    capsys.readouterr()
    assert compile_cli(tree, out, []) == 2
    err = capsys.readouterr().err
    assert "org/notes.md, precious.txt" in err and "refusing to replace it" in err
    assert (out / "precious.txt").read_text() == "keep me"
    assert (out / "org" / "notes.md").read_text() == "mine"


def test_an_earlier_output_is_replaced(tmp_path: Path) -> None:
    """Every file an output holds is a JSON document: an earlier compile's output (of any
    version, with files of recipes since removed) is accounted for and replaced."""
    tree = make_tree(
        tmp_path / "tree",
        {
            "models/org/model.yaml": recipe_text("org/model"),
            "models/org/gone.yaml": recipe_text("org/gone"),
        },
    )
    out = tmp_path / "out"
    assert compile_cli(tree, out, []) == 0
    (tree / "models/org/gone.yaml").unlink()
    assert emit.foreign_files(out) == []
    assert compile_cli(tree, out, []) == 0
    assert not (out / "org" / "gone.json").exists()
