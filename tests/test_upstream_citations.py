"""Code that reproduces upstream cites the section of docs/upstream-behaviour.md it implements.

A citation is `docs/upstream-behaviour.md#anchor`, possibly followed in the same sentence by
more anchors (`#a, #b and #c`); each must name an anchor the document has, so a renamed
section cannot leave the code pointing nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "docs" / "upstream-behaviour.md"
PACKAGE = ROOT / "recipelint"
# The modules that reproduce the upstream compiler (resolve/deployment.py models vLLM, not upstream).
REPRODUCING = [
    *(
        p
        for p in sorted((PACKAGE / "resolve").glob("*.py"))
        if p.stem not in ("__init__", "deployment")
    ),
    *(
        PACKAGE / name
        for name in (
            "compile/publication.py",
            "jsvalue.py",
            "read/load.py",
            "read/tree.py",
            "argv.py",
        )
    ),
]
# From the document's name to the end of the sentence: the anchors it cites.
_CITATION = re.compile(r"upstream-behaviour\.md((?:[^.)]|\.(?=\w))*)")


def anchors() -> set[str]:
    return set(re.findall(r'<a id="([^"]+)"></a>', DOCUMENT.read_text(encoding="utf-8")))


def citations(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [anchor for run in _CITATION.findall(text) for anchor in re.findall(r"#([\w-]+)", run)]


@pytest.mark.parametrize("path", REPRODUCING, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_a_module_reproducing_upstream_cites_what_it_implements(path: Path) -> None:
    assert citations(path), f"{path.name} cites no section of docs/upstream-behaviour.md"


def test_every_citation_in_the_package_names_an_existing_anchor() -> None:
    known = anchors()
    dangling = {
        f"{path.relative_to(ROOT)}#{anchor}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for anchor in citations(path)
        if anchor not in known
    }
    assert dangling == set()
