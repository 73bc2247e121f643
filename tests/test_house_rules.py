"""The house rules run with the tests: ruff's lint and format over the whole tree, mypy --strict
over the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None and not (Path(sys.executable).parent / name).exists():
        pytest.skip(f"{name} is not installed (pip install '.[test]' installs it)")
    return [sys.executable, "-m", name]


def test_ruff_lint_is_clean() -> None:
    result = subprocess.run(
        [*_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_every_file_as_it_is() -> None:
    result = subprocess.run(
        [*_tool("ruff"), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_package_type_checks_strictly() -> None:
    # [tool.mypy] in pyproject.toml: strict, the recipelint package.
    result = subprocess.run([*_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
