"""`compile --cache`: the replaced output is kept beside OUT and brought up to date by the
next compile, which writes only the files whose bytes changed and still swaps atomically."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from catalog_harness import CONTEXT

from recipelint.cli import main
from recipelint.compile.carryover import spare_folder

pytestmark = pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)
RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def stamps(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def retitle(tree: Path, title: str) -> None:
    recipe = tree / RECIPE
    text = recipe.read_text(encoding="utf-8")
    start = text.index("title: ")
    end = text.index("\n", start)
    recipe.write_text(text[:start] + f'title: "{title}"' + text[end:], encoding="utf-8")


def compile_into(tree: Path, out: Path, cache: Path | None) -> int:
    extra = ["--cache", str(cache)] if cache is not None else []
    return main(["compile", str(tree), "-o", str(out), "-q", "--no-provenance", *extra])


def fresh(tree: Path, tmp_path: Path) -> dict[str, bytes]:
    reference = tmp_path / "reference"
    shutil.rmtree(reference, ignore_errors=True)
    assert compile_into(tree, reference, None) == 0
    return snapshot(reference)


def test_a_recompile_writes_only_what_changed(tmp_path: Path) -> None:
    tree, out, cache = tmp_path / "tree", tmp_path / "out", tmp_path / "cache"
    shutil.copytree(CONTEXT, tree)
    for round_number in range(2):  # the second compile leaves the first output as the spare
        retitle(tree, f"Round {round_number}")
        assert compile_into(tree, out, cache) == 0
    spare = stamps(spare_folder(out))
    retitle(tree, "Round 2")
    assert compile_into(tree, out, cache) == 0
    assert snapshot(out) == fresh(tree, tmp_path)
    now = stamps(out)
    touched = [path for path, stamp in now.items() if spare.get(path) != stamp]
    assert touched, "the edited recipe's files were not written"
    assert len(touched) < len(now) // 5, f"{len(touched)} of {len(now)} files were written"
    assert all(p.startswith(("Qwen/Qwen2.5-7B-Instruct", "models.json")) for p in touched)
    assert spare_folder(out).is_dir()


def test_files_changed_or_added_behind_its_back_are_never_published(tmp_path: Path) -> None:
    tree, out, cache = tmp_path / "tree", tmp_path / "out", tmp_path / "cache"
    shutil.copytree(CONTEXT, tree)
    assert compile_into(tree, out, cache) == 0
    retitle(tree, "Kept")
    assert compile_into(tree, out, cache) == 0  # the first output is now the kept spare
    spare = spare_folder(out)
    victim = next(p for p in sorted(out.rglob("*.json")) if p.name != "models.json")
    victim.write_bytes(b"tampered\n")
    (out / "Qwen" / "stray").mkdir(parents=True, exist_ok=True)
    (out / "Qwen" / "stray" / "x.json").write_bytes(b"{}\n")
    # Files no compile writes make OUT itself a folder compile refuses to replace; in the
    # spare, which only recipelint uses, they are removed.
    (spare / "stray.txt").write_bytes(b"not ours\n")
    outside = tmp_path / "outside"
    moved = spare / "Qwen" / "Qwen2.5-7B-Instruct"  # the folder the edited recipe writes to
    shutil.move(moved, outside)
    moved.symlink_to(outside, target_is_directory=True)
    kept_outside = snapshot(outside)
    for round_number in range(3):  # the tampered output becomes the spare, then is reused
        retitle(tree, f"Round {round_number}")
        assert compile_into(tree, out, cache) == 0
        assert snapshot(out) == fresh(tree, tmp_path)
        assert not [p for p in out.rglob("*") if p.is_symlink()]
    assert snapshot(outside) == kept_outside, "a file outside the output was changed"


def test_a_failed_compile_leaves_the_output_and_the_next_one_is_whole(tmp_path: Path) -> None:
    tree, out, cache = tmp_path / "tree", tmp_path / "out", tmp_path / "cache"
    shutil.copytree(CONTEXT, tree)
    for round_number in range(2):
        retitle(tree, f"Round {round_number}")
        assert compile_into(tree, out, cache) == 0
    before = snapshot(out)
    recipe = tree / RECIPE
    good = recipe.read_text(encoding="utf-8")
    recipe.write_text(good + "\nmeta: [\n", encoding="utf-8")  # a YAML error: nothing written
    assert compile_into(tree, out, cache) == 1
    assert snapshot(out) == before
    recipe.write_text(good, encoding="utf-8")
    retitle(tree, "Round 3")
    assert compile_into(tree, out, cache) == 0
    assert snapshot(out) == fresh(tree, tmp_path)
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out"))
    assert leftovers == [spare_folder(out).name]
    assert os.access(out, os.R_OK)
