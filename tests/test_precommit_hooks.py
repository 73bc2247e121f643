"""The pre-commit hooks as their users run them.

The offline tests check the hook manifest and the project's own configuration
with pre-commit's validators and check that the hooks' file patterns pick
exactly the recipe-tree files. The network test builds the hook environment from
this checkout with `pre-commit try-repo` (pip installs recipelint and its
dependencies from PyPI) and runs it on a throw-away recipe repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import EMBEDDED_TREE, PROJECT_ROOT

HOOKS_FILE = PROJECT_ROOT / ".pre-commit-hooks.yaml"
CONFIG_FILE = PROJECT_ROOT / ".pre-commit-config.yaml"
DEFECT_FILE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"


def _hooks() -> dict[str, dict]:
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS_FILE.read_text(encoding="utf-8"))}


def _pre_commit(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", *args]
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def pre_commit_available() -> None:
    pytest.importorskip("pre_commit", reason="pre-commit is in the test extra")


def test_manifest_is_valid(pre_commit_available: None) -> None:
    done = _pre_commit("validate-manifest", str(HOOKS_FILE), cwd=PROJECT_ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(_hooks()) == {"recipelint", "recipelint-compile"}


def test_own_config_is_valid(pre_commit_available: None) -> None:
    done = _pre_commit("validate-config", str(CONFIG_FILE), cwd=PROJECT_ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


TREE_FILES = [
    "models/Qwen/Qwen2.5-7B-Instruct.yaml",
    "models/nvidia/X.yml",
    "strategies/single_node_tp.yaml",
    "kv_store/kv_store_centralized_mooncake.yaml",
    "taxonomy.yaml",
    "platforms.yaml",
    "recipes/models/google/gemma-3-27b-it.yaml",
    "recipes/taxonomy.yaml",
    "recipes/strategies/pd_cluster.yaml",
]
OTHER_YAML = [
    ".pre-commit-config.yaml",
    ".github/workflows/recipelint.yml",
    "strategies/nested/x.yaml",
    "docs/taxonomy.md",
    "mytaxonomy.yaml",
    # Helm charts and other deploy YAML that merely sit in a folder named models/
    "deploy/helm/models/values.yaml",
    "models/values.yaml",
    "models/acme/sub/deep/x.yaml",
    "models/acme/x.json",
    "models/acme/x.yaml.bak",
    # names the tree never reads: it lists taxonomy.yaml, platforms.yaml and *.yaml there
    "taxonomy.yml",
    "platforms.yml",
    "strategies/x.yml",
    "kv_store/x.yml",
    "mystrategies/x.yaml",
    "schemas/recipe.schema.yaml",
]
COMPILE_ONLY = ["quickstart/h100.yaml", "recipes/quickstart/h100.yaml"]


@pytest.mark.parametrize("hook_id", ["recipelint", "recipelint-compile"])
def test_hooks_take_tree_files_only(hook_id: str) -> None:
    pattern = re.compile(_hooks()[hook_id]["files"])
    assert [f for f in TREE_FILES if not pattern.search(f)] == []
    assert [f for f in OTHER_YAML if pattern.search(f)] == []
    # quickstart/ pages feed only the compile
    assert [bool(pattern.search(f)) for f in COMPILE_ONLY] == [
        hook_id == "recipelint-compile"
    ] * len(COMPILE_ONLY)


def test_check_hook_runs_once_on_the_files_passed() -> None:
    hook = _hooks()["recipelint"]
    assert hook["entry"] == "recipelint check"
    assert hook.get("pass_filenames", True) is True
    # every invocation loads the whole tree: pre-commit must not split the files
    assert hook["require_serial"] is True


def test_compile_hook_compiles_the_tree_not_the_files() -> None:
    hook = _hooks()["recipelint-compile"]
    assert hook["entry"].split() == ["recipelint", "compile", "--dry-run"]
    assert hook["pass_filenames"] is False
    assert hook["args"] == ["."]


# ---------------------------------------------------------------- try-repo


def _git(repo: Path, *args: str) -> None:
    identity = [
        "-c",
        "user.name=recipelint test",
        "-c",
        "user.email=test@example.invalid",
        "-c",
        "commit.gpgsign=false",
        "-c",
        "init.defaultBranch=main",
    ]
    subprocess.run(["git", *identity, *args], cwd=repo, check=True, capture_output=True, timeout=60)


def _recipe_repo(where: Path) -> Path:
    """A git repository holding a copy of the project's own (clean) embedded tree."""
    repo = where / "recipes-repo"
    shutil.copytree(EMBEDDED_TREE, repo)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "recipes")
    return repo


def _plant_duplicate_key(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    original = '  title: "Qwen2.5-7B-Instruct"\n'
    assert original in text
    path.write_text(
        text.replace(original, original + '  title: "Qwen2.5 again"\n', 1), encoding="utf-8"
    )
    return text


@pytest.mark.slow
@pytest.mark.network
def test_try_repo_fails_on_a_defect_and_passes_once_fixed(
    tmp_path: Path, pre_commit_available: None
) -> None:
    if not (PROJECT_ROOT / ".git").exists():
        pytest.skip("this checkout is not a git repository: try-repo needs one")
    repo = _recipe_repo(tmp_path)
    # try-repo uses a temporary store of its own; the private home keeps anything
    # else pre-commit writes out of the user's cache.
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("PRE_COMMIT", None)
    defect = repo / DEFECT_FILE
    original = _plant_duplicate_key(defect)
    _git(repo, "add", DEFECT_FILE)

    started = time.monotonic()
    failed = _pre_commit(
        "try-repo", str(PROJECT_ROOT), "recipelint", "--all-files", cwd=repo, env=env, timeout=900
    )
    first_run = time.monotonic() - started
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert f"{DEFECT_FILE}:3:3: RL002" in output, output
    assert "duplicate key 'title'" in output

    defect.write_text(original, encoding="utf-8")
    _git(repo, "add", DEFECT_FILE)
    # Fixed: both hooks of the manifest pass.
    passed = _pre_commit(
        "try-repo", str(PROJECT_ROOT), "--all-files", cwd=repo, env=env, timeout=900
    )
    assert passed.returncode == 0, passed.stdout + passed.stderr
    for name in ("recipelint", "recipelint compile --dry-run"):
        assert re.search(rf"^{re.escape(name)}\.+Passed$", passed.stdout, re.MULTILINE), (
            passed.stdout
        )
    total = time.monotonic() - started
    # try-repo builds the hook environment afresh, in a temporary store, on every run.
    print(f"\npre-commit try-repo: {first_run:.1f} s for the first run, {total:.1f} s for both")
