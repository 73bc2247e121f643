"""The house rules run with the tests: ruff's lint and format over the whole tree, mypy --strict
over the package. The tools are in the test extra, pinned: a test environment without them is
broken, so these tests fail there rather than skip, and the pre-commit hooks run the same ruff
on the same files."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> list[str]:
    if importlib.util.find_spec(name) is None:
        pytest.fail(f"{name} is not installed: it is in the test extra (pip install -e '.[test]')")
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


def _test_extra() -> dict[str, str]:
    """Distribution name -> version pin (or "") of each package in the test extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = {}
    for spec in project["optional-dependencies"]["test"]:
        found = re.fullmatch(r"([A-Za-z0-9._-]+)\s*(?:==\s*(\S+))?.*", spec)
        assert found is not None, spec
        pins[found.group(1).lower()] = found.group(2) or ""
    return pins


def test_the_tools_are_pinned_test_dependencies() -> None:
    pins = _test_extra()
    assert pins.get("ruff") and pins.get("mypy"), pins  # a release must not change the verdict


def test_the_pre_commit_ruff_hooks_check_every_file_with_the_pinned_ruff() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    for hook_id in ("ruff-check", "ruff-format"):
        hook = hooks[hook_id]
        assert "files" not in hook and "exclude" not in hook, hook_id  # as the tests above
        assert hook["additional_dependencies"] == [f"ruff=={_test_extra()['ruff']}"], hook_id


LONG_MODULE = 600
REASON = "It is long because"


def test_a_long_module_says_why_at_its_top() -> None:
    # One job per module: a module past about 600 lines says, in its docstring, why its
    # job does not split.
    import ast

    unexplained = []
    for path in sorted((ROOT / "recipelint").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > LONG_MODULE:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if REASON not in " ".join(doc.split()):
                unexplained.append(str(path.relative_to(ROOT)))
    assert unexplained == []
