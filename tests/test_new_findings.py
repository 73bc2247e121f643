"""Only what a change introduces: `check --new-from-rev REV`, `--baseline` and `--write-baseline`.

Each test is a small synthetic pull request: a git repository holding a copy of the
embedded tree under recipes/, a base commit, and a head commit with an edit made here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import EMBEDDED_TREE

from recipelint.cli import main

RECIPE = "recipes/models/Qwen/Qwen2.5-7B-Instruct.yaml"
DATES = "  date_added: 2026-11-29\n  date_updated: 2026-11-29\n"
BAD_DATES = "  date_added: 2026-11-29\n  date_updated: 2026-11-31\n"  # RL106: no such day
HARDWARE = "    h100: verified\n"
BAD_HARDWARE = "    h100: verified\n    h1000: verified\n"  # RL201


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


def _edit(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _commit(repo: Path, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(EMBEDDED_TREE, root / "recipes")
    _git(tmp_path, "init", "-q", str(root))
    _commit(root, "base")
    return root


def _check(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[dict], str]:
    monkeypatch.chdir(repo)
    status = main(["check", "--format", "json", "--jobs", "1", *args])
    out, err = capsys.readouterr()
    return status, json.loads(out) if out.strip() else [], err


def _codes(found: list[dict]) -> list[str]:
    return [f["code"] for f in found if f["severity"] in ("error", "warning")]


def test_a_finding_present_at_the_base_is_not_reported_even_when_its_lines_move(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, RECIPE, DATES, BAD_DATES)
    _commit(repo, "base with a defect")
    # The pull request adds lines above the old defect and changes nothing else of it.
    _edit(repo, RECIPE, "meta:\n", "# a comment\n# another\nmeta:\n")
    _commit(repo, "unrelated edit above")

    status, whole, _ = _check(repo, monkeypatch, capsys, "recipes")
    assert "RL106" in _codes(whole) and status == 1
    status, new, err = _check(repo, monkeypatch, capsys, "--new-from-rev", "HEAD~1", "recipes")
    assert new == [] and status == 0
    assert f"{len(whole)} findings were already present at HEAD~1 (not shown)" in err


def test_a_finding_the_change_introduces_is_reported(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, RECIPE, DATES, BAD_DATES)
    _commit(repo, "base with a defect")
    _edit(repo, RECIPE, HARDWARE, BAD_HARDWARE)
    _commit(repo, "a new defect")

    status, new, err = _check(repo, monkeypatch, capsys, "--new-from-rev", "HEAD~1", "recipes")
    assert _codes(new) == ["RL201"] and status == 1
    assert "h1000" in new[0]["message"] and new[0]["line"] == 15
    assert "findings were already present" in err


def test_one_more_copy_of_a_known_finding_is_new(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    nemotron = "recipes/models/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.yaml"
    for rel in (RECIPE,):
        _edit(repo, rel, DATES, BAD_DATES)
    _commit(repo, "one defect")
    text = (repo / nemotron).read_text(encoding="utf-8")
    start = text.index("  date_added:")
    end = text.index("\n", text.index("  date_updated:")) + 1
    (repo / nemotron).write_text(text[:start] + BAD_DATES + text[end:], encoding="utf-8")
    _commit(repo, "the same defect in another recipe")

    status, new, _ = _check(repo, monkeypatch, capsys, "--new-from-rev", "HEAD~1", "recipes")
    assert [(f["code"], f["path"]) for f in new] == [
        ("RL106", "recipes/models/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.yaml")
    ]
    assert status == 1


def test_a_tree_absent_at_the_base_has_only_new_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(tmp_path, "init", "-q", str(root))
    (root / "README.md").write_text("no tree yet\n", encoding="utf-8")
    _commit(root, "before the tree")
    shutil.copytree(EMBEDDED_TREE, root / "recipes")
    _edit(root, RECIPE, DATES, BAD_DATES)
    _commit(root, "the tree arrives")

    status, whole, _ = _check(root, monkeypatch, capsys, "recipes")
    status, new, err = _check(root, monkeypatch, capsys, "--new-from-rev", "HEAD~1", "recipes")
    assert new == whole and "RL106" in _codes(new) and status == 1
    assert "already present" not in err


def test_a_revision_that_names_no_commit_is_a_usage_error(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    assert main(["check", "--new-from-rev", "--upload-pack=evil", "recipes"]) == 2
    assert main(["check", "--new-from-rev", "no-such-branch", "recipes"]) == 2
    err = capsys.readouterr().err
    assert "names no commit" in err and "Traceback" not in err


def test_fingerprints_survive_line_shifts_and_reach_json_and_sarif(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, RECIPE, DATES, BAD_DATES)
    _, before, _ = _check(repo, monkeypatch, capsys, "recipes")
    _edit(repo, RECIPE, "meta:\n", "# moved\nmeta:\n")
    _, after, _ = _check(repo, monkeypatch, capsys, "recipes")
    assert before[0]["line"] + 1 == after[0]["line"]
    assert (
        before[0]["fingerprint"] == after[0]["fingerprint"] and len(after[0]["fingerprint"]) == 20
    )
    main(["check", "--format", "sarif", "--jobs", "1", "recipes"])
    sarif = json.loads(capsys.readouterr().out)
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "RL106"]
    assert result["partialFingerprints"] == {"recipelintFingerprint/v2": after[0]["fingerprint"]}


def test_a_baseline_adopts_existing_findings_and_reports_stale_entries(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, RECIPE, DATES, BAD_DATES)
    monkeypatch.chdir(repo)
    assert main(["check", "--select", "RL106", "--write-baseline", "baseline.json", "recipes"]) == 0
    assert "wrote 1 finding to the baseline" in capsys.readouterr().err
    document = json.loads((repo / "baseline.json").read_text(encoding="utf-8"))
    [entry] = document["findings"]
    assert entry["path"] == "models/Qwen/Qwen2.5-7B-Instruct.yaml" and entry["code"] == "RL106"
    assert entry["pointer"] == "/meta/date_updated"

    selected = ("--select", "RL106,RL2", "--baseline", "baseline.json", "recipes")
    status, new, err = _check(repo, monkeypatch, capsys, *selected)
    assert new == [] and status == 0 and "already present in baseline.json" in err

    _edit(repo, RECIPE, HARDWARE, BAD_HARDWARE)
    status, new, _ = _check(repo, monkeypatch, capsys, *selected)
    assert _codes(new) == ["RL201"] and status == 1

    _edit(repo, RECIPE, BAD_DATES, DATES)
    _edit(repo, RECIPE, BAD_HARDWARE, HARDWARE)
    status, new, err = _check(repo, monkeypatch, capsys, *selected)
    assert new == [] and status == 0
    assert "1 baseline entry match no finding any more" in err and "RL106" in err


@pytest.mark.parametrize(
    "content", ["not json", "[]", '{"recipelint-baseline": 1, "findings": [1]}']
)
def test_an_unreadable_baseline_is_a_usage_error(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    (repo / "baseline.json").write_text(content, encoding="utf-8")
    monkeypatch.chdir(repo)
    assert main(["check", "--baseline", "baseline.json", "recipes"]) == 2
    assert "baseline" in capsys.readouterr().err


def test_a_named_file_outside_any_tree_is_skipped_with_a_note(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    values = repo / "deploy" / "helm" / "models" / "values.yaml"
    values.parent.mkdir(parents=True)
    values.write_text("replicas: 2\n", encoding="utf-8")
    _edit(repo, RECIPE, DATES, BAD_DATES)
    status, found, err = _check(
        repo, monkeypatch, capsys, "--select", "RL106", str(values.relative_to(repo)), RECIPE
    )
    assert "skipped deploy/helm/models/values.yaml: not inside a recipe tree" in err
    assert _codes(found) == ["RL106"] and status == 1
    monkeypatch.chdir(repo)
    assert main(["check", "deploy"]) == 2  # a named folder outside a tree is a mistake


def test_an_item_inserted_before_a_known_finding_leaves_it_known(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fingerprint is the finding's cause, not its list index: a pull request that puts
    a flag in front of an old misspelt one does not make the old one new."""
    _edit(repo, RECIPE, "  base_args: []\n", '  base_args: ["--max-model-length", "8192"]\n')
    _commit(repo, "base with a misspelt flag")
    _edit(repo, RECIPE, '["--max-model-length"', '["--enforce-eager", "--max-model-length"')
    _commit(repo, "a flag inserted in front of it")

    _, whole, _ = _check(repo, monkeypatch, capsys, "recipes")
    assert "RL350" in _codes(whole)
    status, new, _ = _check(repo, monkeypatch, capsys, "--new-from-rev", "HEAD~1", "recipes")
    assert new == [] and status == 0


