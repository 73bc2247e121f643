"""docs/security.md names a test for every mitigation: each named test must exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
DOC = PROJECT / "docs" / "security.md"
# `tests/test_x.py::test_name`, `tests/test_x.py`, and `::test_other` continuing the last file.
REFERENCE = re.compile(r"`(tests/test_\w+\.py)?(?:::(test_\w+))?`")


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def referenced_tests() -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        current = None
        for match in REFERENCE.finditer(line):
            file, name = match.groups()
            if file:
                current = file
            if current and (file or name):
                found.append((current, name))
    return found


def test_every_test_named_in_the_threat_model_exists() -> None:
    references = referenced_tests()
    assert len(references) > 40
    missing = []
    for file, name in references:
        path = PROJECT / file
        if not path.is_file() or (name and name not in _test_names(path)):
            missing.append(f"{file}::{name}" if name else file)
    assert not missing, f"docs/security.md names tests that do not exist: {missing}"


def test_every_security_test_file_is_named_in_the_threat_model() -> None:
    named = {file for file, _ in referenced_tests()}
    ours = {f"tests/{p.name}" for p in (PROJECT / "tests").glob("test_security_*.py")}
    ours |= {f"tests/{p.name}" for p in (PROJECT / "tests").glob("test_fuzz_*.py")}
    ours.discard("tests/test_security_docs.py")
    assert ours <= named, f"not in docs/security.md: {sorted(ours - named)}"
