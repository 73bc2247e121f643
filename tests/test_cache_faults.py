"""`compile --cache` under faults: compiles killed while writing an entry, and two compiles
of different trees sharing one cache, one pruning what the other has chosen."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_cache import EMBEDDED, _copy_tree, _published

from recipelint import atomicfile
from recipelint.cli import main
from recipelint.compile.cache import RecipeCache, RecipeOutcome

KILLED_WRITER = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from recipelint.atomicfile import stage_file

    stage_file(Path(sys.argv[1]), b"half an entry", prefix=".tmp-", suffix=sys.argv[2])
    os._exit(9)  # killed while the entry was being written
    """
)


def compile_args(root: Path, out: Path, cache: Path) -> list[str]:
    return ["compile", str(root), "-o", str(out), "--cache", str(cache), "--no-provenance"]


def test_prune_sweeps_the_temporary_files_of_killed_compiles(tmp_path: Path) -> None:
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    cache = tmp_path / "cache"
    assert main(compile_args(root, tmp_path / "out", cache)) == 0
    for suffix, destination in ((".rlc", "0" * 64 + ".rlc"), (".json", "record.json")):
        subprocess.run(
            [sys.executable, "-c", KILLED_WRITER, str(cache / destination), suffix], check=False
        )
    dead = sorted(cache.glob(".tmp-*"))
    assert sorted(p.suffix for p in dead) == [".json", ".rlc"]
    live = atomicfile.stage_file(
        cache / "entry.rlc", b"being written", prefix=".tmp-", suffix=".rlc"
    )
    try:
        assert main(compile_args(root, tmp_path / "out", cache)) == 0
        assert sorted(cache.glob(".tmp-*")) == [live.temporary]  # a live compile's stays
    finally:
        live.discard()


def test_an_entry_pruned_by_another_compile_is_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compile B (another tree, same cache) prunes the entries compile A has just chosen,
    before A reads their documents: for A they are misses, and its output is the same."""
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    cache = tmp_path / "cache"
    fresh = tmp_path / "fresh"
    assert main(["compile", str(root), "-o", str(fresh), "--no-provenance"]) == 0
    assert main(compile_args(root, tmp_path / "out", cache)) == 0
    real_load = RecipeCache._load

    def pruned_by_another_compile(self: RecipeCache, entry: Path) -> RecipeOutcome | None:
        found = real_load(self, entry)
        entry.unlink(missing_ok=True)
        return found

    monkeypatch.setattr(RecipeCache, "_load", pruned_by_another_compile)
    out = tmp_path / "again"
    assert main(compile_args(root, out, cache)) == 0
    assert _published(out) == _published(fresh)


def test_an_output_folder_inside_the_cache_folder_does_not_wait_on_itself(
    tmp_path: Path,
) -> None:
    """OUT's parent is the cache folder: the swap's lock and the lock for writing the cache's
    record are one folder's, taken by one compile (in a process, so a hang fails the test)."""
    root = _copy_tree(EMBEDDED, tmp_path / "tree")
    cache = tmp_path / "cache"
    command = [sys.executable, "-m", "recipelint", *compile_args(root, cache / "out", cache)]
    for _ in range(2):  # the second compile replaces OUT and keeps the first as the spare
        assert subprocess.run(command, timeout=120, check=False).returncode == 0
    assert (cache / ".out.spare").is_dir()
