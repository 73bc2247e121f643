"""The streaming compile: documents reach the staging folder as they are rendered, with
upstream's overwrite and `rm -rf` semantics replayed on disk, and a killed compile's
staging folder is swept by the next one (never a live one's)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from catalog_harness import CONTEXT
from hypothesis import example, given, settings
from hypothesis import strategies as st

from recipelint.compile import emit
from recipelint.compile.compilation import StreamedOutput
from recipelint.compile.outputmap import OutputMap
from recipelint.compile.outputpaths import NEW, REFUSED, REWRITTEN, PathLedger, unsafe_path_reason

COMPILE = [sys.executable, "-c", "from recipelint.cli import run; run()", "compile"]

needs_context = pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def empty_folders(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_dir() and not any(p.iterdir())]


# ------------------------------------------------------------------ write semantics on disk

SEGMENTS = st.sampled_from(["a", "b", "c.json"])
PATHS = st.lists(SEGMENTS, min_size=1, max_size=3).map("/".join)
OPS = st.lists(
    st.tuples(st.sampled_from(["write", "remove"]), PATHS, st.integers(0, 3)), max_size=25
)


@settings(max_examples=300, deadline=None)
@given(OPS)
def test_streamed_writes_leave_exactly_the_in_memory_output(
    ops: list[tuple[str, str, int]],
) -> None:
    import tempfile

    memory, streamed = OutputMap(), StreamedOutput()
    steps = []
    for kind, path, value in ops:
        for output in (memory, streamed):
            if kind == "write":
                output.write(path, {"v": value}, False, f"origin{value % 2}")
            else:
                output.remove_tree(path)
        steps.extend(streamed.take())
    assert memory.ledger.origins == streamed.ledger.origins
    if streamed.blocked:
        return  # the command compiles such a tree in memory instead
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "staging"
        folder.mkdir()
        written = emit.write_files(steps, folder)
        assert snapshot(folder) == dict(memory.items())
        assert written == len(memory)
        assert not empty_folders(folder)


@settings(max_examples=300, deadline=None)
@given(OPS)
def test_the_path_ledger_is_rm_rf_and_last_writer_wins(ops: list[tuple[str, str, int]]) -> None:
    ledger = PathLedger()
    model: dict[str, str] = {}
    for kind, path, value in ops:
        if kind == "write":
            assert ledger.write(path, f"origin{value}") == (REWRITTEN if path in model else NEW)
            model[path] = f"origin{value}"
        else:
            removed = ledger.remove_tree(path)
            doomed = [p for p in model if p == path or p.startswith(path + "/")]
            assert sorted(removed) == sorted(doomed)
            for gone in doomed:
                del model[gone]
    assert ledger.origins == model


# Safe and unsafe segments alike: the ledger remembers the folders and names of safe paths,
# and no order of writes may make it accept an unsafe path or refuse a safe one.
ANY_SEGMENTS = st.sampled_from(
    ["a", "b.json", "", ".", "..", ".hidden", "x\\y", "t\x01", "é" * 130, "n" * 70, " "]
)
ANY_PATHS = st.lists(ANY_SEGMENTS, min_size=1, max_size=4).map("/".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(ANY_PATHS, max_size=30))
@example(["a", "/a", "b.json/a", "b.json//a", "b.json/./a", "a/..", "a/b.json/"])
def test_the_path_ledger_refuses_exactly_the_unsafe_paths(paths: list[str]) -> None:
    ledger = PathLedger()
    for path in paths:
        done = ledger.write(path, "origin")
        assert (done == REFUSED) == (unsafe_path_reason(path) is not None), path


def test_a_file_later_replaced_by_a_folder_blocks_the_stream() -> None:
    streamed = StreamedOutput()
    streamed.write("a/b.json", 1, False, "x")
    streamed.write("a/b.json/c", 2, False, "y")
    assert streamed.blocked


# ------------------------------------------------------------------ debris of killed compiles


def staging_folders(parent: Path, out: Path) -> list[Path]:
    return sorted(parent.glob(f".{out.name}{emit.STAGING_INFIX}*"))


@needs_context
def test_a_killed_compiles_staging_folder_is_swept_by_the_next_compile(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(CONTEXT, tree)
    out = tmp_path / "out"
    command = [*COMPILE, str(tree), "-o", str(out), "-q", "--no-provenance"]
    assert subprocess.run(command, capture_output=True, timeout=120).returncode == 0
    previous = snapshot(out)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not any(any(f.iterdir()) for f in staging_folders(tmp_path, out)):
        assert process.poll() is None, "the compile ended before it wrote anything"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    assert staging_folders(tmp_path, out), "the killed compile left no staging folder"
    assert snapshot(out) == previous
    assert subprocess.run(command, capture_output=True, timeout=120).returncode == 0
    assert staging_folders(tmp_path, out) == []
    assert snapshot(out) == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "tree"]


def test_a_live_compiles_staging_folder_is_never_swept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    emit.replace_folder([("models.json", b"[]\n")], out)
    live, hold, _ = emit._new_staging(out, None)  # another compile, still writing
    try:
        (live / "half.json").write_bytes(b"{}")
        emit.replace_folder([("models.json", b"[1]\n")], out)
        assert (live / "half.json").is_file()
    finally:
        os.close(hold)  # that compile dies
    emit.replace_folder([("models.json", b"[2]\n")], out)
    assert not live.exists()
    assert snapshot(out) == {"models.json": b"[2]\n"}


def test_an_output_left_aside_by_a_killed_fallback_swap_is_put_back(tmp_path: Path) -> None:
    """Killed between the fallback swap's two renames: OUT is missing, the previous output is
    in a retired folder. The next compile's sweep moves it back before swapping its own in."""
    out = tmp_path / "out"
    retired = tmp_path / f".out{emit.RETIRED_INFIX}killed"
    (retired / "previous").mkdir(parents=True)
    (retired / "previous" / "models.json").write_bytes(b"[0]\n")
    emit.replace_folder([("models.json", b"[3]\n")], out)
    assert snapshot(out) == {"models.json": b"[3]\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
