"""A declared dependency is imported plainly: never a fallback that hides its absence.

A `try: import x / except ImportError` around a dependency the package declares is dead
code in every install, and in a broken one it trades a clear ImportError for a slower or
different recipelint (issue: orjson and jsonschema-rs had such fallbacks).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from test_dependencies import (
    declared_dependencies,
    distributions_by_import,
    normalised,
    package_files,
    top_level,
)

PROJECT = Path(__file__).resolve().parents[1]
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}


def _catches_import_errors(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(isinstance(name, ast.Name) and name.id in _IMPORT_ERRORS for name in names)


def guarded_imports(path: Path) -> set[str]:
    """Top-level modules imported inside a `try` whose handlers catch ImportError."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if not isinstance(node, ast.Try) or not any(map(_catches_import_errors, node.handlers)):
            continue
        for statement in node.body:
            for inner in ast.walk(statement):
                if isinstance(inner, ast.Import):
                    found.update(top_level(alias.name) for alias in inner.names)
                elif isinstance(inner, ast.ImportFrom) and inner.module and inner.level == 0:
                    found.add(top_level(inner.module))
    return found


def test_no_declared_dependency_is_imported_behind_a_fallback() -> None:
    provides = distributions_by_import()
    declared = {
        module
        for distribution in declared_dependencies()
        for module in provides.get(normalised(distribution), set())
    }
    assert "orjson" in declared and "jsonschema_rs" in declared  # the check sees them
    guarded = {
        str(path.relative_to(PROJECT)): sorted(guarded_imports(path) & declared)
        for path in package_files()
    }
    assert {path: names for path, names in guarded.items() if names} == {}


@pytest.mark.parametrize(
    ("missing", "module"),
    [("orjson", "recipelint.jsvalue"), ("jsonschema_rs", "recipelint.schema.validators")],
)
def test_a_missing_dependency_is_an_import_error(missing: str, module: str) -> None:
    script = f"import sys; sys.modules[{missing!r}] = None; import {module}"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and last.startswith("ModuleNotFoundError") and missing in last
