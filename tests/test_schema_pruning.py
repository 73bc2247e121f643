"""The validator that words the RL1xx findings skips the values the compiled validator
accepts: it must yield exactly the errors jsonschema's own validator yields.

Compared on the fixtures and every systematic mutation of them (test_model.py's), on the
embedded tree, on the corpus when it is present, and on an overlaid schema.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema.exceptions import ValidationError
from test_model import CORPUS_SAMPLE, FIXTURES, data_of
from test_model import assert_agreement_under_mutation as assert_model_agreement

from recipelint.read.tree import load_tree
from recipelint.schema.builtin import SCHEMA_FILES
from recipelint.schema.validators import error_validator_for, validator_for

EMBEDDED = Path(__file__).resolve().parent.parent / "recipes"


def _error_form(error: ValidationError) -> tuple[Any, ...]:
    """What the findings read of an error, its alternatives' errors included."""
    return (
        error.message,
        error.validator,
        repr(error.validator_value),
        tuple(error.absolute_path),
        tuple(error.absolute_schema_path),
        _forms(error.context or []),
    )


def _forms(errors: list[ValidationError]) -> tuple[Any, ...]:
    # additionalProperties visits the extra keys of a mapping as a set: compared unordered.
    return tuple(sorted((_error_form(error) for error in errors), key=repr))


def pruning_disagreement(kind: str, data: Any, overlay: str = "") -> str | None:
    plain = _forms(list(validator_for(kind, overlay).iter_errors(data)))
    pruned = _forms(list(error_validator_for(kind, overlay).iter_errors(data)))
    return None if plain == pruned else f"jsonschema: {plain}\npruned: {pruned}"


def test_every_kind_is_pruned() -> None:
    for kind in SCHEMA_FILES:
        assert error_validator_for(kind) is not validator_for(kind)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(FIXTURES))
def test_the_same_errors_for_every_mutation_of_the_fixtures(kind: str) -> None:
    count = assert_model_agreement(
        kind, data_of(FIXTURES[kind], kind), compare=pruning_disagreement
    )
    assert count > 100


def test_the_same_errors_on_the_embedded_tree_under_mutation() -> None:
    tree = load_tree(EMBEDDED)
    for doc in tree.documents():
        if doc.usable and doc.kind in SCHEMA_FILES:
            assert pruning_disagreement(doc.kind, doc.data) is None, doc.rel
    recipe = next(doc for doc in tree.recipes if doc.usable)
    assert_model_agreement("recipe", recipe.data, CORPUS_SAMPLE, compare=pruning_disagreement)


def test_the_same_errors_on_the_corpus(corpus_tree: Path) -> None:
    for doc in load_tree(corpus_tree).documents():
        if doc.usable and doc.kind in SCHEMA_FILES:
            assert pruning_disagreement(doc.kind, doc.data) is None, doc.rel


def test_the_same_errors_under_an_overlay() -> None:
    patch = {
        "properties": {
            "meta": {
                "properties": {"team": {"type": "string", "pattern": "^[a-z]+$"}},
                "unevaluatedProperties": False,
            }
        }
    }
    overlay = json.dumps([patch], sort_keys=True)
    recipe = next(doc for doc in load_tree(EMBEDDED).recipes if doc.usable)
    for team in ("core", "Core", 7, None):
        data = {**recipe.data, "meta": {**recipe.data["meta"], "team": team}}
        assert pruning_disagreement("recipe", data, overlay) is None
