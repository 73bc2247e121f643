"""`recipelint diff`: resolved-command changes between two trees or two git revisions.

The trees are copies of the project's own embedded tree (recipes/) with edits
made here; each expectation follows from the edit, and the flags are also checked
against the argv the compiler publishes for that rendering.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import EMBEDDED_TREE

from recipelint.compile.compiler import compile_tree
from recipelint.report.diffing import (
    Change,
    RenderingKey,
    command_settings,
    diff_as_markdown,
    diff_renderings,
    markdown_code,
    parse_flags,
)

RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
QWEN = "Qwen/Qwen2.5-7B-Instruct"
H100_TP = RenderingKey(QWEN, "default", "h100", "single_node_tp")
XEON_TP = RenderingKey(QWEN, "default", "xeon6", "single_node_tp")


def _edit(tree: Path, rel: str, old: str, new: str) -> None:
    path = tree / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _flag_edits(tree: Path) -> None:
    """hermes -> qwen3 parser, a new --max-num-seqs, a changed CPU env value."""
    _edit(
        tree,
        RECIPE,
        '      - "hermes"\n',
        '      - "qwen3"\n      - "--max-num-seqs"\n      - "64"\n',
    )
    _edit(tree, RECIPE, 'VLLM_CPU_KVCACHE_SPACE: "40"', 'VLLM_CPU_KVCACHE_SPACE: "80"')


def _documents(tree: Path) -> dict[str, Any]:
    result = compile_tree(tree)
    return {path: result.files.document(path) for path in result.files.paths()}


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    where = tmp_path_factory.mktemp("diff")
    old, new = where / "old", where / "new"
    shutil.copytree(EMBEDDED_TREE, old)
    shutil.copytree(EMBEDDED_TREE, new)
    _flag_edits(new)
    return old, new


@pytest.fixture(scope="module")
def compiled(trees: tuple[Path, Path]) -> tuple[dict[str, Any], dict[str, Any]]:
    return _documents(trees[0]), _documents(trees[1])


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from recipelint.cli import run; run()", "diff", *args]
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


# ---------------------------------------------------------------- flags


def test_parse_flags() -> None:
    argv = [
        "vllm",
        "serve",
        "org/m",
        "--tp",
        "8",
        "--enforce-eager",
        "--x=1",
        "-O3",
        "--middleware",
        "a",
        "--middleware",
        "b",
        "--json",
        '{"a": 1}',
        "--neg",
        "-1",
    ]
    assert parse_flags(argv) == {
        "command": ("vllm serve org/m",),
        "--tp": ("8",),
        "--enforce-eager": (None,),
        "--x": ("1",),
        "-O3": (None,),
        "--middleware": ("a", "b"),
        "--json": ('{"a": 1}',),
        "--neg": ("-1",),
    }


def test_settings_of_every_role() -> None:
    rendering = {
        "hardware": "h",
        "strategy": "pd",
        "variant": "default",
        "env": {"A": "1"},
        "prefill": {
            "argv": ["vllm", "serve", "m", "--port", "8001"],
            "env": {"B": 2},
            "docker_argv": ["docker", "run"],
        },
        "head_argv": ["vllm", "serve", "m", "--rank", "0"],
        "worker_argv": ["vllm", "serve", "m", "--rank", "1"],
        "worker_argvs": [
            ["vllm", "serve", "m", "--rank", "1"],
            ["vllm", "serve", "m", "--rank", "2"],
        ],
        "strategy_spec": {"vllm_args": ["--ignored"], "argv": ["not", "a", "command"]},
        "argv": ["vllm", "serve", "m", "--top"],
        "command": "vllm serve m --top --not-read-twice",
        "router": {"command": "# one per cluster\nvllm-router --policy rr \\\n  --port 'a b' -v=2"},
    }
    assert command_settings(rendering) == {
        "": {"env A": ("1",), "command": ("vllm serve m",), "--top": (None,)},
        "prefill": {"command": ("vllm serve m",), "--port": ("8001",), "env B": ("2",)},
        "head": {"command": ("vllm serve m",), "--rank": ("0",)},
        "worker[0]": {"command": ("vllm serve m",), "--rank": ("1",)},
        "worker[1]": {"command": ("vllm serve m",), "--rank": ("2",)},
        "router": {
            "command": ("vllm-router",),
            "--policy": ("rr",),
            "--port": ("a b",),
            "-v": ("2",),
        },
    }


# ---------------------------------------------------------------- trees


def test_flag_changes_in_every_rendering_of_the_recipe(compiled: tuple[dict, dict]) -> None:
    old, new = compiled
    result = diff_renderings(old, new)
    assert result.added == [] and result.removed == [] and result.recommended == {}
    assert {key.recipe for key in result.changed} == {QWEN}
    assert result.changed[H100_TP] == [
        Change("", "flag", "--max-num-seqs", None, ("64",)),
        Change("", "flag", "--tool-call-parser", ("hermes",), ("qwen3",)),
    ]
    assert Change("", "env", "VLLM_CPU_KVCACHE_SPACE", ("40",), ("80",)) in result.changed[XEON_TP]
    # the awq variant is published under its own model id but belongs to this recipe
    assert RenderingKey(QWEN, "awq", "h100", "single_node_tp") in result.changed
    # every rendering of the recipe changed: count them in the compiled output
    rendered = {
        p
        for p, d in new.items()
        if isinstance(d, dict)
        and "strategy" in d
        and (p.startswith(QWEN + "/") or p.startswith(QWEN + "-AWQ/"))
    }
    keys = {(new[p]["variant"], new[p]["hardware"], new[p]["strategy"]) for p in rendered}
    assert {(k.variant, k.hardware, k.strategy) for k in result.changed} == keys


def test_changes_agree_with_the_published_argv(compiled: tuple[dict, dict]) -> None:
    old, new = compiled
    before = old[f"{QWEN}/hw/h100.json"]["argv"]
    after = new[f"{QWEN}/hw/h100.json"]["argv"]
    assert "--max-num-seqs" not in before and after[after.index("--max-num-seqs") + 1] == "64"
    parser = after.index("--tool-call-parser") + 1
    assert (before[before.index("--tool-call-parser") + 1], after[parser]) == ("hermes", "qwen3")


def test_renderings_appear_and_disappear(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(EMBEDDED_TREE, old)
    shutil.copytree(EMBEDDED_TREE, new)
    # The awq variant goes away; nothing else changes.
    text = (new / RECIPE).read_text(encoding="utf-8")
    start, end = text.index("  awq:\n"), text.index("\ncompatible_strategies:")
    (new / RECIPE).write_text(text[:start] + text[end:], encoding="utf-8")
    result = diff_renderings(_documents(old), _documents(new))
    assert result.changed == {} and result.added == []
    assert result.removed and {k.variant for k in result.removed} == {"awq"}
    assert {k.recipe for k in result.removed} == {QWEN}
    back = diff_renderings(_documents(new), _documents(old))
    assert back.added == result.removed and back.removed == []


def test_recommended_strategy_change(tmp_path: Path) -> None:
    """Dropping the default strategy moves the recommendation and removes its renderings."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(EMBEDDED_TREE, old)
    shutil.copytree(EMBEDDED_TREE, new)
    recipe = "models/deepseek-ai/DeepSeek-V3.1.yaml"
    _edit(new, recipe, "  - single_node_tep\n", "")
    _edit(new, recipe, "default_strategy: single_node_tep\n", "")
    old_docs, new_docs = _documents(old), _documents(new)
    result = diff_renderings(old_docs, new_docs)
    assert result.removed and {k.strategy for k in result.removed} == {"single_node_tep"}
    assert result.recommended
    for (recipe_id, variant, hardware), (before, after) in result.recommended.items():
        assert recipe_id == "deepseek-ai/DeepSeek-V3.1"
        base = recipe_id if variant == "default" else "nvidia/DeepSeek-V3.1-NVFP4"
        assert old_docs[f"{base}/hw/{hardware}.json"]["strategy"] == before
        assert new_docs[f"{base}/hw/{hardware}.json"]["strategy"] == after != before
    assert "single_node_tep" in {before for before, _ in result.recommended.values()}
    text = diff_as_markdown(result)
    assert "| recipe | variant | hardware | recommended strategy |" in text


