"""Shared fixtures.

The upstream corpus (corpus/, seeds/, docs/ of a reference-data folder) is optional:
tests that need it skip with a reason when it is absent. Its folder is the one
setting below: the environment variable RECIPELINT_SHARED, else ``../shared`` next
to this checkout.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_VARIABLE = "RECIPELINT_SHARED"


def shared_folder() -> Path:
    """The folder holding corpus/, seeds/, docs/: $RECIPELINT_SHARED, else ../shared."""
    configured = os.environ.get(SHARED_VARIABLE)
    return Path(configured).expanduser().resolve() if configured else PROJECT_ROOT.parent / "shared"


# The suite checks many trees, some read-only and shared: no run keeps a check cache in
# them. Tests of the cache turn it back on for their own copies.
os.environ["RECIPELINT_NO_CACHE"] = "1"

SHARED = shared_folder()
CORPUS_TREE = SHARED / "corpus" / "upstream" / "tree"
EMBEDDED_TREE = PROJECT_ROOT / "recipes"
SKIP_REASON = (
    f"the upstream corpus is absent: set {SHARED_VARIABLE} to the folder holding corpus/ "
    f"(now {SHARED})"
)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not CORPUS_TREE.is_dir():
        pytest.skip(SKIP_REASON)
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


@pytest.fixture
def embedded_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the embedded tree to edit, and the current folder there (as pre-commit runs)."""
    root = tmp_path / "tree"
    shutil.copytree(EMBEDDED_TREE, root)
    monkeypatch.chdir(root)
    return root


def replace_once(path: Path, old: str, new: str) -> None:
    """Writes ``path`` with its one occurrence of ``old`` replaced by ``new``."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
