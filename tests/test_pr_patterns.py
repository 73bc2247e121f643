"""Synthetic pull requests for the patterns real ones showed, judged as the action judges them.

Each test commits the embedded tree as the base, makes the pull request's edit, and runs
`recipelint check --new-from-rev BASE` on the paths the edit touches (as pre-commit and the
action pass them). The assertion is the whole list of annotations, errors and warnings:
each must ask the author for the real fix, once, at the right line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import EMBEDDED_TREE

from recipelint.cli import main

QWEN = "models/Qwen/Qwen2.5-7B-Instruct.yaml"


def _git(repo: Path, *args: str) -> str:
    identity = [
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    return subprocess.run(
        ["git", *identity, *args], cwd=repo, check=True, capture_output=True, text=True, timeout=60
    ).stdout.strip()


def _edit(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(EMBEDDED_TREE, root)
    _git(tmp_path, "init", "-q", str(root))
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    return root


def _annotations(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *paths: str
) -> tuple[int, list[dict], list[dict]]:
    """Exit status, the annotated findings (errors and warnings), and the notes."""
    monkeypatch.chdir(repo)
    status = main(["check", "--format", "json", "--jobs", "1", "--new-from-rev", "HEAD", *paths])
    found = json.loads(capsys.readouterr().out)
    annotated = [f for f in found if f["severity"] in ("error", "warning")]
    return status, annotated, [f for f in found if f["severity"] == "info"]


def _committed_base(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    subject: str,
    code: str,
) -> list[dict]:
    """Commit the edits so far as the base; the base's findings of ``code`` in QWEN."""
    _git(repo, "commit", "-qam", subject)
    monkeypatch.chdir(repo)
    main(["check", "--format", "json", "--select", code, QWEN])
    found: list[dict] = json.loads(capsys.readouterr().out)
    return found


