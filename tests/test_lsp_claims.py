"""What a buffer that does not parse still says of itself: the release its flags are judged at.

Completion offers the flags of the recipe's minimum release; while a line is half typed
(a quote left open) the text does not parse, and the release comes from the last text
that parsed, else from the indentation of the text itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from treehelp import build_tree, context_text

from recipelint.flags.catalog import catalog_for, newest_catalog
from recipelint.lsp.completion import complete
from recipelint.lsp.convert import Lines
from recipelint.lsp.cursor import cursor_at, scalar_in_text, split_lines
from recipelint.lsp.workspace import LoadedTree, Workspace

RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
OPEN_QUOTE = '    - "--max-mo\n'


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_tree(tmp_path / "recipes", {RECIPE: context_text(RECIPE)}).resolve()


def _typing(text: str) -> str:
    """The recipe with a flag being typed into base_args, its quote not closed yet."""
    typed = text.replace("  base_args: []\n", "  base_args:\n" + OPEN_QUOTE, 1)
    assert typed != text
    return typed


def _completed_labels(loaded: LoadedTree, path: Path, text: str) -> set[str]:
    """The labels completion offers at the end of the half-typed flag."""
    doc = loaded.document(path)
    assert doc is not None and not doc.usable, "the half-typed buffer does not parse"
    before = text[: text.index(OPEN_QUOTE) + len(OPEN_QUOTE) - 1]
    line, character = before.count("\n"), len(before) - (before.rfind("\n") + 1)
    cursor = cursor_at(split_lines(text), line, character)
    claims = loaded.claims(path, cursor.variant)
    return {item.label for item in complete(loaded.tree, doc, cursor, Lines(text), claims)}


def _flags_of(version: str) -> set[str]:
    catalog = catalog_for(version)
    assert catalog is not None
    assert set(catalog.flags) != set(newest_catalog().flags)
    return set(catalog.flags)


def test_an_open_quote_keeps_the_release_of_the_last_text_that_parsed(tree: Path) -> None:
    path = tree / RECIPE
    loaded = Workspace().tree_of(path)
    assert loaded is not None
    text = _typing(path.read_text(encoding="utf-8"))
    loaded.set_text(path, text)
    assert _completed_labels(loaded, path, text) == _flags_of("0.8.5")


def test_a_new_file_that_never_parsed_reads_its_release_from_its_indentation(tree: Path) -> None:
    new = tree / "models" / "acme" / "demo.yaml"
    loaded = Workspace().tree_of(new)
    assert loaded is not None
    text = _typing(context_text(RECIPE)).replace('"0.8.5"', '"0.10.0"  # raised')
    loaded.set_text(new, text)
    assert loaded.last_parsed == {}
    assert _completed_labels(loaded, new, text) == _flags_of("0.10.0")


def test_a_variant_block_reads_its_own_higher_release(tree: Path) -> None:
    new = tree / "models" / "acme" / "demo.yaml"
    loaded = Workspace().tree_of(new)
    assert loaded is not None
    text = context_text(RECIPE).replace(
        '    label: "AWQ"\n',
        '    label: "AWQ"\n    min_vllm_version: "0.10.0"\n    extra_args:\n  ' + OPEN_QUOTE,
    )
    loaded.set_text(new, text)
    assert _completed_labels(loaded, new, text) == _flags_of("0.10.0")


def test_a_scalar_is_read_only_at_its_own_path() -> None:
    lines = split_lines(
        "meta:\n  min_vllm_version: 9.9\nmodel:\n  name: x\n"
        "  min_vllm_version: '0.9.2'  # a comment\n  args:\n    - \"--x\n"
    )
    assert scalar_in_text(lines, ("model", "min_vllm_version")) == "0.9.2"
    assert scalar_in_text(lines, ("meta", "min_vllm_version")) == "9.9"
    assert scalar_in_text(lines, ("variants", "a", "min_vllm_version")) is None
