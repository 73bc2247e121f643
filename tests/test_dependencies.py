"""What the package declares and what it imports agree, and only the command layer uses click.

A dependency nothing imports is a cost for every user (download, install, audit) that
buys nothing; a library module that imports click ties the checker to one front end.
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
# The front end: the entry point and the commands; everything else is library code.
COMMAND_LAYER = (PACKAGE / "cli.py", PACKAGE / "commands")


def declared_dependencies() -> list[str]:
    """Distribution names of ``[project] dependencies``, without versions or markers."""
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.match(r"[A-Za-z0-9._-]+", spec) for spec in project["dependencies"]]
    return [name.group(0) for name in names if name]


def package_files() -> Iterator[Path]:
    yield from sorted(PACKAGE.rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    """Top-level names of every module a file imports, wherever the import statement is."""
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


def test_every_declared_dependency_is_imported_by_the_package() -> None:
    imported = {module for path in package_files() for module in imported_modules(path)}
    imported_tops = {top_level(module) for module in imported}
    provides = distributions_by_import()
    unused = []
    for distribution in declared_dependencies():
        modules = provides.get(normalised(distribution))
        assert modules, f"{distribution} is declared but not installed: reinstall the project"
        # A namespace package (ruamel) is shared: the module that is the distribution counts.
        dotted = distribution.lower()
        if dotted in imported or any(m.startswith(dotted + ".") for m in imported):
            continue
        if "." not in dotted and modules & imported_tops:
            continue
        unused.append(distribution)
    assert not unused, (
        f"declared in [project] dependencies but imported nowhere in recipelint/: {unused}; "
        "import it where it is needed or remove it from pyproject.toml"
    )


def test_only_the_command_layer_imports_click() -> None:
    def in_command_layer(path: Path) -> bool:
        return any(path == part or part in path.parents for part in COMMAND_LAYER)

    offenders = sorted(
        str(path.relative_to(PROJECT))
        for path in package_files()
        if not in_command_layer(path)
        and any(top_level(module) == "click" for module in imported_modules(path))
    )
    assert not offenders, (
        f"{offenders} import click: options and usage errors belong in recipelint/commands/"
    )
