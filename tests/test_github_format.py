"""`recipelint check --format github`: one workflow command per finding, and no
recipe content can start a second one.

The runner reads stdout line by line; a line that starts with `::` is a command.
Recipe text reaches the output through file paths (property `file=`) and messages
(the data after the last `::`), so the tests plant newlines followed by
`::add-mask::` / `::error file=…` and GitHub's own separators (`%`, `:`, `,`) in
file names and recipe values, run the real CLI, and check every line against
the workflow-command grammar — then decode each line and compare it with the
JSON report of the same run, so the escaping is also lossless.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.report.formats import format_github, strip_controls

# One command per line: `::level prop=value,…::data`. Property values may hold no
# `:` or `,` (they would end the value or the property list); data may hold `::`,
# which is harmless because commands start only at the beginning of a line.
COMMAND = re.compile(
    r"::(?P<level>error|warning|notice) "
    r"(?P<props>file=[^:,\r\n]*,line=\d+(?:,col=\d+)?(?:,endLine=\d+)?(?:,endColumn=\d+)?,title=[^:,\r\n]*)"
    r"::(?P<data>[^\r\n]*)"
)
INJECTED = "\n::add-mask::s3cr3t\n::error file=evil.yaml,line=1::owned"
HOSTILE_DIR = "50%,a:b"  # an organisation folder using every property separator


def _unescape(text: str) -> str:
    return (
        text.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def _parse(line: str) -> dict[str, str]:
    match = COMMAND.fullmatch(line)
    assert match, f"not a single well-formed workflow command: {line!r}"
    props = dict(item.split("=", 1) for item in match["props"].split(","))
    return {
        "level": match["level"],
        "data": _unescape(match["data"]),
        **{k: _unescape(v) for k, v in props.items()},
    }


def _hostile_tree(root: Path) -> Path:
    """A tiny tree whose file names and values carry workflow-command injections."""
    tree = root / "tree"
    (tree / "models" / HOSTILE_DIR).mkdir(parents=True)
    (tree / "strategies").mkdir()
    (tree / "taxonomy.yaml").write_text(
        "hardware_profiles:\n  h100:\n    gpu_count: 8\n", encoding="utf-8"
    )
    # A recipe directly under models/: its file name is quoted in the hint.
    (tree / "models" / f"stray{INJECTED}.yaml").write_text("meta:\n  title: x\n", encoding="utf-8")
    # A duplicate key and a value holding the injection, in a file whose path
    # holds `%`, `:` and `,`.
    hostile_value = json.dumps(f"x{INJECTED}")  # a YAML double-quoted scalar with real newlines
    hostile_key = json.dumps(f"evil{INJECTED}")
    (tree / "models" / HOSTILE_DIR / "demo,1:2%0A.yaml").write_text(
        f"meta:\n  title: {hostile_value}\n  title: {hostile_value}\n", encoding="utf-8"
    )
    # Values and an unknown key holding the injection, for the schema messages.
    (tree / "models" / HOSTILE_DIR / "values.yaml").write_text(
        f"meta:\n  title: {hostile_value}\n  provider: {hostile_value}\n  difficulty: {hostile_value}\n"
        f"model:\n  model_id: {hostile_value}\n  {hostile_key}: 1\n",
        encoding="utf-8",
    )
    # Not YAML at all: the syntax error quotes the offending text.
    (tree / "models" / HOSTILE_DIR / "broken.yaml").write_text(
        f"meta: [\n  ::error file=x::{INJECTED}\n", encoding="utf-8"
    )
    return tree


def _check(tree: Path, output_format: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-c",
        "from recipelint.cli import run; run()",
        "check",
        ".",
        "--format",
        output_format,
    ]
    return subprocess.run(
        command,
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        # Files are named from the repository root: here the tree itself.
        env={**os.environ, "NO_COLOR": "1", "GITHUB_WORKSPACE": str(tree)},
    )


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[dict]]:
    tree = _hostile_tree(tmp_path_factory.mktemp("github"))
    github = _check(tree, "github")
    report = _check(tree, "json")
    assert github.returncode == 1, github.stderr
    assert "Traceback" not in github.stderr + report.stderr
    return github.stdout, json.loads(report.stdout)


def test_hostile_content_reaches_the_messages(hostile_run: tuple[str, list[dict]]) -> None:
    """Guard: the run really carries raw newlines, `::` and separators into the findings."""
    _, records = hostile_run
    texts = [r["message"] + "\n" + (r["hint"] or "") for r in records]
    assert any("\n::add-mask::s3cr3t\n::error file=" in text for text in texts)
    assert any(
        HOSTILE_DIR in r["path"] and "," in r["path"] and "%0A" in r["path"] for r in records
    )
    # a file name holding newlines and `::` reaches the `file=` property (escaped or not)
    assert any("::add-mask::s3cr3t" in r["path"] for r in records)
    assert {"RL001", "RL002"} <= {r["code"] for r in records}


def test_every_line_is_exactly_one_command(hostile_run: tuple[str, list[dict]]) -> None:
    output, records = hostile_run
    assert "\r" not in output
    lines = output.splitlines()
    assert len(lines) == len(records)
    for line in lines:
        _parse(line)
    assert not any(line.startswith("::add-mask::") for line in lines)


def test_lines_decode_to_the_json_report(hostile_run: tuple[str, list[dict]]) -> None:
    output, records = hostile_run
    levels = {"error": "error", "warning": "warning", "info": "notice"}
    for line, record in zip(output.splitlines(), records, strict=True):
        parsed = _parse(line)
        assert parsed["file"] == record["path"]
        assert int(parsed["line"]) == record["line"]
        if "col" in parsed:
            assert int(parsed["col"]) == record["column"]
        else:  # GitHub takes columns only for a span on one line
            assert record["end_line"] != record["line"]
        assert parsed["level"] == levels[record["severity"]]
        assert parsed["title"].split(" ")[0] == record["code"]
        message = record["message"] + (f"\nhint: {record['hint']}" if record["hint"] else "")
        message += "".join(
            f"\nsee {r['path']}:{r['line']}: {r['message']}" for r in record["related"]
        )
        assert parsed["data"] == strip_controls(message)


# ---------------------------------------------------------------- the formatter alone


def _diag(path: str, code: str, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Path(path), Span(3, 5, 3, 9), code, Severity.WARNING, message, hint)


def test_title_and_file_escape_separators() -> None:
    line = format_github([_diag("a%b:c,d.yaml", "RL9:9,%", "50% done: a, b")]).rstrip("\n")
    assert line == (
        "::warning file=a%25b%3Ac%2Cd.yaml,line=3,col=5,endLine=3,endColumn=9,"
        "title=RL9%3A9%2C%25::50%25 done: a, b"
    )


def test_carriage_return_and_line_feed_are_escaped() -> None:
    out = format_github([_diag("x.yaml", "RL002", "a\r\n::error::b\r", "c\n::add-mask::d")])
    assert out.count("\n") == 1 and "\r" not in out
    # a lone CR is a control character: shown as \x0d, like in the text format
    assert out.endswith("::a\\x0d%0A::error::b\\x0d%0Ahint: c%0A::add-mask::d\n")


def test_terminal_controls_do_not_reach_the_log() -> None:
    line = format_github([_diag("x.yaml", "RL002", "a\x1b[2Kb\x07c")])
    assert "\x1b" not in line and "\x07" not in line


@settings(max_examples=200, deadline=None)
@given(
    path=st.text(min_size=1, max_size=40).filter(lambda p: "\x00" not in p),
    message=st.text(max_size=80),
    hint=st.none() | st.text(max_size=40),
)
def test_any_text_gives_one_well_formed_line(path: str, message: str, hint: str | None) -> None:
    out = format_github([_diag(path, "RL002", message, hint)])
    lines = out.split("\n")
    assert lines[-1] == "" and len(lines) == 2
    parsed = _parse(lines[0])
    expected = strip_controls(message + (f"\nhint: {hint}" if hint else ""))
    assert parsed["data"] == expected


def test_fixable_findings_keep_the_plain_title() -> None:
    """The `[*]` mark is the text format's; a GitHub title stays `CODE rule-name`."""
    line = format_github([_diag("models/a.yaml", "RL304", "underscores")])
    assert _parse(line.rstrip("\n"))["title"] == "RL304 flag-underscore-spelling"
    assert "[*]" not in line
