"""The GitHub Action (action.yml), its example workflow, and `recipelint summary`.

Both YAML files are validated with check-jsonschema's vendored GitHub schemas.
The action's own shell steps are then run here with bash, as the runner would run
them (inputs as environment variables, $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY
as files), against a throw-away git repository: fail-on levels, the exit-code
output, the SARIF file and the job summary with the command changes since the
pull request's base commit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import EMBEDDED_TREE, PROJECT_ROOT

from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.report.jobsummary import findings_markdown

ACTION = PROJECT_ROOT / "action.yml"
WORKFLOW = PROJECT_ROOT / "examples" / "recipelint-workflow.yml"
RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def _action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def _check_jsonschema(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("check_jsonschema", reason="check-jsonschema is in the test extra")
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_action_matches_the_github_action_schema() -> None:
    done = _check_jsonschema("vendor.github-actions", ACTION)
    assert done.returncode == 0, done.stdout + done.stderr


def test_example_workflow_matches_the_github_workflow_schema() -> None:
    done = _check_jsonschema("vendor.github-workflows", WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_schema_check_is_not_vacuous(tmp_path: Path) -> None:
    broken = tmp_path / "action.yml"
    broken.write_text("name: x\nruns:\n  using: composite\n  stepz: []\n", encoding="utf-8")
    assert _check_jsonschema("vendor.github-actions", broken).returncode == 1


def test_inputs() -> None:
    inputs = _action()["inputs"]
    assert {"path", "version", "fail-on"} <= set(inputs)
    assert inputs["fail-on"]["default"] == "error"
    assert _action()["runs"]["using"] == "composite"


def test_no_expression_is_spliced_into_a_script() -> None:
    """Inputs and event fields reach scripts only through `env:` (script injection)."""
    for step in _action()["runs"]["steps"]:
        assert not EXPRESSION.search(step.get("run", "")), step.get("name")


def test_example_uses_the_action_with_its_inputs() -> None:
    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["recipelint"]["steps"]
    ours = next(
        step for step in steps if step.get("uses", "").split("@")[0].endswith("/recipelint")
    )
    assert set(ours["with"]) <= set(_action()["inputs"])


# ---------------------------------------------------------------- running the steps


def _step(name: str) -> dict[str, Any]:
    return next(step for step in _action()["runs"]["steps"] if step.get("name") == name)


def _run_step(
    name: str, workspace: Path, context: dict[str, str], runner: Path
) -> tuple[int, dict[str, str], str]:
    """Run one `run:` step with bash as the runner does: env expressions resolved from `context`."""
    step = _step(name)
    env = {
        key: EXPRESSION.sub(lambda m: context.get(m.group(1), ""), str(value))
        for key, value in step.get("env", {}).items()
    }
    output, summary = runner / "output", runner / "summary"
    output.write_text("", encoding="utf-8")
    base_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("GITHUB_") and k != "RECIPELINT_DOCS_URL"
    }
    bin_dir = str(Path(sys.executable).parent)
    full_env = {
        **base_env,
        **env,
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_PATH": str(runner / "path"),
        "RUNNER_TEMP": str(runner),
        "PATH": bin_dir + os.pathsep + base_env.get("PATH", ""),
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=workspace,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    outputs = dict(
        line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines() if line
    )
    text = summary.read_text(encoding="utf-8") if summary.exists() else ""
    return done.returncode, outputs, done.stdout + done.stderr + text


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


@pytest.fixture()
def workspace(tmp_path: Path) -> tuple[Path, str]:
    """A checked-out pull request: the base commit holds the tree, the work tree an edit."""
    repo = tmp_path / "work"
    shutil.copytree(EMBEDDED_TREE, repo)
    _git(tmp_path, "init", "-q", str(repo))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD")
    path = repo / RECIPE
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            '      - "hermes"\n', '      - "hermes"\n      - "--max-num-seqs"\n      - "64"\n', 1
        ),
        encoding="utf-8",
    )
    (tmp_path / "runner").mkdir()
    return repo, base


def _plant_duplicate_key(repo: Path) -> None:
    path = repo / RECIPE
    title = '  title: "Qwen2.5-7B-Instruct"\n'
    path.write_text(path.read_text(encoding="utf-8").replace(title, title * 2, 1), encoding="utf-8")


@pytest.mark.parametrize(("fail_on", "step_status"), [("error", 1), ("warning", 1), ("never", 0)])
def test_fail_on_levels(workspace: tuple[Path, str], fail_on: str, step_status: int) -> None:
    repo, _ = workspace
    _plant_duplicate_key(repo)
    context = {"inputs.path": RECIPE, "inputs.fail-on": fail_on}
    status, outputs, log = _run_step("recipelint check", repo, context, repo.parent / "runner")
    assert (status, outputs["exit-code"]) == (step_status, "1"), log
    assert f"::error file={RECIPE},line=3,col=3," in log


def test_bad_fail_on_value_fails(workspace: tuple[Path, str]) -> None:
    repo, _ = workspace
    status, _, log = _run_step(
        "recipelint check",
        repo,
        {"inputs.path": ".", "inputs.fail-on": "sometimes"},
        repo.parent / "runner",
    )
    assert status == 2 and "fail-on must be" in log


def test_sarif_file_is_written(workspace: tuple[Path, str]) -> None:
    repo, _ = workspace
    _plant_duplicate_key(repo)
    context = {"inputs.path": ".", "inputs.fail-on": "never", "inputs.sarif": "out.sarif"}
    status, _, log = _run_step("recipelint check", repo, context, repo.parent / "runner")
    assert status == 0, log
    sarif = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))
    assert any(r["ruleId"] == "RL002" for r in sarif["runs"][0]["results"])


@pytest.mark.parametrize(
    ("repository", "ref", "expected"),
    [
        ("acme/recipelint", "v1.2.0", "https://github.com/acme/recipelint/blob/v1.2.0/docs"),
        ("", "", None),  # a local `uses: ./`: no home known, so no link
    ],
)
def test_sarif_links_the_docs_of_the_action_that_ran(
    workspace: tuple[Path, str], repository: str, ref: str, expected: str | None
) -> None:
    repo, _ = workspace
    _plant_duplicate_key(repo)
    context = {
        "inputs.path": ".",
        "inputs.fail-on": "never",
        "inputs.sarif": "out.sarif",
        "github.action_repository": repository,
        "github.action_ref": ref,
    }
    status, _, log = _run_step("recipelint check", repo, context, repo.parent / "runner")
    assert status == 0, log
    driver = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))["runs"][0]["tool"][
        "driver"
    ]
    rule = next(rule for rule in driver["rules"] if rule["id"] == "RL002")
    assert driver.get("informationUri") == (expected and f"{expected}/rules.md")
    assert rule.get("helpUri") == (expected and f"{expected}/rules.md#rl002")


def test_pull_request_summary_lists_rules_and_command_changes(workspace: tuple[Path, str]) -> None:
    repo, base = workspace
    _plant_duplicate_key(repo)
    context = {"inputs.path": ".", "github.event.pull_request.base.sha": base}
    status, _, summary = _run_step("Job summary", repo, context, repo.parent / "runner")
    assert status == 0, summary
    assert "| `RL002` | `duplicate-key` | error | 1 |" in summary
    assert f"### Command changes since `{base}`" in summary
    # the duplicate key makes the recipe unusable on the head side: its renderings go away
    assert "rendering removed" in summary


def test_push_summary_has_no_diff(workspace: tuple[Path, str]) -> None:
    repo, _ = workspace
    status, _, summary = _run_step(
        "Job summary", repo, {"inputs.path": "."}, repo.parent / "runner"
    )
    assert status == 0, summary
    assert summary.startswith("## recipelint") and "Command changes" not in summary


def test_summary_shows_the_flag_changes(workspace: tuple[Path, str]) -> None:
    repo, base = workspace
    command = [
        sys.executable,
        "-c",
        "from recipelint.cli import run; run()",
        "summary",
        ".",
        "--diff-base",
        base,
    ]
    done = subprocess.run(
        command, cwd=repo, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "+ `--max-num-seqs 64`" in done.stdout
    assert "0 new and 0 removed renderings" in done.stdout


def test_summary_reports_an_unknown_base_instead_of_failing(workspace: tuple[Path, str]) -> None:
    repo, _ = workspace
    command = [
        sys.executable,
        "-c",
        "from recipelint.cli import run; run()",
        "summary",
        ".",
        "--diff-base",
        "0" * 40,
    ]
    done = subprocess.run(
        command, cwd=repo, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Not available: `'" + "0" * 40 + "' is neither a folder nor a revision" in done.stdout


def test_findings_table_escapes_codes() -> None:
    diags = [
        Diagnostic(Path("x.yaml"), Span(1, 1), "RL|<b>", Severity.WARNING, "m"),
        Diagnostic(Path("x.yaml"), Span(2, 1), "RL002", Severity.ERROR, "m"),
        Diagnostic(Path("y.yaml"), Span(1, 1), "RL002", Severity.ERROR, "m"),
    ]
    text = findings_markdown(diags, files=2)
    assert "**2 errors, 1 warning** in 2 files." in text
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows == ["| `RL002` | `duplicate-key` | error | 2 |", "| `RL\\|<b>` |  | warning | 1 |"]


@pytest.mark.slow
@pytest.mark.network
def test_install_step_installs_the_actions_own_checkout(tmp_path: Path) -> None:
    """pip installs this checkout (dependencies from PyPI) into a fresh virtualenv."""
    runner = tmp_path / "runner"
    runner.mkdir()
    context = {
        "steps.python.outputs.python-path": sys.executable,
        "inputs.version": "",
        "github.action_path": str(PROJECT_ROOT),
    }
    status, _, log = _run_step("Install recipelint", tmp_path, context, runner)
    assert status == 0, log
    bin_dir = Path((runner / "path").read_text(encoding="utf-8").strip())
    done = subprocess.run(
        [str(bin_dir / "recipelint"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "recipelint" in done.stdout, done.stderr


def test_pull_request_flow_annotates_only_what_the_pull_request_introduces(
    tmp_path: Path,
) -> None:
    """The base already has dates out of order; the pull request adds an unknown hardware id."""
    repo = tmp_path / "work"
    shutil.copytree(EMBEDDED_TREE, repo)
    path = repo / RECIPE
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "date_updated: 2026-11-29", "date_updated: 2026-11-31", 1
        ),
        encoding="utf-8",
    )
    _git(tmp_path, "init", "-q", str(repo))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD")
    hardware = "    h100: verified\n"
    path.write_text(
        path.read_text(encoding="utf-8").replace(hardware, hardware + "    h1000: verified\n", 1),
        encoding="utf-8",
    )
    runner = tmp_path / "runner"
    runner.mkdir()

    context = {"inputs.new-findings-only": "true", "github.event.pull_request.base.sha": base}
    status, outputs, log = _run_step("Pull request base", repo, context, runner)
    assert status == 0 and outputs == {"rev": base}, log

    context |= {"inputs.path": ".", "inputs.fail-on": "error", "steps.base.outputs.rev": base}
    status, outputs, log = _run_step("recipelint check", repo, context, runner)
    assert (status, outputs["exit-code"]) == (1, "1"), log
    annotations = [line for line in log.splitlines() if line.startswith("::")]
    assert len(annotations) == 1 and "RL201" in annotations[0] and "h1000" in annotations[0], log
    assert "7 findings were already present" in log  # RL106, and the tree's 2 warnings, 4 notes

    status, _, summary = _run_step("Job summary", repo, context, runner)
    assert status == 0, summary
    assert "| `RL201` |" in summary and "| `RL106` |" not in summary
    assert f"7 findings were already present at `{base}`" in summary


def test_one_check_run_gives_annotations_and_sarif_with_the_extra_args(
    workspace: tuple[Path, str],
) -> None:
    repo, _ = workspace
    _plant_duplicate_key(repo)
    context = {
        "inputs.path": ".",
        "inputs.fail-on": "never",
        "inputs.sarif": "out.sarif",
        "inputs.args": "--select RL0,RL3  --ignore RL355",
    }
    status, _, log = _run_step("recipelint check", repo, context, repo.parent / "runner")
    assert status == 0, log
    assert _step("recipelint check")["run"].count("recipelint check") == 1
    annotated = sorted(
        {
            line.split("title=")[1].split(" ")[0]
            for line in log.splitlines()
            if line.startswith("::")
        }
    )
    sarif = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))
    assert sorted({r["ruleId"] for r in sarif["runs"][0]["results"]}) == annotated
    assert "RL002" in annotated and not any(
        code.startswith(("RL1", "RL2", "RL7")) for code in annotated
    )
    assert "RL355" not in annotated


def test_the_summary_counts_what_the_extra_args_select(workspace: tuple[Path, str]) -> None:
    repo, _ = workspace
    context = {"inputs.path": ".", "inputs.args": "--select RL3"}
    status, _, summary = _run_step("Job summary", repo, context, repo.parent / "runner")
    assert status == 0, summary
    rules = {line.split("`")[1] for line in summary.splitlines() if line.startswith("| `RL")}
    assert rules and all(code.startswith("RL3") for code in rules), summary


def test_extra_args_cannot_inject_shell(workspace: tuple[Path, str]) -> None:
    repo, _ = workspace
    context = {
        "inputs.path": ".",
        "inputs.fail-on": "never",
        "inputs.args": "$(touch pwned) `touch pwned2` *",
    }
    status, _, log = _run_step("recipelint check", repo, context, repo.parent / "runner")
    assert status == 2 and not list(repo.glob("pwned*")), log  # unknown arguments: a usage error


def test_the_documented_workflow_is_the_example_file() -> None:
    """docs/integrations.md shows the example workflow; it must not drift from the file."""
    example = WORKFLOW.read_text(encoding="utf-8")
    docs = (PROJECT_ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    shown = docs.split("```yaml\nname: recipelint\n", 1)[1].split("```\n", 1)[0]
    assert "name: recipelint\n" + shown == example[example.index("name: recipelint\n") :]


def _github_path_pattern(pattern: str) -> re.Pattern[str]:
    """A paths filter pattern as GitHub reads it: `**` any folders, `*` within one name."""
    parts = re.split(r"(\*\*/?|\*)", pattern)
    regex = "".join(
        ".*" if part.startswith("**") else "[^/]*" if part == "*" else re.escape(part)
        for part in parts
    )
    return re.compile(regex)


def test_the_workflow_runs_for_every_file_that_changes_a_finding() -> None:
    """The pull_request filter covers what the check reads: the tree's files, the
    configuration files discovery looks for, schema overlays, quickstart files (the
    rendering stage checks them) and the workflow itself."""
    from recipelint.read.configfile import CONFIG_FILES, OVERLAY_FOLDER
    from recipelint.read.revision import TREE_ENTRIES

    text = WORKFLOW.read_text(encoding="utf-8")
    workflow = yaml.safe_load(text)
    # PyYAML reads the key `on` as True (YAML 1.1).
    patterns = [_github_path_pattern(p) for p in workflow[True]["pull_request"]["paths"]]
    installed_as = text.splitlines()[0].removeprefix("# ").split(" ")[0]
    samples = {
        installed_as,
        *CONFIG_FILES,
        f"{OVERLAY_FOLDER}/recipe.schema.json",
        f"{OVERLAY_FOLDER}/extra/recipe.yaml",  # an overlay file the configuration names
        "quickstart/h100.yaml",
        "models/acme/demo.yaml",
        "models/acme/sub/demo.yaml",
        *(entry if "." in entry else f"{entry}/x.yaml" for entry in TREE_ENTRIES),
    }
    missed = sorted(s for s in samples if not any(p.fullmatch(s) for p in patterns))
    assert missed == [], f"the workflow does not run when these change: {missed}"
    assert installed_as == ".github/workflows/recipelint.yml"


def test_the_workflow_job_has_a_time_limit() -> None:
    jobs = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    assert all(0 < job.get("timeout-minutes", 0) <= 30 for job in jobs.values())
