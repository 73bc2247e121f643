"""The compiled pre-check (jsonschema-rs) agrees with jsonschema on valid/invalid.

schema_findings skips jsonschema for a document the compiled validator accepts, so the
one thing that must never happen is "compiled: valid, jsonschema: invalid" (a lost
diagnostic). The tests demand full agreement anyway, on every real document, the
schema-test fixtures, and the systematic mutations test_model.py uses for the pydantic
models, plus strings aimed at the places where the regex dialects and date checks of
the two differ.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from test_model import (
    CORPUS_SAMPLE,
    FIXTURES,
    RICH_RECIPES,
    data_of,
    replaced,
)
from test_model import assert_agreement_under_mutation as assert_model_agreement

from recipelint.read.load import parse_yaml
from recipelint.read.tree import load_tree
from recipelint.schema.builtin import SCHEMA_FILES, load_schema
from recipelint.schema.check import schema_findings
from recipelint.schema.validators import (
    PYTHON_SPACE,
    fast_validator_for,
    known_valid,
    python_pattern_for_rust,
    validator_for,
)


def fast_accepts(kind: str, data: Any) -> bool | None:
    """The compiled verdict; None when it refuses the input (then jsonschema decides alone)."""
    try:
        return bool(fast_validator_for(kind).is_valid(data))
    except Exception:  # noqa: BLE001 - mirrors known_valid
        return None


def disagreement(kind: str, data: Any) -> str | None:
    slow, fast = validator_for(kind).is_valid(data), fast_accepts(kind, data)
    if fast is None or fast == slow:
        return None
    return f"jsonschema accepts: {slow}, jsonschema-rs accepts: {fast}"


def assert_agreement_under_mutation(kind: str, data: Any, sample: int | None = None) -> int:
    return assert_model_agreement(kind, data, sample, compare=disagreement)


def test_every_kind_has_a_fast_validator() -> None:
    # A schema change that the pattern translation cannot follow would silently lose the speed.
    assert all(fast_validator_for(kind) is not None for kind in SCHEMA_FILES)


def test_python_space_is_what_python_re_calls_whitespace() -> None:
    every = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)
    assert "".join(re.findall(r"\s", every)) == PYTHON_SPACE


def _patterns(node: Any, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                found.add(value)
            elif key == "patternProperties" and isinstance(value, dict):
                found.update(value)
            _patterns(value, found)
    elif isinstance(node, list):
        for value in node:
            _patterns(value, found)
    return found


SCHEMA_PATTERNS = sorted(
    set().union(*(_patterns(load_schema(kind), set()) for kind in SCHEMA_FILES))
)
# Where Python's `re` and the ECMA/Rust dialects part ways: whitespace classes, `$` before a final
# newline, non-ASCII digits and letters.
TRICKY = [
    "",
    "a",
    "a/b",
    "a\x1c/b",
    "a\ufeff/b",
    "a\u00a0/b",
    "a /b",
    "a/b\n",
    "a/b\n\n",
    "\na/b",
    "a\x85/b",
    "0.20.0",
    "0.20.0\n",
    "0.2٠.0",
    "7B",
    "7B\n",
    "1.5T",
    "--flag",
    "--flag\n",
    "--Flag",
    "x_y",
    "x-y",
    "2026-05-01",
    "2026-05-01\n",
    "２０２６-05-01",
    "https://x",
    "http://x",
    "ftp://x",
    "a.b-c",
    "a..b",
    "A",
    "_a",
    "é",
    "a\u2028b",
    "a\rb",
    "ab\r",
]


@pytest.mark.parametrize("pattern", SCHEMA_PATTERNS)
def test_translated_patterns_match_what_python_matches(pattern: str) -> None:
    fast = jsonschema_rs.Draft202012Validator({"pattern": python_pattern_for_rust(pattern)})
    for text in TRICKY:
        assert fast.is_valid(text) == bool(re.search(pattern, text)), (pattern, text)


@pytest.mark.parametrize(
    "pattern", [r"^\d+$", r"^\w$", r"a.b", r"\bx", r"(?i)x", r"[]a]", r"[[a]]", "x\\"]
)
def test_patterns_the_translation_cannot_vouch_for_are_refused(pattern: str) -> None:
    from recipelint.schema.validators import _Untranslatable

    with pytest.raises(_Untranslatable):
        python_pattern_for_rust(pattern)


@pytest.mark.parametrize(
    "value",
    [
        "0000-01-01",
        "2024-02-29",
        "2023-02-29",
        "2026-13-01",
        "2026-1-01",
        "2026-01-01T00:00:00Z",
        "２０２６-01-01",
        "2026-05-01\n",
        "9999-12-31",
    ],
)
def test_dates_follow_jsonschemas_format_checker(value: str) -> None:
    data = replaced(data_of(FIXTURES["recipe"], "recipe"), ("meta", "date_added"), lambda _: value)
    assert disagreement("recipe", data) is None


@pytest.mark.parametrize("kind", sorted(FIXTURES))
def test_agreement_on_every_mutation_of_the_fixtures(kind: str) -> None:
    data = data_of(FIXTURES[kind], kind)
    assert fast_accepts(kind, data) is True
    assert assert_agreement_under_mutation(kind, data) > 100


def test_agreement_on_every_real_document(
    corpus_tree: Path, edge_tree: Path, embedded_tree: Path
) -> None:
    checked = rejected = 0
    for root in (corpus_tree, edge_tree, embedded_tree):
        for doc in load_tree(root).documents():
            if doc.usable and doc.kind in SCHEMA_FILES:
                checked += 1
                assert fast_accepts(doc.kind, doc.data) is not None, doc.rel
                assert disagreement(doc.kind, doc.data) is None, doc.rel
                rejected += not known_valid(doc)
    assert (
        checked > 150 and rejected > 5
    )  # the corpus has invalid documents: both sides are exercised


@pytest.mark.slow
@pytest.mark.parametrize("rel", sorted(RICH_RECIPES))
def test_agreement_under_mutation_of_rich_corpus_recipes(corpus_tree: Path, rel: str) -> None:
    data = next(d.data for d in load_tree(corpus_tree).recipes if d.rel == rel)
    assert assert_agreement_under_mutation("recipe", data, CORPUS_SAMPLE) > 200


def test_agreement_under_mutation_of_corpus_vocabulary_files(corpus_tree: Path) -> None:
    tree = load_tree(corpus_tree)
    for doc in [tree.taxonomy, tree.platforms, tree.strategies[-1], tree.kv_stores[0]]:
        assert doc is not None
        assert assert_agreement_under_mutation(doc.kind, doc.data, CORPUS_SAMPLE) > 200


@pytest.mark.parametrize("model_id", ["acme/x\x1c", "acme/x\x1f", "acme/x\u3000y", "acme/x\n\n"])
def test_whitespace_python_sees_is_still_reported(model_id: str) -> None:
    # Rust's and ECMA's `\s` lack \x1c-\x1f: without the translation these slipped through.
    doc = parse_yaml(FIXTURES["recipe"], kind="recipe")
    doc.data["model"]["model_id"] = model_id
    assert not known_valid(doc)
    assert any(f.pointer == ("model", "model_id") for f in schema_findings(doc))


def test_documents_the_compiled_validator_cannot_read_go_to_jsonschema() -> None:
    doc = parse_yaml(FIXTURES["recipe"], kind="recipe")
    doc.data["variants"][1] = {}  # a non-string key: jsonschema-rs refuses the input
    assert not known_valid(doc)
    assert schema_findings(doc)


def test_agreement_on_every_catalog_example() -> None:
    from recipelint.rulebook.catalog import load_rulebook

    checked = 0
    for code, rule in sorted(load_rulebook().items()):
        for example in [*rule.failing, *rule.passing]:
            path = example.path
            kind = "recipe" if path.startswith("models/") else path.split("/", 1)[0].rstrip("s")
            doc = parse_yaml(example.content, path=Path(path), kind=kind)
            if doc.usable and kind in SCHEMA_FILES:
                checked += 1
                assert disagreement(kind, doc.data) is None, (code, path)
    assert checked > 100
