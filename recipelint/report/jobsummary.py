"""The Markdown job summary of the GitHub Action, as text (`recipelint summary` prints it).

Counts findings per rule and, for a pull request's base revision, lists the
resolved-command changes between that revision and the checked-out tree. Recipe text
appears only inside code spans escaped by :func:`recipelint.report.diffing.markdown_code`, so
it can neither inject HTML nor break a table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.report.diffing import markdown_code
from recipelint.rulebook.catalog import rule_info

_PLURAL = {Severity.ERROR: "errors", Severity.WARNING: "warnings", Severity.INFO: "notes"}
_SINGULAR = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _count(number: int, severity: Severity) -> str:
    return f"{number} {_SINGULAR[severity] if number == 1 else _PLURAL[severity]}"


def findings_markdown(
    diagnostics: Sequence[Diagnostic], files: int, heading: str = "## recipelint"
) -> str:
    """Totals, then one table row per rule: code, name, severity, number of findings."""
    lines = [heading, ""]
    if not diagnostics:
        return "\n".join([*lines, f"No problems in {files} file{'s' if files != 1 else ''}.", ""])
    by_severity = Counter(d.severity for d in diagnostics)
    totals = ", ".join(_count(by_severity[s], s) for s in sorted(by_severity, reverse=True))
    lines += [
        f"**{totals}** in {files} file{'s' if files != 1 else ''}.",
        "",
        "| rule | name | severity | findings |",
        "|---|---|---|---:|",
    ]
    per_rule = Counter((d.code, d.severity) for d in diagnostics)
    for (code, severity), number in sorted(
        per_rule.items(), key=lambda item: (-item[0][1], item[0][0])
    ):
        info = rule_info(code)
        name = markdown_code(info.name) if info else ""
        lines.append(f"| {markdown_code(code)} | {name} | {_SINGULAR[severity]} | {number} |")
    return "\n".join(lines) + "\n"


def known_markdown(known: int, new_from_rev: str) -> str:
    """The findings a pull request did not introduce: counted, not annotated."""
    if not known:
        return f"No finding was already present at {markdown_code(new_from_rev)}.\n"
    plural = "s were" if known != 1 else " was"
    return (
        f"{known} finding{plural} already present at {markdown_code(new_from_rev)}: "
        "not annotated, and not counted above.\n"
    )


def diff_markdown(base: str, tree_root: Path, warn: Callable[[str], None] | None = None) -> str:
    """Command changes from revision `base` to the tree folder; a note when unavailable.

    ``warn`` hears of compile errors on either side (their renderings are missing)."""
    from recipelint.read.revision import repository_top
    from recipelint.report.diffing import diff_as_markdown, diff_renderings
    from recipelint.report.sides import SideError, compiled_documents, resolve_side

    heading = f"### Command changes since {markdown_code(base)}"
    top = repository_top(tree_root)
    if top is None:
        return f"{heading}\n\nNot available: {markdown_code(str(tree_root))} is not in a git repository.\n"
    tree_path = tree_root.resolve().relative_to(top).as_posix()
    try:
        with ExitStack() as stack:
            old_root = resolve_side(base, tree_path, stack, top)
            old = compiled_documents(old_root, base, warn=warn)
        new = compiled_documents(tree_root, "the work tree", warn=warn)
    except SideError as exc:
        return f"{heading}\n\nNot available: {markdown_code(str(exc))}\n"
    return diff_as_markdown(diff_renderings(old, new), heading=heading)
