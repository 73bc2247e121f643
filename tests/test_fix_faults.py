"""`check --fix` under faults: a file edited while it runs, a folder it cannot write, a full
disk, and the temporary files of a run that was killed. Nothing is lost, nothing left behind."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_fix import CASES, recipe
from treehelp import build_context, write_file

from recipelint import atomicfile
from recipelint.cli import main
from recipelint.fix import fixers as fix

BODY, FIXED_BODY, TAIL = CASES["RL303"]  # `--flag=value` items that --fix splits in two


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_context(tmp_path / "tree")


def fixable(root: Path, rel: str) -> Path:
    return write_file(root / rel, recipe(BODY, TAIL))


@pytest.fixture
def run_fix(capsys: pytest.CaptureFixture[str]) -> Callable[[Path], tuple[int, str]]:
    """`recipelint check --fix ROOT` through the entry point (which turns exceptions into
    "internal error"); the exit status and stderr."""

    def run(root: Path) -> tuple[int, str]:
        capsys.readouterr()
        status = main(["check", "--fix", "--quiet", str(root)])
        return status, capsys.readouterr().err

    return run


def temporaries(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.tmp"))


def test_a_file_saved_while_fix_runs_keeps_the_editors_text(
    tree: Path, monkeypatch: pytest.MonkeyPatch, run_fix: Any
) -> None:
    path = fixable(tree, "models/acme/Demo-8B.yaml")
    other = fixable(tree, "models/zeta/Other-8B.yaml")
    saved = recipe(BODY, TAIL).replace("Demo 8B", "Demo 8B, edited")
    real_fix_tree = fix.fix_tree

    def editor_saves_meanwhile(*args: Any, **kwargs: Any) -> fix.FixResult:
        result = real_fix_tree(*args, **kwargs)
        path.write_text(saved, encoding="utf-8")  # after --fix read it, before it writes
        return result

    monkeypatch.setattr(fix, "fix_tree", editor_saves_meanwhile)
    status, err = run_fix(tree)

    assert path.read_text(encoding="utf-8") == saved
    assert "models/acme/Demo-8B.yaml changed on disk while --fix ran" in err
    assert "internal error" not in err
    assert status == 1  # a fix that could not be applied
    assert other.read_text(encoding="utf-8") == recipe(FIXED_BODY, TAIL)  # the rest is fixed
    assert temporaries(tree) == []


def _refuse_temporaries_in(folder: Path, error: int) -> Callable[..., int]:
    real_open = os.open

    def refusing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(os.fsdecode(path)).parent == folder and os.fsdecode(path).endswith(".tmp"):
            raise OSError(error, os.strerror(error), os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    return refusing


@pytest.mark.parametrize("error", [errno.EACCES, errno.EROFS])
def test_a_folder_fix_cannot_write_is_reported_and_nothing_is_changed(
    tree: Path, monkeypatch: pytest.MonkeyPatch, error: int, run_fix: Any
) -> None:
    """A read-only folder (as root, permissions do not stop us: the refusal is injected at
    the open of the temporary file) or a read-only mount: say which file, exit 2, and leave
    every file as it was, the ones whose folder could be written too."""
    first = fixable(tree, "models/acme/Demo-8B.yaml")
    second = fixable(tree, "models/zeta/Other-8B.yaml")
    monkeypatch.setattr(os, "open", _refuse_temporaries_in(second.parent, error))
    status, err = run_fix(tree)

    assert status == 2
    assert "internal error" not in err
    assert "models/zeta/Other-8B.yaml" in err and os.strerror(error) in err
    assert first.read_text(encoding="utf-8") == recipe(BODY, TAIL)
    assert second.read_text(encoding="utf-8") == recipe(BODY, TAIL)
    assert temporaries(tree) == []


def test_a_full_disk_is_reported_and_nothing_is_changed(
    tree: Path, monkeypatch: pytest.MonkeyPatch, run_fix: Any
) -> None:
    path = fixable(tree, "models/acme/Demo-8B.yaml")
    real_write = os.write

    def full_disk(fd: int, data: Any) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full_disk)
    status, err = run_fix(tree)

    assert status == 2
    assert "internal error" not in err and "No space left on device" in err
    assert path.read_text(encoding="utf-8") == recipe(BODY, TAIL)
    assert temporaries(tree) == []


KILLED_WRITER = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from recipelint.atomicfile import stage_file

    stage_file(Path(sys.argv[1]), b"half a fix")
    os._exit(9)  # killed between writing the temporary file and renaming it
    """
)


def test_the_temporary_file_of_a_killed_fix_is_swept_by_the_next(tree: Path, run_fix: Any) -> None:
    path = fixable(tree, "models/acme/Demo-8B.yaml")
    subprocess.run([sys.executable, "-c", KILLED_WRITER, str(path)], check=False)
    (left,) = temporaries(tree)
    assert left.name.startswith(".Demo-8B.yaml.")

    live = atomicfile.stage_file(path, b"a fix being written by a live run")
    try:
        status, _ = run_fix(tree)
        assert status == 0
        assert temporaries(tree) == [live.temporary]  # the live run's file stays
    finally:
        live.discard()
    assert path.read_text(encoding="utf-8") == recipe(FIXED_BODY, TAIL)
