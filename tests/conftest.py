"""Shared fixtures. Data under ../shared is optional: tests that need it skip."""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED = PROJECT_ROOT.parent / "shared"
EMBEDDED_TREE = PROJECT_ROOT / "recipes"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "corpus" / "upstream" / "tree").is_dir():
        pytest.skip("../shared (the upstream corpus) is not present next to this checkout")
    return SHARED


@pytest.fixture(scope="session")
def corpus_tree(shared_dir: Path) -> Path:
    return shared_dir / "corpus" / "upstream" / "tree"


@pytest.fixture(scope="session")
def edge_tree(shared_dir: Path) -> Path:
    return shared_dir / "corpus" / "edge" / "tree"


@pytest.fixture(scope="session")
def embedded_tree() -> Path:
    return EMBEDDED_TREE