def test_a_reworded_message_keeps_its_fingerprint(tmp_path: Path) -> None:
    """A new release of recipelint that rewords a message keeps the baseline matching."""
    import dataclasses

    from recipelint.diagnostics import Diagnostic, Severity, Span
    from recipelint.report.baseline import fingerprint

    path = tmp_path / "models" / "a.yaml"
    path.parent.mkdir(parents=True)
    path.write_text('model:\n  base_args: ["--max-model-length", "8192"]\n', encoding="utf-8")
    old = Diagnostic(
        path,
        Span(2, 15, 2, 33),
        "RL350",
        Severity.ERROR,
        "`--max-model-length` is not a `vllm serve` flag in any release of vllm 0.8.5..0.34.0",
        pointer=("model", "base_args", 0),
    )
    reworded = dataclasses.replace(
        old, message="no vllm release 0.8.5..0.34.0 accepts the flag `--max-model-length`"
    )
    assert fingerprint(reworded, tmp_path) == fingerprint(old, tmp_path)
    other_release = dataclasses.replace(old, message=old.message.replace("0.8.5", "0.9.0"))
    assert fingerprint(other_release, tmp_path) != fingerprint(old, tmp_path)


def test_a_known_finding_copied_to_new_lines_is_one_notice_naming_the_base_place(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--async-scheduling` needs vLLM 0.10.0 and the recipe claims 0.8.5: the base has that
    in base_args; a change that copies the flag into two variants repeats it, once."""
    _edit(repo, RECIPE, "  base_args: []\n", '  base_args: ["--async-scheduling"]\n')
    _commit(repo, "base with a defect")
    _edit(
        repo,
        RECIPE,
        "    precision: bf16\n",
        '    precision: bf16\n    extra_args: ["--async-scheduling"]\n',
    )
    _edit(
        repo,
        RECIPE,
        "    precision: awq\n",
        '    precision: awq\n    extra_args: ["--async-scheduling"]\n',
    )
    _commit(repo, "the flag copied into each variant")

    status, found, _ = _check(repo, monkeypatch, capsys, "--new-from-rev", "HEAD~1", "recipes")
    assert _codes(found) == [] and status == 0
    [notice] = [f for f in found if f["code"] == "RL358"]
    assert notice["severity"] == "info"
    line = (repo / RECIPE).read_text(encoding="utf-8").split("\n").index(
        '  base_args: ["--async-scheduling"]'
    ) + 1
    assert notice["message"].endswith(
        f"(a known problem: the base revision has it at models/Qwen/Qwen2.5-7B-Instruct.yaml:"
        f"{line}; this change repeats it in 2 places)"
    )


def test_a_new_cause_beside_a_known_one_still_fails(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, RECIPE, "  base_args: []\n", '  base_args: ["--async-scheduling"]\n')
    _commit(repo, "base with a defect")
    _edit(
        repo,
        RECIPE,
        "    precision: awq\n",
        '    precision: awq\n    extra_args: ["--async-scheduling", "--bogus-flag"]\n',
    )
    _commit(repo, "a copy and a new defect")

    status, found, _ = _check(repo, monkeypatch, capsys, "--new-from-rev", "HEAD~1", "recipes")
    assert _codes(found) == ["RL350"] and status == 1
