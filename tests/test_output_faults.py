"""Reports and baselines on a full disk: the earlier file stays whole, no half file is left."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from treehelp import build_context

from recipelint.cli import main

EARLIER = "the report of an earlier run\n"


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write to a file in a folder named `reports` fails as on a full disk."""
    real_write = os.write

    def write(fd: int, data: Any) -> int:
        if "/reports/" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("option", [["--format", "json", "--output-file"], ["--write-baseline"]])
def test_a_full_disk_keeps_the_earlier_report_whole(
    tmp_path: Path, full_disk: None, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    root = build_context(tmp_path / "tree")
    report = tmp_path / "reports" / "report.txt"
    report.parent.mkdir()
    report.write_text(EARLIER)
    status = main(["check", str(root), *option, str(report)])
    err = capsys.readouterr().err
    assert status == 2
    assert "No space left on device" in err and "internal error" not in err
    assert report.read_text() == EARLIER
    assert os.listdir(report.parent) == ["report.txt"]


def test_a_report_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    root = build_context(tmp_path / "tree")
    report = tmp_path / "report.txt"
    report.write_text(EARLIER)
    report.chmod(0o640)
    assert main(["check", str(root), "--output-file", str(report)]) == 0
    assert report.read_text() != EARLIER
    assert report.stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh.txt"
    assert main(["check", str(root), "--output-file", str(fresh)]) == 0
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
