"""Formatters: one function per output format, each turning diagnostics into text.

Recipe content reaches every format through messages and hints, so each format
escapes it by that format's own rules.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from recipelint.diagnostics import CHECKS_SKIPPED, Diagnostic, Severity, display_path

# C0/C1 controls except tab and newline, plus ESC sequences: a recipe must not drive the terminal.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    return _CONTROL.sub(
        lambda m: "" if m.group().startswith("\x1b") else f"\\x{ord(m.group()):02x}", text
    )


def _one_line(text: str) -> str:
    if text.isprintable():  # nearly every message: no control character, no line break
        return text
    return strip_controls(text).replace("\n", "\\n").replace("\r", "\\r")


def use_color(choice: str, tty: bool, environ: Mapping[str, str] | None = None) -> bool:
    """--color: `always`/`never` win; `auto` colours a terminal unless NO_COLOR is set
    (no-color.org), and anything when FORCE_COLOR is set (CI logs that render ANSI)."""
    if choice in ("always", "never"):
        return choice == "always"
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    return tty or bool(environ.get("FORCE_COLOR"))


def is_fixable(code: str) -> bool:
    """The rule has a safe fix (`autofix: true` in the catalog) that `check --fix` applies
    wherever it can prove the edit changes nothing else (docs/autofix.md)."""
    from recipelint.rulebook.catalog import rule_info

    info = rule_info(code)
    return bool(info and info.autofix)


FIXABLE_MARK = "[*]"
# --statistics marks a rule without a safe fix so (ruff's column).
UNFIXABLE_MARK = "[ ]"


def format_text(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[Path, str | bytes] | None = None,
    color: bool = False,
) -> str:
    """The text report; with ``sources`` (a file's text, or its UTF-8 bytes) an excerpt
    under each finding."""
    lines: list[str] = []
    split: dict[Path, list[str]] = {}
    # A file's findings share its shown name, and a rule's its fix mark: each is worked out once.
    base = Path.cwd()
    shown = functools.cache(lambda path: _one_line(display_path(path, base)))
    fixable = functools.cache(is_fixable)
    for diag in diagnostics:
        location = f"{shown(diag.path)}:{diag.span.line}:{diag.span.column}"
        level = str(diag.severity)
        if color:
            shade = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}[
                diag.severity
            ]
            level = f"\x1b[{shade}m{level}\x1b[0m"
        # ruff's convention: `[*]` after the code marks what --fix can repair.
        code = f"{diag.code} {FIXABLE_MARK}" if fixable(diag.code) else diag.code
        lines.append(f"{location}: {code} {level}: {_one_line(diag.message)}")
        if sources is not None:
            if diag.path not in split:
                # Findings come sorted by file: one file's lines are kept at a time.
                split = {diag.path: _source_lines(sources.get(diag.path))}
            lines.extend(_excerpt(diag, split[diag.path]))
        if diag.hint:
            lines.append(f"    hint: {_one_line(diag.hint)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _source_lines(text: str | bytes | None) -> list[str]:
    if not text:
        return []
    return (text if isinstance(text, str) else text.decode("utf-8")).splitlines()


def _excerpt(diag: Diagnostic, source_lines: list[str]) -> list[str]:
    if not 0 < diag.span.line <= len(source_lines):
        return []
    line = strip_controls(source_lines[diag.span.line - 1].replace("\t", " "))
    width = 1
    if diag.span.end_line == diag.span.line and diag.span.end_column:
        width = max(1, diag.span.end_column - diag.span.column)
    gutter = f"{diag.span.line:>5} | "
    return [f"{gutter}{line}", " " * (len(gutter) + diag.span.column - 1) + "^" * width]


def fingerprint_in(diag: Diagnostic, roots: Sequence[Path]) -> str:
    """The finding's fingerprint, relative to the innermost tree root that holds it."""
    from recipelint.report.baseline import fingerprint

    holding = [root for root in roots if root == diag.path or root in diag.path.parents]
    return fingerprint(diag, max(holding, key=lambda r: len(r.parts)) if holding else Path("/"))


def _related_records(diag: Diagnostic) -> list[dict[str, object]]:
    return [
        {
            "path": display_path(r.path),
            "line": r.span.line,
            "column": r.span.column,
            "message": r.message,
        }
        for r in diag.related
    ]


def as_record(
    diag: Diagnostic, roots: Sequence[Path] = (), docs_url: str | None = None
) -> dict[str, object]:
    """One finding of the JSON report; ``docs_url`` is the configured documentation base
    (rulebook.docs_url): without one the rule's `url` is null."""
    from recipelint.rulebook.catalog import rule_info, rule_url

    info = rule_info(diag.code)
    return {
        "path": display_path(diag.path),
        "line": diag.span.line,
        "column": diag.span.column,
        "end_line": diag.span.end_line,
        "end_column": diag.span.end_column,
        "code": diag.code,
        "name": info.name if info else None,
        "severity": str(diag.severity),
        "message": diag.message,
        "hint": diag.hint,
        "fingerprint": fingerprint_in(diag, roots),
        "related": _related_records(diag),
        "url": rule_url(diag.code, docs_url) if info else None,
        "fixable": is_fixable(diag.code),
    }


def format_json(
    diagnostics: Sequence[Diagnostic], roots: Sequence[Path] = (), docs_url: str | None = None
) -> str:
    records = [as_record(d, roots, docs_url) for d in diagnostics]
    return json.dumps(records, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def repository_root(environ: Mapping[str, str] | None = None) -> Path:
    """The folder GitHub resolves an annotation's file, and code scanning a SARIF
    artifact, against: the workspace of a GitHub run (GITHUB_WORKSPACE), else the git
    top level of the current folder, else the current folder. A check run from a
    subfolder still names files from the repository root."""
    environ = os.environ if environ is None else environ
    workspace = environ.get("GITHUB_WORKSPACE")
    if workspace:
        return Path(os.path.realpath(workspace))
    from recipelint.read.revision import git_output

    top = git_output(Path.cwd(), "rev-parse", "--show-toplevel")
    return Path(os.path.realpath(top or Path.cwd()))


def _github_location(diag: Diagnostic, root: Path) -> dict[str, object]:
    """file, line and columns as GitHub's toolkit sends them: columns only for a span on
    one line (it rejects them when line and endLine differ)."""
    span = diag.span
    one_line = span.end_line in (0, span.line)
    props: dict[str, object] = {
        "file": display_path(Path(os.path.realpath(diag.path)), root),
        "line": span.line,
    }
    if one_line:
        props["col"] = span.column
    if span.end_line:
        props["endLine"] = span.end_line
    if one_line and span.end_column:
        props["endColumn"] = span.end_column
    return props


def format_github(
    diagnostics: Sequence[Diagnostic], roots: Sequence[Path] = (), docs_url: str | None = None
) -> str:
    """GitHub workflow commands; escaping keeps recipe text from starting a new command.

    (An annotation has no place for a link: ``docs_url`` is taken as every format takes it.)
    """
    from recipelint.rulebook.catalog import rule_info

    command = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    root = repository_root() if diagnostics else Path.cwd()
    lines = []
    for diag in _one_skip_notice(diagnostics, root):
        info = rule_info(diag.code)
        props = _github_location(diag, root)
        props["title"] = f"{diag.code} {info.name}" if info else diag.code
        # A file name may carry terminal escapes too: GitHub's log viewer renders them.
        rendered = ",".join(
            f"{k}={_escape_property(strip_controls(str(v)))}" for k, v in props.items()
        )
        message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
        message += "".join(
            f"\nsee {display_path(Path(os.path.realpath(r.path)), root)}:{r.span.line}: {r.message}"
            for r in diag.related
        )
        lines.append(
            f"::{command[diag.severity]} {rendered}::{_escape_data(strip_controls(message))}"
        )
    return "\n".join(lines) + ("\n" if lines else "")


def _one_skip_notice(diagnostics: Sequence[Diagnostic], root: Path) -> list[Diagnostic]:
    """Checks skipped for one cause (a broken taxonomy) are one annotation naming how many
    files it holds back: a notice on every recipe buries the pull request's own findings."""
    skipped: dict[tuple[str, str | None], list[Diagnostic]] = {}
    for diag in diagnostics:
        if diag.code == CHECKS_SKIPPED:
            skipped.setdefault((diag.message, diag.hint), []).append(diag)
    kept: list[Diagnostic] = []
    for diag in diagnostics:
        group = skipped.get((diag.message, diag.hint)) if diag.code == CHECKS_SKIPPED else None
        if group is None or len(group) == 1:
            kept.append(diag)
        elif group[0] is diag:
            note = f" (in {display_path(Path(os.path.realpath(diag.path)), root)}"
            note += f" and {_plural(len(group) - 1, 'other file')})"
            kept.append(dataclasses.replace(diag, message=diag.message + note))
    return kept


def format_sarif(
    diagnostics: Sequence[Diagnostic], roots: Sequence[Path] = (), docs_url: str | None = None
) -> str:
    from recipelint.report.sarif import build_sarif

    fingerprints = [fingerprint_in(d, roots) for d in diagnostics]
    return (
        json.dumps(
            build_sarif(diagnostics, repository_root(), fingerprints, docs_url),
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


FORMATTERS: dict[str, Callable[..., str]] = {
    "json": format_json,
    "github": format_github,
    "sarif": format_sarif,
}
# Every --format of `check` and `compile`: text (format_text, which also takes the sources
# and the colour) and the formatters above, which take the diagnostics, the tree roots and
# the configured documentation base.
FORMATS: tuple[str, ...] = ("text", *FORMATTERS)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(diagnostics: Sequence[Diagnostic], files: int, fixable_hint: bool = True) -> str:
    counts = {level: sum(1 for d in diagnostics if d.severity is level) for level in Severity}
    checked = f"recipelint: {_plural(files, 'file')} checked"
    if not diagnostics:
        return f"{checked}, no problems"
    parts = [
        _plural(counts[level], str(level))
        for level in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if counts[level]
    ]
    fixable = sum(1 for d in diagnostics if is_fixable(d.code)) if fixable_hint else 0
    return (
        f"{checked}, " + ", ".join(parts) + (f" ({fixable} fixable with --fix)" if fixable else "")
    )


# ---------------------------------------------------------------- --statistics


def rule_statistics(diagnostics: Sequence[Diagnostic]) -> list[dict[str, object]]:
    """One entry per rule found: most frequent first, then by code (ruff's order)."""
    from recipelint.rulebook.catalog import rule_info

    counts = Counter(d.code for d in diagnostics)
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        info = rule_info(code)
        rows.append(
            {
                "code": code,
                "name": info.name if info else "",
                "count": count,
                "fixable": is_fixable(code),
            }
        )
    return rows


def format_statistics_text(diagnostics: Sequence[Diagnostic]) -> str:
    """ruff's --statistics table: `count<TAB>code<TAB>[*] name`, the count right-aligned.

    As ruff does, the fix column (`[*] ` a safe fix, `[ ] ` none) is there only when
    some rule in the table has a fix.
    """
    rows = rule_statistics(diagnostics)
    count_width = max([1] + [len(str(row["count"])) for row in rows])
    code_width = max([0] + [len(str(row["code"])) for row in rows])
    any_fixable = any(row["fixable"] for row in rows)

    def mark(fixable: object) -> str:
        if not any_fixable:
            return ""
        return f"{FIXABLE_MARK} " if fixable else f"{UNFIXABLE_MARK} "

    return "".join(
        f"{row['count']:>{count_width}}\t{row['code']:<{code_width}}\t"
        f"{mark(row['fixable'])}{row['name']}\n"
        for row in rows
    )


def format_statistics_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps(rule_statistics(diagnostics), indent=2, ensure_ascii=False) + "\n"


STATISTICS_FORMATTERS: dict[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": format_statistics_text,
    "json": format_statistics_json,
}
