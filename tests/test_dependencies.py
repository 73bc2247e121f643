"""Every dependency the package declares is imported by it.

A dependency nothing imports is a cost for every user (download, install, audit) that
buys nothing.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
PACKAGE = PROJECT / "recipelint"


def declared_dependencies() -> list[str]:
    """Distribution names of ``[project] dependencies``, without versions or markers."""
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.match(r"[A-Za-z0-9._-]+", spec) for spec in project["dependencies"]]
    return [name.group(0) for name in names if name]


def package_files() -> Iterator[Path]:
    yield from sorted(PACKAGE.rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, dotted as written, wherever the import statement is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def top_level(module: str) -> str:
    return module.split(".")[0]


def normalised(distribution: str) -> str:
    """PEP 503 normal form: ``ruamel.yaml`` and ``ruamel-yaml`` name one distribution."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def distributions_by_import() -> dict[str, set[str]]:
    """Normalised distribution name -> the top-level import names it provides."""
    provides: dict[str, set[str]] = {}
    for module, distributions in importlib.metadata.packages_distributions().items():
        for distribution in distributions:
            provides.setdefault(normalised(distribution), set()).add(module)
    return provides


def unused_dependencies(
    declared: list[str], imported: set[str], provides: dict[str, set[str]]
) -> list[str]:
    """The declared distributions none of whose modules the package imports.

    A namespace package (``ruamel``) is shared by several distributions, so a dotted
    distribution name counts only when that module, or one under it, is imported.
    """
    tops = {top_level(module) for module in imported}
    unused = []
    for distribution in declared:
        dotted = distribution.lower()
        if "." in dotted:
            used = any(m == dotted or m.startswith(dotted + ".") for m in imported)
        else:
            used = bool(provides.get(normalised(distribution), set()) & tops)
        if not used:
            unused.append(distribution)
    return unused


def test_every_declared_dependency_is_installed() -> None:
    provides = distributions_by_import()
    missing = [d for d in declared_dependencies() if normalised(d) not in provides]
    assert not missing, f"{missing} are declared but not installed: reinstall the project"


def test_every_declared_dependency_is_imported_by_the_package() -> None:
    imported = {module for path in package_files() for module in imported_modules(path)}
    unused = unused_dependencies(declared_dependencies(), imported, distributions_by_import())
    assert not unused, (
        f"declared in [project] dependencies but imported nowhere in recipelint/: {unused}; "
        "import it where it is needed or remove it from pyproject.toml"
    )


def test_an_unused_dependency_is_found() -> None:
    provides = {"pyyaml": {"yaml", "_yaml"}, "ruamel-yaml": {"ruamel"}, "click": {"click"}}
    declared = ["PyYAML", "ruamel.yaml", "click"]
    assert unused_dependencies(declared, {"yaml", "click.testing"}, provides) == ["ruamel.yaml"]
    assert unused_dependencies(declared, {"_yaml", "ruamel.yaml.comments", "click"}, provides) == []
    # Another distribution in the ruamel namespace does not make ruamel.yaml used.
    assert unused_dependencies(["ruamel.yaml"], {"ruamel.other"}, provides) == ["ruamel.yaml"]