def test_identical_trees_have_no_changes(trees: tuple[Path, Path]) -> None:
    done = _run(str(trees[0]), str(trees[0]), "--exit-code", cwd=trees[0].parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "no command changes\n"


def test_cli_text_lists_recipe_rendering_and_flags(trees: tuple[Path, Path]) -> None:
    done = _run("old", "new", cwd=trees[0].parent)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == QWEN
    tp = next(
        line for line in lines if line.startswith("  variant default · strategy single_node_tp · ")
    )
    assert "h100" in tp.removeprefix(
        "  variant default · strategy single_node_tp · hardware "
    ).split(", ")
    assert "      + --max-num-seqs 64" in lines
    assert "      ~ --tool-call-parser: hermes → qwen3" in lines
    assert "      ~ env VLLM_CPU_KVCACHE_SPACE: 40 → 80" in lines
    assert _run("old", "new", "--exit-code", cwd=trees[0].parent).returncode == 1


def test_cli_json_is_deterministic_and_complete(trees: tuple[Path, Path]) -> None:
    first = _run("old", "new", "--format", "json", cwd=trees[0].parent)
    second = _run("old", "new", "--format", "json", cwd=trees[0].parent)
    assert first.returncode == 0 and first.stdout == second.stdout
    data = json.loads(first.stdout)
    entry = next(
        e
        for e in data["changed"]
        if (e["variant"], e["hardware"], e["strategy"]) == ("default", "h100", "single_node_tp")
    )
    assert entry["recipe"] == QWEN
    assert {
        "role": "",
        "kind": "flag",
        "name": "--max-num-seqs",
        "old": None,
        "new": ["64"],
        "status": "added",
    } in entry["changes"]
    assert data["added"] == data["removed"] == data["recommended"] == []


# ---------------------------------------------------------------- markdown


def _cells(row: str) -> list[str]:
    """Split a table row as GitHub (cmark-gfm) does: a pipe after a backslash is content."""
    return re.split(r"(?<!\\)\|", row.strip()[1:-1])


def test_markdown_code_is_inert() -> None:
    assert markdown_code("a|b") == "`a\\|b`"
    assert markdown_code("a\\|b") == "`a\\\\|b`"
    assert markdown_code("x`y") == "``x`y``"
    assert markdown_code("`edge`") == "`` `edge` ``"
    assert markdown_code("line\nbreak") == "`line\\nbreak`"


def test_markdown_table_survives_hostile_values(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(EMBEDDED_TREE, old)
    shutil.copytree(EMBEDDED_TREE, new)
    hostile = "a|b</td><script>alert(1)</script>\\n| x | y |\\n``<img src=x onerror=alert(1)>\\\\|z"
    _edit(new, RECIPE, '      - "hermes"\n', f'      - "{hostile}"\n')
    output = diff_as_markdown(diff_renderings(_documents(old), _documents(new)))
    rows = [line for line in output.splitlines() if line.startswith("| ")]
    assert len(rows) > 1
    for row in rows:
        assert len(_cells(row)) == 3, row
        # outside code spans the only markup is our own <br>
        outside = "".join(row.split("`")[::2])
        assert "<" not in outside.replace("<br>", "")
    assert "<script>" in output  # still shown, inside a code span
    assert "\n| x | y |" not in output
    cmarkgfm = pytest.importorskip("cmarkgfm", reason="GitHub's Markdown parser")
    html = cmarkgfm.github_flavored_markdown_to_html(
        output, options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE
    )
    assert "<script>" not in html and "<img" not in html and "&lt;script&gt;" in html
    body_rows = html.split("<tbody>")[1].split("</tbody>")[0].count("<tr>")
    assert body_rows == len(rows) - 1 and html.count("<td>") == 3 * body_rows
    assert "a|b&lt;/td&gt;" in html and "\\|z" in html  # the value survives intact


# ---------------------------------------------------------------- git revisions


def _git(repo: Path, *args: str) -> str:
    identity = [
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    done = subprocess.run(
        ["git", *identity, *args], cwd=repo, check=True, capture_output=True, text=True, timeout=60
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two commits: the embedded tree under recipes/, then the flag edits."""
    root = tmp_path_factory.mktemp("gitdiff") / "repo"
    shutil.copytree(EMBEDDED_TREE, root / "recipes")
    _git(root.parent, "init", "-q", str(root))
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "tree")
    _flag_edits(root / "recipes")
    _git(root, "commit", "-q", "-am", "flags")
    return root


def test_two_revisions_match_the_folder_diff(repo: Path, trees: tuple[Path, Path]) -> None:
    by_revision = _run("HEAD~1", "HEAD", "--format", "json", cwd=repo)
    by_folder = _run(str(trees[0]), str(trees[1]), "--format", "json", cwd=repo)
    assert by_revision.returncode == 0, by_revision.stderr
    assert json.loads(by_revision.stdout) == json.loads(by_folder.stdout)
    assert json.loads(by_revision.stdout)["changed"]


def test_revision_against_the_work_tree_from_inside_the_tree(repo: Path) -> None:
    inside = repo / "recipes" / "models"
    done = _run("HEAD~1", str(repo / "recipes"), cwd=inside)
    assert done.returncode == 0, done.stderr
    assert "      + --max-num-seqs 64" in done.stdout.splitlines()
    assert _run("HEAD", "HEAD", cwd=inside).stdout == "no command changes\n"


def test_revision_without_the_tree(repo: Path, tmp_path: Path) -> None:
    """Missing on both sides is a wrong --tree; missing on one side is a tree being added."""
    done = _run("HEAD~1", "HEAD", "--tree", "elsewhere", cwd=repo)
    assert done.returncode == 2 and "--tree" in done.stderr, done.stdout + done.stderr
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(repo), str(clone))
    _git(clone, "mv", "recipes", "tree")
    _git(clone, "commit", "-q", "-m", "move")
    moved = _run("HEAD~1", "HEAD", "--tree", "tree", "--format", "json", cwd=clone)
    assert moved.returncode == 0, moved.stderr
    data = json.loads(moved.stdout)
    assert data["added"] and not data["removed"] and not data["changed"]


@pytest.mark.parametrize(
    "spec",
    [
        "--output=pwned.tar",
        "-h",
        "HEAD;touch pwned",
        "no-such-rev",
        "HEAD:recipes",
        "$(touch pwned)",
    ],
)
def test_bad_revisions_are_usage_errors(repo: Path, spec: str) -> None:
    # after `--` click passes option-like names through: recipelint must refuse them
    done = _run("--", spec, "HEAD", cwd=repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "neither a folder nor a revision" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(repo.glob("pwned*"))


def test_outside_a_repository(tmp_path: Path) -> None:
    done = _run("HEAD~1", "HEAD", cwd=tmp_path)
    assert done.returncode == 2 and "not in a git repository" in done.stderr


def test_tree_option_cannot_leave_the_repository(repo: Path) -> None:
    done = _run("HEAD~1", "HEAD", "--tree", "../x", cwd=repo)
    assert done.returncode == 2 and "--tree" in done.stderr