def test_a_pre_existing_finding_is_not_annotated(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The base tree's two RL355 warnings are in the Nemotron recipe: editing it adds none.
    nemotron = "models/nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"
    _edit(repo, nemotron, "meta:\n", "# reviewed\nmeta:\n")
    status, annotated, _ = _annotations(repo, monkeypatch, capsys, nemotron)
    assert status == 0 and annotated == []


def test_a_renamed_recipe_keeps_its_known_findings(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A rename alone (PR 639: inkling.yaml -> Inkling.yaml) re-reported every finding as new.
    nemotron = "models/nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"
    renamed = "models/nvidia/Nemotron-3.5-Lightning.yaml"
    _git(repo, "mv", nemotron, renamed)
    _edit(repo, renamed, "meta:\n", "# moved\nmeta:\n")
    _, annotated, _ = _annotations(repo, monkeypatch, capsys, renamed)
    assert [f["code"] for f in annotated if f["code"] == "RL355"] == []
    # The same tree without the base's history of the file: both RL355 are there to keep.
    monkeypatch.chdir(repo)
    main(["check", "--format", "json", "--jobs", "1", renamed])
    found = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in found if f["code"] == "RL355"] == ["RL355", "RL355"]


def test_a_rename_keeps_a_known_finding_that_names_the_file(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # PR 639 renamed inkling.yaml to Inkling.yaml: RL209 names the id the path publishes.
    _edit(
        repo, QWEN, 'model_id: "Qwen/Qwen2.5-7B-Instruct"\n', 'model_id: "Qwen/Qwen2.5-7B-Chat"\n'
    )
    _git(repo, "commit", "-qam", "a mismatch the base already has")
    renamed = "models/Qwen/qwen2.5-7b-instruct.yaml"
    _git(repo, "mv", QWEN, renamed)
    _, annotated, _ = _annotations(repo, monkeypatch, capsys, renamed)
    assert [f["code"] for f in annotated if f["code"] == "RL209"] == []


def test_a_new_variant_a_known_deployment_problem_reaches_is_a_notice(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # PRs 541/717/784: each new variant re-listed DeepSeek-V4-Flash's DP 4 on a 1-GPU box.
    _edit(repo, QWEN, "  - single_node_tp\n", "  - single_node_tp\n  - single_node_dep\n")
    _edit(
        repo,
        QWEN,
        "  single_node_tp:\n    tp: 1\n",
        '  single_node_tp:\n    tp: 1\n  single_node_dep:\n    extra_args: ["--data-parallel-size", "64"]\n',
    )
    known = _committed_base(
        repo, monkeypatch, capsys, "a deployment problem the base already has", "RL380"
    )
    assert known and all("variants `default`, `awq`" in f["message"] for f in known)
    _edit(
        repo,
        QWEN,
        "compatible_strategies:\n",
        "  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n\ncompatible_strategies:\n",
    )
    status, annotated, notes = _annotations(repo, monkeypatch, capsys, QWEN)
    assert status == 0 and [f["code"] for f in annotated if f["code"] == "RL380"] == []
    [notice] = [f for f in notes if f["code"] == "RL380"]
    assert "`fp8`" in notice["message"] and "a known problem" in notice["message"]


def test_a_broken_taxonomy_is_the_one_finding_not_every_hardware_id(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A merge left a hardware profile key twice: the upstream build stops at the taxonomy.
    _edit(
        repo,
        "taxonomy.yaml",
        "hardware_profiles:\n",
        "hardware_profiles:\n  h100:\n    brand: NVIDIA\n",
    )
    status, annotated, notes = _annotations(repo, monkeypatch, capsys, QWEN)
    assert status == 1
    assert [(f["path"], f["code"]) for f in annotated] == [("taxonomy.yaml", "RL002")]
    assert [f["code"] for f in notes] == [
        "RL020"
    ]  # one note for the named recipe: what was skipped
    assert "taxonomy.yaml" in notes[0]["message"]


def test_one_wrong_value_shared_by_every_variant_is_one_finding(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A mapping where a list belongs, read by both variants on every hardware and strategy.
    _edit(repo, QWEN, "  base_args: []\n", "  base_args:\n    enforce_eager: true\n")
    status, annotated, _ = _annotations(repo, monkeypatch, capsys, QWEN)
    assert status == 1
    assert [(f["code"], f["line"]) for f in annotated] == [("RL102", 28)]  # the mapping itself


def _guide_block(repo: Path, command: str, before: str = "") -> None:
    """Add a bash block with ``command`` to QWEN's guide, above its Client Usage section."""
    block = f"  {before}```bash\n  {command}\n  ```\n\n  ## Client Usage\n"
    _edit(repo, QWEN, "  ## Client Usage\n", block)


def test_a_guide_finding_points_at_its_own_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _guide_block(repo, "vllm serve acme/other-model", "Or serve the other model:\n\n  ")
    status, annotated, _ = _annotations(repo, monkeypatch, capsys, QWEN)
    line = (repo / QWEN).read_text(encoding="utf-8").splitlines().index(
        "  vllm serve acme/other-model"
    ) + 1
    assert [(f["code"], f["line"], f["column"]) for f in annotated] == [("RL603", line, 14)]
    assert status == 0  # a warning


def test_a_new_field_declared_by_an_overlay_in_the_same_pull_request(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(
        repo, QWEN, "  context_length: 32768\n", '  context_length: 32768\n  quant_recipe: "none"\n'
    )
    status, annotated, _ = _annotations(repo, monkeypatch, capsys, QWEN)
    assert [f["code"] for f in annotated] == ["RL101"] and status == 1
    assert "schemas/recipe.schema.json" in annotated[0]["hint"]  # the hint names the mechanism

    overlay = {"$defs": {"model": {"properties": {"quant_recipe": {"type": "string"}}}}}
    (repo / "schemas").mkdir()
    (repo / "schemas" / "recipe.schema.json").write_text(json.dumps(overlay), encoding="utf-8")
    status, annotated, _ = _annotations(repo, monkeypatch, capsys, QWEN)
    assert annotated == [] and status == 0


def test_a_duplicate_key_is_annotated_at_the_line_the_change_added(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The pull request writes `h100:` again above the untouched entry: the loader meets the
    # untouched one second, but the line to fix is the one the change added.
    _edit(
        repo,
        "taxonomy.yaml",
        "hardware_profiles:\n",
        "hardware_profiles:\n  h100:\n    brand: NVIDIA\n",
    )
    _status, annotated, _ = _annotations(repo, monkeypatch, capsys, QWEN)
    [duplicate] = annotated
    lines = (repo / "taxonomy.yaml").read_text(encoding="utf-8").split("\n")
    added = lines.index("hardware_profiles:") + 2
    untouched = lines.index("  h100:", added) + 1
    assert (duplicate["code"], duplicate["line"], duplicate["column"]) == ("RL002", added, 3)
    assert duplicate["message"] == (
        f"duplicate key 'h100' (defined again at line {untouched}, column 3, a line this change"
        " left as it was)"
    )
    assert [r["line"] for r in duplicate["related"]] == [untouched]


def test_a_duplicate_key_the_change_adds_below_stays_at_its_own_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, QWEN, "  context_length: 32768\n", "  context_length: 32768\n  architecture: moe\n")
    _status, annotated, _ = _annotations(repo, monkeypatch, capsys, QWEN)
    [duplicate] = [f for f in annotated if f["code"] == "RL002"]
    lines = (repo / QWEN).read_text(encoding="utf-8").split("\n")
    assert duplicate["line"] == lines.index("  architecture: moe") + 1
    assert duplicate["message"].startswith("duplicate key 'architecture' (first defined at line")


def test_a_raised_minimum_that_still_misses_a_known_flag_is_a_notice(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # PRs 349/790: raising min_vllm_version re-worded a problem the base had ("no release from
    # 0.19.1 on" for "from 0.12.0 on"); the flag was there before and still fails.
    _edit(repo, QWEN, "  base_args: []\n", '  base_args: ["--async-scheduling"]\n')
    _git(repo, "commit", "-qam", "a flag newer than the minimum")
    _edit(repo, QWEN, 'min_vllm_version: "0.8.5"', 'min_vllm_version: "0.9.0"')
    status, annotated, notes = _annotations(repo, monkeypatch, capsys, QWEN)
    assert status == 0 and [f for f in annotated if f["code"] == "RL358"] == []
    [notice] = [f for f in notes if f["code"] == "RL358"]
    assert (
        "min_vllm_version is 0.9.0" in notice["message"] and "a known problem" in notice["message"]
    )


def test_a_lowered_minimum_that_newly_misses_a_flag_is_annotated(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, QWEN, 'min_vllm_version: "0.8.5"', 'min_vllm_version: "0.10.0"')
    _edit(repo, QWEN, "  base_args: []\n", '  base_args: ["--async-scheduling"]\n')
    _git(repo, "commit", "-qam", "a flag the minimum has")
    _edit(repo, QWEN, 'min_vllm_version: "0.10.0"', 'min_vllm_version: "0.8.5"')
    status, annotated, _ = _annotations(repo, monkeypatch, capsys, QWEN)
    assert [f["code"] for f in annotated if f["code"] == "RL358"] == ["RL358"] and status == 1


def test_an_override_that_drops_one_flag_fewer_is_a_notice(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # PR 700 removed a flag from the recipe's hopper block, which a strategy's hopper override
    # already dropped: the RL341 it had at base listed one flag more, and was reported as new.
    _edit(
        repo,
        QWEN,
        "  amd:\n    extra_env:\n",
        '  amd:\n    extra_args: ["--max-num-seqs", "8", "--enforce-eager"]\n    extra_env:\n',
    )
    _edit(
        repo,
        QWEN,
        "    tp: 1\n",
        '    tp: 1\n    hardware_overrides:\n      amd:\n        extra_args: ["--enable-prefix-caching"]\n',
    )
    [known] = _committed_base(
        repo, monkeypatch, capsys, "an override that reads as an addition", "RL341"
    )
    assert "`--enforce-eager`" in known["message"]
    _edit(repo, QWEN, '"8", "--enforce-eager"]', '"8"]')
    status, annotated, notes = _annotations(repo, monkeypatch, capsys, QWEN)
    assert status == 0 and [f for f in annotated if f["code"] == "RL341"] == []
    [notice] = [f for f in notes if f["code"] == "RL341"]
    assert "`--enforce-eager`" not in notice["message"] and "a known problem" in notice["message"]


def test_a_parallel_flag_that_stops_multiplying_ranks_is_a_notice(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # PR 411 dropped the multi-node strategies: the base's RL310 on a variant's TP flag became
    # RL314 on the same item, one problem (a parallel flag outside the emitter) named anew.
    _edit(repo, QWEN, "  base_args: []\n", '  base_args: ["--tensor-parallel-size", "2"]\n')
    _edit(repo, QWEN, "  - single_node_tp\n", "  - single_node_tp\n  - single_node_dep\n")
    known = _committed_base(
        repo, monkeypatch, capsys, "a TP flag that multiplies the DEP ranks", "RL310"
    )
    assert [f["code"] for f in known] == ["RL310"]
    _edit(repo, QWEN, "  - single_node_tp\n  - single_node_dep\n", "  - single_node_tp\n")
    status, annotated, notes = _annotations(repo, monkeypatch, capsys, QWEN)
    assert status == 0 and [f for f in annotated if f["code"] in ("RL310", "RL314")] == []
    assert [f["code"] for f in notes if "a known problem" in f["message"]] == ["RL314"]


def test_a_guide_image_the_commands_still_do_not_use_is_a_notice(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # PR 538 moved the commands from one image to another, neither the one the guide names:
    # RL406 named the commands' new image, and was reported as a new problem.
    _guide_block(repo, "docker run --gpus all vllm/vllm-openai:qwen25-preview")
    [known] = _committed_base(repo, monkeypatch, capsys, "a guide image", "RL406")
    _edit(
        repo,
        QWEN,
        "  base_env: {}\n",
        '  base_env: {}\n  docker_image: "vllm/vllm-openai:v0.9.0"\n',
    )
    status, annotated, notes = _annotations(repo, monkeypatch, capsys, QWEN)
    assert [f for f in annotated if f["code"] == "RL406"] == []
    [notice] = [f for f in notes if f["code"] == "RL406"]
    assert "v0.9.0" in notice["message"] and "a known problem" in notice["message"]
    assert "v0.9.0" not in known["message"]
