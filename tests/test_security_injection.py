"""Recipe content cannot inject into any output: terminals, JSON, GitHub workflow commands,
SARIF, Markdown job summaries, or the shell commands the compiled API publishes."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from catalog_harness import CONTEXT, build_context
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from mutations import fuzz_settings  # noqa: E402

from recipelint.diagnostics import Diagnostic, Severity, Span  # noqa: E402
from recipelint.report.formats import format_github, format_json, format_sarif, format_text  # noqa: E402
from recipelint.resolve.formatting import format_command, shell_quote  # noqa: E402

pytestmark = pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)

# One key carrying every payload: an OSC 8 hyperlink, a screen clear, forged workflow
# commands on new lines, a percent-encoded newline, HTML, and table pipes.
PAYLOAD = (
    "\x1b]8;;http://evil.example\x07click\x1b]8;;\x07\x1b[2J\x1b[31m"
    "\n::add-mask::x\n::error file=evil.yaml,line=1::forged %0A"
    " <img src=x onerror=alert(1)> | a | b"
)
SEED = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
OUR_COLOURS = re.compile(r"\x1b\[(?:31|33|36|0)m")


@pytest.fixture(scope="module")
def hostile_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_context(tmp_path_factory.mktemp("hostile"))
    seed = (CONTEXT / SEED).read_text(encoding="utf-8")
    key = json.dumps(PAYLOAD)  # a YAML double-quoted scalar
    assert "    h100: verified\n" in seed
    text = seed.replace("    h100: verified\n", f"    h100: verified\n    {key}: verified\n", 1)
    target = root / "models" / "acme" / "evil.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(text, encoding="utf-8")
    return root


def check(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    # The schema's RL107 rejects the key and escapes it; with RL107 on, the hardware rule's
    # finding about the same key is its echo and is not shown. Ignoring RL107 keeps a rule
    # message that carries the key verbatim, which is what the formatters must withstand.
    command = [
        sys.executable,
        "-c",
        "from recipelint.cli import run; run()",
        "check",
        str(root),
        "--ignore",
        "RL107",
        *options,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=root)


@pytest.fixture(scope="module")
def findings(hostile_tree: Path) -> list[dict]:
    result = check(hostile_tree, "--format", "json")
    assert result.returncode == 1, result.stderr
    records = json.loads(result.stdout)
    assert any(PAYLOAD in r["message"] for r in records), (
        "the payload should reach a message verbatim"
    )
    return records


# ------------------------------------------------------------------ report formats


def test_json_and_sarif_stay_valid(hostile_tree: Path, findings: list[dict]) -> None:
    sarif = json.loads(check(hostile_tree, "--format", "sarif").stdout)
    results = sarif["runs"][0]["results"]
    assert len(results) == len(findings)
    for result, record in zip(results, findings, strict=False):
        assert set(result["message"]) == {
            "text"
        }  # plain text only: no markdown rendering on GitHub
        assert result["message"]["text"].startswith(record["message"])


def test_github_commands_cannot_be_forged(hostile_tree: Path, findings: list[dict]) -> None:
    lines = check(hostile_tree, "--format", "github").stdout.splitlines()
    assert len(lines) == len(findings)
    assert all(
        re.match(r"::(error|warning|notice) file=[^:]*,line=\d+,", line) for line in lines
    ), lines
    for line in lines:
        assert "\n" not in line and "\r" not in line
        assert (
            "::add-mask::" not in line.split("::", 2)[1]
        )  # never in the command or its properties
    forged = [line for line in lines if "forged" in line]
    # Rule messages carry the key verbatim and the formatter encodes its line breaks;
    # schema messages escape control characters themselves (every schema message is one line).
    encoded = [line for line in forged if "%0A::add-mask::x%0A::error file=evil.yaml" in line]
    escaped = [line for line in forged if "\\n::add-mask::x\\n::error file=evil.yaml" in line]
    assert encoded and len(encoded) + len(escaped) == len(forged)
    assert all("%250A" in line for line in forged)  # a literal %0A in the data stays literal


def test_text_report_strips_terminal_escapes(hostile_tree: Path, findings: list[dict]) -> None:
    result = check(hostile_tree)
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    lines = result.stdout.splitlines()
    assert len([line for line in lines if not line.startswith("    hint: ")]) == len(findings)


def test_text_report_with_colour_and_excerpts() -> None:
    diag = Diagnostic(
        Path("models/acme/x.yaml"), Span(1, 1, 1, 5), "RL201", Severity.ERROR, PAYLOAD, PAYLOAD
    )
    text = format_text(
        [diag], {Path("models/acme/x.yaml"): PAYLOAD.replace("\n", " ") + "\n"}, color=True
    )
    assert "\x07" not in text
    assert OUR_COLOURS.sub("", text).count("\x1b") == 0
    assert len(text.splitlines()) == 4  # finding, source line, caret line, hint


def test_text_report_on_a_real_terminal(hostile_tree: Path) -> None:
    """On a pty the report adds colour and source excerpts; neither lets the payload through."""
    primary, secondary = pty.openpty()
    command = [
        sys.executable,
        "-c",
        "from recipelint.cli import run; run()",
        "check",
        str(hostile_tree),
    ]
    process = subprocess.Popen(
        command, stdout=secondary, stderr=subprocess.DEVNULL, cwd=hostile_tree
    )
    os.close(secondary)
    output = _drain(primary, process)
    assert process.returncode == 1
    assert "\x1b[31m" in output and " | " in output  # it really was a terminal: colour and excerpts
    assert OUR_COLOURS.sub("", output).count("\x1b") == 0
    assert "\x07" not in output


def _drain(primary: int, process: subprocess.Popen[bytes]) -> str:
    chunks = []
    while True:
        ready, _, _ = select.select([primary], [], [], 60)
        try:
            chunk = os.read(primary, 65536) if ready else b""
        except OSError:  # the child closed its side
            chunk = b""
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(primary)
    return b"".join(chunks).decode("utf-8", "replace")


@fuzz_settings(200)
@given(
    message=st.text(),
    hint=st.none() | st.text(),
    path=st.tuples(
        st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1),
        st.sampled_from(["", "\udc80", "\udcff"]),
    ).map("".join),
)  # os.fsdecode of non-UTF-8
def test_any_message_keeps_every_format_well_formed(
    message: str, hint: str | None, path: str
) -> None:
    diag = Diagnostic(Path(path), Span(1, 1), "RL201", Severity.ERROR, message, hint)
    assert json.loads(format_json([diag]))[0]["message"] == message
    assert json.loads(format_sarif([diag]))["runs"][0]["results"][0]["message"]["text"].startswith(
        message
    )
    [line] = format_github([diag]).split("\n")[:-1]  # the runner splits on line feeds only
    assert line.startswith("::error file=") and "\r" not in line
    assert OUR_COLOURS.sub("", line).count("\x1b") == 0
    assert OUR_COLOURS.sub("", format_text([diag], color=True)).count("\x1b") == 0


# ------------------------------------------------------------------ Markdown job summaries


ALLOWED_TAGS = {
    "h2",
    "h3",
    "p",
    "strong",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "code",
    "br",
    "a",
}


def _gfm(markdown: str) -> str:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    # UNSAFE keeps raw HTML in the output, so any that got through is visible to the test.
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def _rows(html: str) -> list[int]:
    return [row.count("<td") for row in re.findall(r"<tr>(.*?)</tr>", html, re.S) if "<td" in row]


def _tags(html: str) -> set[str]:
    return {tag.lower() for tag in re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", html)}


@fuzz_settings(150)
@given(st.text(min_size=1))
def test_markdown_code_is_one_inert_cell(text: str) -> None:
    from recipelint.report.diffing import markdown_code

    html = _gfm(f"| a | b |\n|---|---|\n| {markdown_code(text)} | end |\n")
    assert _rows(html) == [2], html
    assert _tags(html) <= ALLOWED_TAGS, html
    assert re.search(r"<td>end</td>", html)


@fuzz_settings(60)
@given(
    names=st.lists(st.text(min_size=1), min_size=4, max_size=4),
    values=st.lists(st.text(), min_size=2, max_size=2),
)
def test_markdown_summary_has_no_raw_html_or_broken_rows(
    names: list[str], values: list[str]
) -> None:
    from recipelint.report.diffing import Change, CommandDiff, RenderingKey, diff_as_markdown

    recipe, variant, hardware, strategy = names
    key = RenderingKey(recipe, variant, hardware, strategy)
    change = Change("", "flag", "--" + strategy, (values[0],), (values[1],))
    other = RenderingKey(recipe + "x", variant, hardware, strategy)
    diff = CommandDiff(
        changed={key: [change]},
        added=[other],
        removed=[],
        recommended={(recipe, variant, hardware): (values[0] or "a", values[1] or "b")},
    )
    html = _gfm(diff_as_markdown(diff))
    assert _tags(html) <= ALLOWED_TAGS, html
    assert _rows(html) == [3, 3, 4], html


# ------------------------------------------------------------------ rendered shell commands


UPSTREAM_BARE = re.compile(r"\$[A-Z_][A-Z0-9_]*|[A-Za-z0-9_./=:@,+%-]+")
DANGEROUS_VALUES = [
    "$(touch /tmp/pwned)",
    "`touch /tmp/pwned`",
    "a; touch /tmp/pwned",
    "a && b",
    "a | b",
    "line\ntouch /tmp/pwned",
    "it's",
    "${HOME}",
    "~/p",
    "a*b",
    '{"k": [1, 2]}',
    "$lower",
    "\\",
    "'",
    "''",
    "a'\\''b",
    "--not-a-flag-here",
    "$HOME",
    "$HEAD_IP",
    "plain-value.1",
]


def _sh_roundtrip(values: list[str]) -> list[str]:
    """What a POSIX shell makes of each quoted value, as one word (`printf %s`)."""
    script = "".join(f"printf '%s\\0' {shell_quote(v)}\n" for v in values)
    done = subprocess.run(
        ["sh", "-c", script],
        capture_output=True,
        timeout=60,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().split("\0")[:-1]


def test_flag_values_are_quoted_as_upstream() -> None:
    for value in DANGEROUS_VALUES:
        quoted = shell_quote(value)
        if UPSTREAM_BARE.fullmatch(value):
            assert quoted == value
        else:
            assert quoted == "'" + value.replace("'", "'\\''") + "'"
    literal = [
        v for v in DANGEROUS_VALUES if not v.startswith("$") or not UPSTREAM_BARE.fullmatch(v)
    ]
    assert _sh_roundtrip(literal) == literal  # the shell sees the value itself: nothing ran
    assert not Path("/tmp/pwned").exists()


@fuzz_settings(200)
@given(
    st.lists(
        st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1),
        min_size=1,
        max_size=20,
    )
)
def test_any_quoted_value_reaches_the_shell_as_one_literal_word(values: list[str]) -> None:
    literal = [v for v in values if not UPSTREAM_BARE.fullmatch(v) or "$" not in v]
    if literal:
        assert _sh_roundtrip(literal) == literal


def test_command_layout_quotes_values_and_only_values() -> None:
    args = ["--served-model-name", "$(id)", "--x", "a\nb", "positional;id", "--flag;id"]
    command = format_command("org/model", args)
    assert command.split(" \\\n  ") == [
        "vllm serve org/model",
        "--served-model-name '$(id)'",
        "--x 'a\nb'",
        "positional;id",
        "--flag;id",
    ]


def test_compiled_commands_keep_upstream_bytes_and_rules_report_the_rest(tmp_path: Path) -> None:
    """Values are quoted where upstream quotes them; what upstream leaves bare is reported."""
    from recipelint.check.engine import run_checks
    from recipelint.compile.compiler import compile_tree
    from recipelint.read.tree import load_tree

    root = build_context(tmp_path)
    seed = (CONTEXT / SEED).read_text(encoding="utf-8")
    text = seed.replace(
        "  base_args: []\n", '  base_args: ["--served-model-name", "$(id)", "--evil;id"]\n', 1
    )
    text = text.replace("  base_env: {}\n", '  base_env:\n    INJECT: "1 -v /:/host"\n', 1)
    target = root / "models" / "acme" / "shell.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(text, encoding="utf-8")
    result = compile_tree(root)
    document = json.loads(result.files.serialize("acme/shell.json"))
    command = document["recommended_command"]["command"]
    assert "--served-model-name '$(id)'" in command
    assert "  --evil;id" in command  # a flag: upstream prints it bare
    assert (
        "-e INJECT=1 -v /:/host" in document["recommended_command"]["docker_command"]
    )  # upstream never quotes -e values: docs/upstream-behaviour.md#docker-env-unquoted
    reported = {(d.code, d.pointer) for d in run_checks(load_tree(root)) if d.path == target}
    assert ("RL750", ("model", "base_args", 2)) in reported
    assert ("RL751", ("model", "base_env", "INJECT")) in reported
    assert not any(
        code == "RL750" and pointer[-1] == 1 for code, pointer in reported
    )  # quoted: inert
