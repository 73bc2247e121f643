"""`recipelint check --format github`: where each annotation points.

GitHub's toolkit sends columns only for an annotation on one line (it rejects `col`
and `endColumn` when `line` and `endLine` differ), and resolves `file` against the
repository root: a check run from a subfolder must still name files from there.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from treehelp import Fragment, write_documents

from recipelint.cli import cli

RECIPE = "models/acme/demo.yaml"
# meta without its title: RL103 at the whole `meta` mapping, a span over many lines.
NO_TITLE = Fragment("meta:\n  title: !delete\n")
# One RL304 on one line.
UNDERSCORE = Fragment('model:\n  base_args: ["--max_model_len", "8192"]\n')
PROPERTIES = re.compile(r"::(?:error|warning|notice) (?P<props>[^:]*)::")


def run(*args: str, workspace: str | None = None) -> Result:
    return CliRunner().invoke(
        cli, list(args), catch_exceptions=False, env={"GITHUB_WORKSPACE": workspace}
    )


def annotations(output: str) -> list[dict[str, str]]:
    found = []
    for line in output.splitlines():
        match = PROPERTIES.match(line)
        assert match, line
        found.append(dict(item.split("=", 1) for item in match["props"].split(",")))
    return found


@pytest.fixture
def repository(tmp_path: Path, embedded_tree: Path) -> Path:
    """A git repository holding a recipe tree in its subfolder `recipes/`."""
    shutil.copytree(embedded_tree, tmp_path / "recipes")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    return tmp_path


def _only(output: str, code: str) -> dict[str, str]:
    [found] = [props for props in annotations(output) if props["title"].startswith(code)]
    return found


def test_an_annotation_over_several_lines_sends_no_columns(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = repository / "recipes"
    write_documents(tree, {RECIPE: NO_TITLE})
    monkeypatch.chdir(tree)
    props = _only(run("check", RECIPE, "--format", "github").stdout, "RL103")
    assert int(props["endLine"]) > int(props["line"])
    assert "col" not in props and "endColumn" not in props


def test_an_annotation_on_one_line_keeps_its_columns(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = repository / "recipes"
    write_documents(tree, {RECIPE: UNDERSCORE})
    monkeypatch.chdir(tree)
    props = _only(run("check", RECIPE, "--format", "github").stdout, "RL304")
    assert props["endLine"] == props["line"]
    assert int(props["endColumn"]) > int(props["col"]) > 0


def test_files_are_named_from_the_git_top_level_when_run_from_a_subfolder(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_documents(repository / "recipes", {RECIPE: UNDERSCORE})
    monkeypatch.chdir(repository / "recipes" / "models")
    props = _only(run("check", "acme", "--format", "github").stdout, "RL304")
    assert props["file"] == f"recipes/{RECIPE}"


def test_github_workspace_is_the_root_in_a_workflow(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a runner GITHUB_WORKSPACE is the checkout, whatever git would say."""
    write_documents(repository / "recipes", {RECIPE: UNDERSCORE})
    monkeypatch.chdir(repository / "recipes" / "models")
    output = run("check", "acme", "--format", "github", workspace=str(repository / "recipes"))
    assert _only(output.stdout, "RL304")["file"] == RECIPE


def test_outside_a_repository_files_are_named_from_the_current_folder(
    tmp_path: Path, embedded_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(embedded_tree, tree)
    write_documents(tree, {RECIPE: UNDERSCORE})
    monkeypatch.chdir(tree / "models")
    props = _only(run("check", "acme", "--format", "github").stdout, "RL304")
    assert props["file"] == "acme/demo.yaml"
