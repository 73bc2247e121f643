"""The errors of an invalid document, listed by the compiled validator, are the errors
jsonschema lists, as the messages read them (recipelint.schema.errors).

Compared on the fixtures and every systematic mutation of them (test_model.py's), on the
embedded tree, the corpus and every catalog example, error by error and finding by
finding, and on the cases where the compiled validator must leave the listing to jsonschema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_model import CORPUS_SAMPLE, FIXTURES, data_of
from test_model import assert_agreement_under_mutation as assert_model_agreement

from recipelint.read.load import parse_yaml
from recipelint.read.tree import load_tree
from recipelint.schema import errors
from recipelint.schema.builtin import SCHEMA_FILES
from recipelint.schema.check import schema_findings
from recipelint.schema.errors import SchemaError, from_jsonschema, listed_errors
from recipelint.schema.validators import validator_for


def _form(error: SchemaError) -> tuple[Any, ...]:
    """What the messages read of an error; the validators' own message texts differ."""
    return (
        error.validator,
        repr(error.validator_value),
        repr(error.instance),
        repr(error.schema),
        error.absolute_path,
        error.relative_path,
        error.absolute_schema_path,
        error.relative_schema_path,
        _forms(error.context),
    )


def _forms(listed: tuple[SchemaError, ...] | list[SchemaError]) -> tuple[Any, ...]:
    return tuple(sorted((_form(error) for error in listed), key=repr))


def by_jsonschema(kind: str, data: Any, overlay: str = "") -> list[SchemaError]:
    return [from_jsonschema(error) for error in validator_for(kind, overlay).iter_errors(data)]


def listing_disagreement(kind: str, data: Any, overlay: str = "") -> str | None:
    compiled = errors._compiled_errors(data, kind, overlay)
    if compiled is None:
        return None  # jsonschema lists them itself
    theirs, ours = _forms(by_jsonschema(kind, data, overlay)), _forms(compiled)
    return None if theirs == ours else f"jsonschema: {theirs}\ncompiled: {ours}"


@pytest.mark.parametrize("kind", sorted(FIXTURES))
def test_the_same_errors_for_every_mutation_of_the_fixtures(kind: str) -> None:
    count = assert_model_agreement(
        kind, data_of(FIXTURES[kind], kind), compare=listing_disagreement
    )
    assert count > 100


def _schema_documents(*roots: Path) -> list[Any]:
    return [
        doc
        for root in roots
        for doc in load_tree(root).documents()
        if doc.usable and doc.kind in SCHEMA_FILES
    ]


def _findings(doc: Any) -> list[tuple[Any, ...]]:
    return [(f.pointer, f.diagnostic) for f in schema_findings(doc)]


def test_the_same_findings_on_every_real_document(
    corpus_tree: Path, edge_tree: Path, embedded_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    documents = _schema_documents(corpus_tree, edge_tree, embedded_tree)
    invalid = [doc for doc in documents if listed_errors(doc.data, doc.kind)]
    compiled = [doc for doc in invalid if errors._compiled_errors(doc.data, doc.kind, "")]
    ours = {doc.rel: _findings(doc) for doc in invalid}
    monkeypatch.setattr(errors, "_compiled_errors", lambda *_: None)
    theirs = {doc.rel: _findings(doc) for doc in invalid}
    assert ours == theirs
    # The corpus has invalid documents, and the compiled validator lists their errors.
    assert len(invalid) > 5 and len(compiled) > 5


@pytest.mark.slow
def test_the_same_errors_under_mutation_of_corpus_documents(corpus_tree: Path) -> None:
    tree = load_tree(corpus_tree)
    for doc in [tree.recipes[0], tree.taxonomy, tree.strategies[-1], tree.kv_stores[0]]:
        assert doc is not None
        compare = listing_disagreement
        assert assert_model_agreement(doc.kind, doc.data, CORPUS_SAMPLE, compare) > 200


def test_the_same_findings_on_every_catalog_example(monkeypatch: pytest.MonkeyPatch) -> None:
    from recipelint.rulebook.catalog import load_rulebook

    documents = []
    for rule in load_rulebook().values():
        for example in [*rule.failing, *rule.passing]:
            path = example.path
            kind = "recipe" if path.startswith("models/") else path.split("/", 1)[0].rstrip("s")
            doc = parse_yaml(example.content, path=Path(path), kind=kind)
            if doc.usable and kind in SCHEMA_FILES:
                documents.append(doc)
    ours = [_findings(doc) for doc in documents]
    monkeypatch.setattr(errors, "_compiled_errors", lambda *_: None)
    assert ours == [_findings(doc) for doc in documents]
    assert len(documents) > 100 and any(ours)


def _recipe(**changes: Any) -> Any:
    data = data_of(FIXTURES["recipe"], "recipe")
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("label", "data"),
    [
        ("an alternative of an alternative", _recipe(variants={"x": {"precision": 3}})),
        ("a bad key name", _recipe(variants={"Bad Key!": {}})),
        ("several bad key names", _recipe(variants={"Bad Key!": {}, "Also Bad": {}})),
        ("a missing key and an unknown one", _recipe(model={"extra": 1})),
        ("a date of year 0000", _recipe(meta={**_recipe()["meta"], "date_added": "0000-01-01"})),
        ("a wrong type everywhere", {key: 7 for key in _recipe()}),
        ("a list where a mapping goes", _recipe(variants=["a"])),
    ],
)
def test_the_same_errors_on_chosen_shapes(label: str, data: Any) -> None:
    assert errors._compiled_errors(data, "recipe", "") is not None, label
    assert listing_disagreement("recipe", data) is None


def test_a_value_the_compiled_validator_cannot_read_is_listed_by_jsonschema() -> None:
    data = _recipe(variants={1: {}})  # a non-string key: jsonschema-rs refuses the input
    assert errors._compiled_errors(data, "recipe", "") is None
    assert _forms(listed_errors(data, "recipe")) == _forms(by_jsonschema("recipe", data))
    assert listed_errors(data, "recipe")


def test_a_keyword_the_messages_do_not_word_is_left_to_jsonschema() -> None:
    # `not` has no wording of its own: its finding would quote the validator's message,
    # which must stay jsonschema's, so the compiled validator's error is not converted.
    import jsonschema_rs

    root = {"properties": {"a": {"not": {"type": "string"}}, "b": {"type": "string"}}}
    listed = list(jsonschema_rs.Draft202012Validator(root).iter_errors({"a": "x", "b": 1}))
    converted = {e.instance_path[0]: errors._from_compiled(e, root, (), ()) for e in listed}
    assert converted["a"] is None
    assert converted["b"] is not None and converted["b"].validator == "type"
