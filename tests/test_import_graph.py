"""The package's import graph has no circle.

A circle between modules is a back door: each side can reach the other's internals, and
which one finishes importing first decides what the other sees. Imports made only for
type checking are left out (they never run); imports inside functions count, since they
run and tie the modules as firmly as a top-level one.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every set of two or more modules that import one another in a circle (Tarjan)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = lowest[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                lowest[module] = min(lowest[module], lowest[imported])
            elif imported in on_stack:
                lowest[module] = min(lowest[module], index[imported])
        if lowest[module] == index[module]:
            members: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == module:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def _edges_within(graph: grimp.ImportGraph, members: list[str]) -> list[str]:
    return [
        f"{importer} -> {imported} (line {detail['line_number']})"
        for importer in members
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if imported in members
        for detail in graph.get_import_details(importer=importer, imported=imported)
    ]


def test_the_package_imports_in_one_direction() -> None:
    graph = grimp.build_graph("recipelint", exclude_type_checking_imports=True)
    circles = _circles(graph)
    assert not circles, "import circles:\n" + "\n\n".join(
        "\n".join(_edges_within(graph, members)) for members in circles
    )


def test_a_planted_circle_is_found() -> None:
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert _circles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_the_stages_import_downward_only(capsys: pytest.CaptureFixture[str]) -> None:
    """The contracts in pyproject.toml ([tool.importlinter]): the stage packages form layers
    (commands, lsp, fix, check, report, rules | compile, configuration, rulebook, schema,
    resolve, flags, checkcache, read), and the top-level helpers import no stage."""
    kept = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    assert kept == 0, capsys.readouterr().out
