"""The output conventions ruff and check-jsonschema users expect, through the real CLI:
--output-file, --exit-zero, --statistics, --show-source, --color, `[*]` fixable marks,
--fix counts, rule names and URLs in JSON, `rules --format json`, and progress lines
that appear only on a terminal."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import PROJECT_ROOT
from treehelp import Fragment, write_documents

from recipelint.cli import cli, main
from recipelint.progress import Progress
from recipelint.report.formats import use_color
from recipelint.rulebook.catalog import (
    DOCS_URL,
    DOCS_URL_VARIABLE,
    PROJECT_URL,
    load_rulebook,
    rule_url,
)
from recipelint.rulebook.docs import reference_markdown

RECIPE = "models/acme/demo.yaml"
# Three fixable infos (two RL304, one RL303) and nothing else in this recipe.
FIXABLE = Fragment("""\
model:
  base_args:
    - "--max_model_len"
    - "8192"
    - "--trust_remote_code"
    - "--gpu-memory-utilization=0.9"
""")
# RL303 that the fixer declines (the value starts with `-`), and an RL306 error.
STUCK = Fragment("""\
model:
  base_args: ["--seed=-1", "--max-model-len 8192"]
""")
# ruff's table: `[*] ` a safe fix, `[ ] ` none; no fix column when no rule has a fix.
STATISTIC = re.compile(r"(\d+)\t(RL\d{3})\t(\[\*\] |\[ \] |)([a-z0-9-]+)")


@pytest.fixture
def tree(tmp_path: Path, embedded_tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(embedded_tree, root)
    write_documents(root, {RECIPE: FIXABLE})
    monkeypatch.chdir(root)
    for name in ("NO_COLOR", "FORCE_COLOR", DOCS_URL_VARIABLE):
        monkeypatch.delenv(name, raising=False)
    return root


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env=env)


def place(root: Path, item: str) -> tuple[int, int]:
    """(line, column) of an argument item in the checked recipe, as findings count them."""
    lines = (root / RECIPE).read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip() == f"- {item}")
    return line, lines[line - 1].index(item) + 1


# ------------------------------------------------------------------ --output-file


@pytest.mark.parametrize("output_format", ["text", "json", "github", "sarif"])
def test_output_file_holds_what_stdout_would(tree: Path, output_format: str) -> None:
    shown = run("check", "models/acme", "--format", output_format)
    saved = run("check", "models/acme", "--format", output_format, "--output-file", "out/report")
    assert saved.exit_code == shown.exit_code == 0
    assert saved.stdout == "" and shown.stdout
    assert (tree / "out" / "report").read_text(encoding="utf-8") == shown.stdout
    if output_format == "text":
        assert "1 file checked" in saved.stderr  # the summary line stays on stderr


def test_output_file_that_cannot_be_written_is_a_usage_error(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "taken").mkdir()
    assert main(["check", "models/acme", "--output-file", "taken"]) == 2
    (tree / "plain").write_text("", encoding="utf-8")
    assert main(["check", "models/acme", "--output-file", "plain/report.txt"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "--output-file" in err


def test_compile_and_diff_write_their_output_file(tree: Path, embedded_tree: Path) -> None:
    compiled = run("compile", ".", "--dry-run", "--format", "json", "--output-file", "compile.json")
    assert compiled.exit_code == 0 and compiled.stdout == ""
    assert isinstance(json.loads((tree / "compile.json").read_text(encoding="utf-8")), list)
    shown = run("diff", str(embedded_tree), ".", "--format", "json")
    saved = run("diff", str(embedded_tree), ".", "--format", "json", "--output-file", "diff.json")
    assert saved.exit_code == shown.exit_code == 0 and saved.stdout == ""
    assert (tree / "diff.json").read_text(encoding="utf-8") == shown.stdout
    assert "acme/demo" in shown.stdout


# ------------------------------------------------------------------ exit status


def test_exit_zero_keeps_usage_errors(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_documents(tree, {RECIPE: STUCK})
    assert main(["check", "models/acme"]) == 1
    assert main(["check", "models/acme", "--exit-zero"]) == 0
    assert main(["check", "models/acme", "--diff", "--exit-zero"]) == 0
    assert main(["check", "models/acme", "--exit-zero", "--select", "XX"]) == 2
    assert main(["check", "models/acme", "--exit-zero", "--statistics", "--format", "sarif"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_warnings_alone_exit_zero_unless_strict(embedded_tree: Path) -> None:
    assert main(["check", str(embedded_tree), "-q"]) == 0  # it has warnings, no errors
    assert main(["check", str(embedded_tree), "-q", "--strict"]) == 1


def test_help_states_the_exit_status_and_the_new_options() -> None:
    text = " ".join(run("check", "--help").stdout.split())
    assert "1 errors found (or warnings with --strict" in text
    for option in (
        "--output-file",
        "--exit-zero",
        "--statistics",
        "--show-source / --no-show-source",
        "--color [auto|always|never]",
        "comma list",
    ):
        assert option in text


@pytest.mark.parametrize("command", [["check"], ["compile", "--dry-run"]])
def test_output_format_is_rufs_name_for_format(tree: Path, command: list[str]) -> None:
    """`--output-format` (ruff's spelling) and `--format` choose the same report."""
    long = run(*command, str(tree), "--output-format", "json")
    short = run(*command, str(tree), "--format", "json")
    assert long.exit_code == short.exit_code
    assert long.stdout == short.stdout
    assert json.loads(long.stdout)  # the fixture's recipe has findings: a real report


# ------------------------------------------------------------------ --statistics


def test_statistics_text_is_ruffs_table(tree: Path) -> None:
    done = run("check", ".", "--statistics")
    lines = done.stdout.splitlines()
    rows = [STATISTIC.fullmatch(line) for line in lines]
    assert all(rows), lines
    table = [(int(m[1]), m[2], m[3] == "[*] ", m[4]) for m in rows if m]
    assert [(-count, code) for count, code, _, _ in table] == sorted(
        (-c, code) for c, code, _, _ in table
    )
    catalog = load_rulebook()
    for _count, code, fixable, name in table:
        assert name == catalog[code].name and fixable == catalog[code].autofix
    assert (2, "RL304", True, "flag-underscore-spelling") in table
    assert (1, "RL303", True, "flag-equals-value") in table
    records = json.loads(run("check", ".", "--format", "json").stdout)
    assert sum(count for count, *_ in table) == len(records)


def test_statistics_mark_rules_without_a_fix_with_an_empty_box(tree: Path) -> None:
    write_documents(tree, {RECIPE: STUCK})  # RL303 has a safe fix, RL306 none
    catalog = load_rulebook()
    assert catalog["RL303"].autofix and not catalog["RL306"].autofix
    done = run("check", "models/acme", "--statistics")
    assert done.stdout.splitlines() == [
        "1\tRL303\t[*] flag-equals-value",
        "1\tRL306\t[ ] flag-and-value-in-one-item",
    ]


def test_statistics_without_any_fix_have_no_fix_column(embedded_tree: Path) -> None:
    lines = run("check", str(embedded_tree), "--statistics").stdout.splitlines()
    catalog = load_rulebook()
    rows = [line.split("\t") for line in lines]
    assert rows and not any(catalog[code].autofix for _, code, _ in rows)
    # ruff's widths: the count as wide as the largest, the name right after the code's tab.
    width = max(len(count.strip()) for count, _, _ in rows)
    assert all(len(count) == width and name == catalog[code].name for count, code, name in rows)


def test_statistics_json(tree: Path) -> None:
    done = run("check", "models/acme", "--statistics", "--format", "json")
    assert json.loads(done.stdout) == [
        {"code": "RL304", "name": "flag-underscore-spelling", "count": 2, "fixable": True},
        {"code": "RL303", "name": "flag-equals-value", "count": 1, "fixable": True},
    ]


# ------------------------------------------------------------------ source and colour


def test_show_source_off_a_terminal(tree: Path) -> None:
    line, _ = place(tree, '"--max_model_len"')
    plain = run("check", "models/acme").stdout
    shown = run("check", "models/acme", "--show-source").stdout
    assert f"   {line} | " not in plain
    assert f'   {line} |     - "--max_model_len"' in shown
    assert run("check", "models/acme", "--no-show-source").stdout == plain


def test_color_choices_and_environment(tree: Path) -> None:
    assert "\x1b[36m" not in run("check", "models/acme").stdout
    assert "\x1b[36minfo\x1b[0m" in run("check", "models/acme", "--color", "always").stdout
    assert "\x1b[" in run("check", "models/acme", env={"FORCE_COLOR": "1"}).stdout
    assert (
        "\x1b[" not in run("check", "models/acme", env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    )
    assert (
        "\x1b["
        not in run("check", "models/acme", "--color", "never", env={"FORCE_COLOR": "1"}).stdout
    )


@pytest.mark.parametrize(
    ("choice", "tty", "env", "expected"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # set but empty does not count (no-color.org)
        ("auto", False, {"FORCE_COLOR": "1"}, True),
        ("auto", False, {"FORCE_COLOR": ""}, False),
        ("always", False, {"NO_COLOR": "1"}, True),
        ("never", True, {"FORCE_COLOR": "1"}, False),
    ],
)
def test_use_color(choice: str, tty: bool, env: dict[str, str], expected: bool) -> None:
    assert use_color(choice, tty, env) is expected


def test_a_terminal_gets_excerpts_and_colour_by_default(tree: Path) -> None:
    """stdout a real pseudo-terminal: excerpts and colour without any option."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    with subprocess.Popen(
        [sys.executable, "-c", "from recipelint.cli import run; run()", "check", "models/acme"],
        cwd=tree,
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env=env,
    ) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    os.close(leader)
    out = b"".join(chunks).decode()
    assert process.returncode == 0
    line, _ = place(tree, '"--max_model_len"')
    assert f"   {line} | " in out and "\x1b[36minfo\x1b[0m" in out


# ------------------------------------------------------------------ fixable findings


def test_fixable_findings_are_marked_and_counted(tree: Path) -> None:
    done = run("check", "models/acme")
    (line, column), (later, later_column) = (
        place(tree, '"--max_model_len"'),
        place(tree, '"--gpu-memory-utilization=0.9"'),
    )
    assert f"{RECIPE}:{line}:{column}: RL304 [*] info: " in done.stdout
    assert f"{RECIPE}:{later}:{later_column}: RL303 [*] info: " in done.stdout
    assert done.stderr.strip() == "recipelint: 1 file checked, 3 infos (3 fixable with --fix)"


def test_fix_reports_per_rule_and_what_remains(tree: Path) -> None:
    preview = run("check", "models/acme", "--diff")
    assert preview.exit_code == 1
    assert (
        "would fix 1 × RL303 flag-equals-value\nwould fix 2 × RL304 flag-underscore-spelling\n"
        in preview.stderr
    )
    done = run("check", "models/acme", "--fix")
    assert done.exit_code == 0
    assert done.stderr.splitlines() == [
        "fixed 1 × RL303 flag-equals-value",
        "fixed 2 × RL304 flag-underscore-spelling",
        "fixed 1 file",
        "recipelint: 1 file checked, no problems",
        "recipelint: 0 fixable findings remain",
    ]
    assert run("check", "models/acme", "--fix", "-q").stderr == ""


def test_fix_says_which_fixable_findings_it_left(tree: Path) -> None:
    write_documents(tree, {RECIPE: STUCK})
    done = run("check", "models/acme", "--fix")
    assert done.exit_code == 1
    assert "RL303 [*] info" in done.stdout
    assert "fixed 0 files" in done.stderr
    assert "recipelint: 1 fixable finding remains (no edit could be proven safe" in done.stderr
    assert "fixable with --fix" not in done.stderr  # not after --fix just declined it


# ------------------------------------------------------------------ rule names and URLs


def test_json_findings_name_their_rule(tree: Path) -> None:
    records = json.loads(run("check", "models/acme", "--format", "json").stdout)
    assert records
    for record in records:
        assert record["name"] == load_rulebook()[record["code"]].name
        assert record["url"] is None  # no documentation base configured: no dead link
        assert record["fixable"] is True
        assert {"fingerprint", "related"} <= set(record)


def test_rules_json_is_the_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DOCS_URL_VARIABLE, "https://example.org/docs")
    entries = json.loads(run("rules", "--format", "json").stdout)
    catalog = load_rulebook()
    assert [entry["code"] for entry in entries] == list(catalog)
    for entry in entries:
        info = catalog[entry["code"]]
        assert entry == {
            "code": info.code,
            "name": info.name,
            "severity": str(info.severity),
            "summary": info.summary,
            "fixable": info.autofix,
            "url": f"https://example.org/docs/rules.md#{info.code.lower()}",
        }


def test_project_urls_are_defined_once() -> None:
    """pyproject's [project.urls] and recipelint.rulebook.catalog say the same (one must follow the other)."""
    urls = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "urls"
    ]
    assert urls == {"Homepage": PROJECT_URL, "Documentation": DOCS_URL}


# ------------------------------------------------------------------ progress


def test_progress_is_silent_off_a_terminal_and_when_quiet() -> None:
    for stream, kwargs in ((io.StringIO(), {}), (io.StringIO(), {"tty": True, "quiet": True})):
        with Progress("compiling recipes", 3, stream=stream, **kwargs) as progress:
            for _ in progress.iterate(range(3)):
                pass
        assert stream.getvalue() == ""


def test_progress_draws_when_forced_and_clears_its_line() -> None:
    stream, now = io.StringIO(), iter(range(100))
    with Progress(
        "compiling recipes", 3, stream=stream, tty=True, clock=lambda: float(next(now))
    ) as progress:
        for _ in progress.iterate(range(3)):
            pass
        progress.phase("extracting HEAD")
    out = stream.getvalue()
    assert (
        "compiling recipes 0/3" in out
        and "compiling recipes 3/3" in out
        and "extracting HEAD" in out
    )
    assert out.endswith("\r\x1b[K")  # nothing is left on the line


def test_progress_redraws_at_most_ten_times_a_second() -> None:
    stream = io.StringIO()
    with Progress(
        "compiling recipes", 1000, stream=stream, tty=True, clock=lambda: 5.0
    ) as progress:
        for _ in progress.iterate(range(1000)):
            pass
    assert stream.getvalue().count("compiling recipes") == 2  # the first and the last count


def test_commands_print_no_progress_when_stderr_is_not_a_terminal(
    tree: Path, embedded_tree: Path
) -> None:
    compiled = subprocess.run(
        [
            sys.executable,
            "-c",
            "from recipelint.cli import run; run()",
            "compile",
            ".",
            "--dry-run",
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert compiled.returncode == 0
    assert "\r" not in compiled.stderr and "compiling recipes" not in compiled.stderr
    diffed = run("diff", str(embedded_tree), ".")
    assert "\r" not in diffed.stderr and "compiling" not in diffed.stderr


def test_the_rules_page_is_generated_from_the_catalog() -> None:
    """docs/rules.md is the catalog's markdown, and each finding's `url` lands on an anchor there."""
    page = PROJECT_ROOT / "docs" / "rules.md"
    catalog = list(load_rulebook().values())
    text = page.read_text(encoding="utf-8")
    assert text == reference_markdown(catalog), (
        "docs/rules.md is stale; regenerate it: recipelint rules --format markdown > docs/rules.md"
    )
    for info in catalog:
        anchor = str(rule_url(info.code, "https://example.org/docs")).rsplit("#", 1)[1]
        assert f'<a id="{anchor}"></a>' in text, info.code


def test_the_rules_page_command_writes_the_page() -> None:
    assert run("rules", "--format", "markdown").stdout == reference_markdown(
        list(load_rulebook().values())
    )
