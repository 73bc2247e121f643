"""The pydantic models and the JSON Schemas generated from them accept the same documents.

The models are the format's source (recipelint.schema.schemagen writes the schemas); pydantic
validates with its own code and the checker with jsonschema, so this proves that the
generated schema says what the models mean, validators included (uniqueness, real
calendar days, non-empty mappings, nulls).

Agreement is checked on every real document, on the schema-test fixtures, and on
systematic mutations of fixtures and rich corpus recipes: every node replaced by
values of every JSON type, every mapping given an unknown key and stripped of each
key in turn, every list given a duplicate and a foreign item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from test_schema import KV_STORE, RECIPE, STRATEGY, TAXONOMY

from recipelint.read.load import parse_yaml
from recipelint.read.tree import load_tree
from recipelint.schema.builtin import SCHEMA_FILES
from recipelint.schema.model import MODELS, Recipe, parse_document
from recipelint.schema.validators import validator_for

PLATFORMS = "platforms:\n  - id: modal\n    name: Modal\n    url: https://modal.com/docs\n    blurb: Serverless\n"
FIXTURES = {
    "recipe": RECIPE,
    "strategy": STRATEGY,
    "kv_store": KV_STORE,
    "taxonomy": TAXONOMY,
    "platforms": PLATFORMS,
}

# Values of every JSON type, plus strings that sit on the edge of enums and patterns.
REPLACEMENTS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    12345,
    1.5,
    [],
    ["x"],
    [1],
    {},
    {"zz": 1},
    "",
    "x",
    "nightly",
    "2026-02-30",
    "2026-05-01",
    "0.20.0",
    "0.26.0rc1",
    "7B",
    "1.5T",
    "H200",
    "with space",
    "https://x.dev",
    "acme/x",
    "--flag",
    "hard",
    "mxfp8",
    "verified",
    "supported",
    "tp_pp",
    "dep",
    "production",
    "embedded",
    "t2a",
    "kv_store_lb",
]
# Corpus documents are large: a spread sample keeps each test to about a second.
CORPUS_SAMPLE = 250


def schema_accepts(kind: str, data: Any) -> bool:
    return validator_for(kind).is_valid(data)


def model_accepts(kind: str, data: Any) -> bool:
    try:
        MODELS[kind].model_validate(data)
    except ValidationError:
        return False
    return True


def disagreement(kind: str, data: Any) -> str | None:
    by_schema, by_model = schema_accepts(kind, data), model_accepts(kind, data)
    return (
        None if by_schema == by_model else f"schema accepts: {by_schema}, model accepts: {by_model}"
    )


def data_of(text: str, kind: str) -> Any:
    doc = parse_yaml(text, kind=kind)
    assert doc.usable
    return doc.data


# ----------------------------------------------------------------------------- mutations


def pointers(data: Any, at: tuple = ()) -> Iterator[tuple]:
    yield at
    if isinstance(data, dict):
        for key, value in data.items():
            yield from pointers(value, at + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from pointers(value, at + (index,))


def replaced(data: Any, pointer: tuple, change: Any) -> Any:
    """A copy with the node at pointer passed through change (only the path is copied)."""
    if not pointer:
        return change(data)
    head, rest = pointer[0], pointer[1:]
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[head] = replaced(data[head], rest, change)
    return copy


def mutations(data: Any) -> Iterator[tuple[str, Any]]:
    for pointer in pointers(data):
        node = _get(data, pointer)
        for value in REPLACEMENTS:
            if pointer:
                yield f"{pointer} = {value!r}", replaced(data, pointer, lambda _, v=value: v)
        if isinstance(node, dict):
            yield (
                f"{pointer} + unknown key",
                replaced(data, pointer, lambda n: {**n, "zz_unknown": "v"}),
            )
            for key in node:
                yield (
                    f"{pointer} - {key}",
                    replaced(
                        data, pointer, lambda n, k=key: {x: y for x, y in n.items() if x != k}
                    ),
                )
        if isinstance(node, list) and node:
            yield f"{pointer} + duplicate", replaced(data, pointer, lambda n: [*n, n[0]])
            yield f"{pointer} + number", replaced(data, pointer, lambda n: [*n, 5])


def _get(data: Any, pointer: tuple) -> Any:
    for part in pointer:
        data = data[part]
    return data


def assert_agreement_under_mutation(
    kind: str,
    data: Any,
    sample: int | None = None,
    compare: Callable[[str, Any], str | None] | None = None,
) -> int:
    """Check every mutation, or an evenly spread sample of about ``sample`` of them, with
    ``compare`` (default: schema against pydantic model) naming any disagreement."""
    compare = compare or disagreement
    every = max(1, sum(1 for _ in mutations(data)) // sample) if sample else 1
    failures, count = [], 0
    for index, (label, mutated) in enumerate(mutations(data)):
        if index % every:
            continue
        count += 1
        problem = compare(kind, mutated)
        if problem:
            failures.append(f"{label}: {problem}")
    assert failures == []
    return count


# ----------------------------------------------------------------------------- tests


def test_every_kind_with_a_schema_has_a_model() -> None:
    assert sorted(MODELS) == sorted(SCHEMA_FILES)


@pytest.mark.parametrize("kind", sorted(FIXTURES))
def test_fixture_is_accepted_by_both(kind: str) -> None:
    data = data_of(FIXTURES[kind], kind)
    assert schema_accepts(kind, data) and model_accepts(kind, data)


@pytest.mark.parametrize("kind", sorted(FIXTURES))
def test_agreement_on_every_mutation_of_the_fixtures(kind: str) -> None:
    count = assert_agreement_under_mutation(kind, data_of(FIXTURES[kind], kind))
    assert count > 100


@pytest.mark.parametrize(
    "text,kind",
    [
        (RECIPE.replace("extra_args:", "extra_argz:"), "recipe"),
        (RECIPE.replace('VLLM_USE_V1: "1"', "VLLM_USE_V1: 1"), "recipe"),
        (RECIPE.replace("  date_added: 2026-05-01\n", ""), "recipe"),
        (RECIPE.replace("difficulty: beginner", "difficulty: hard"), "recipe"),
        (RECIPE.replace('"0.20.0"', '"nightly"'), "recipe"),
        (RECIPE.replace("date_added: 2026-05-01", 'date_added: "2026-02-30"'), "recipe"),
        (RECIPE.replace('parameter_count: "7B"', 'parameter_count: "Undisclosed"'), "recipe"),
        (
            RECIPE.replace("  default:\n    precision: bf16\n    vram_minimum_gb: 17\n", ""),
            "recipe",
        ),
        (RECIPE.replace("vram_minimum_gb: 9\n", 'vram_minimum_gb: 9\n    tp: "2"\n'), "recipe"),
        (RECIPE.replace("  base_env:\n", "  install:\n    pip: true\n  base_env:\n"), "recipe"),
        (RECIPE.replace("  base_env:\n", "  install:\n    pip: 0\n  base_env:\n"), "recipe"),
        (RECIPE.replace("  base_env:\n", "  docker_image: {}\n  base_env:\n"), "recipe"),
        (STRATEGY + "env:\n  X: 1\n", "strategy"),
        (KV_STORE.replace("deploy_type: kv_store_lb", "deploy_type: single_node"), "kv_store"),
        (TAXONOMY.replace("vram_gb: 1128", "vram_gb: 0"), "taxonomy"),
        (PLATFORMS.replace("https://modal.com/docs", "modal.com"), "platforms"),
    ],
)
def test_negative_fixtures_are_rejected_by_both(text: str, kind: str) -> None:
    data = data_of(text, kind)
    assert not schema_accepts(kind, data)
    assert not model_accepts(kind, data)


def test_agreement_on_every_real_document(
    corpus_tree: Path, edge_tree: Path, embedded_tree: Path
) -> None:
    checked = 0
    for root in (corpus_tree, edge_tree, embedded_tree):
        for doc in load_tree(root).documents():
            if doc.usable:
                checked += 1
                assert disagreement(doc.kind, doc.data) is None, doc.rel
    assert checked > 150


# Rich recipes, each made valid first (the repairs fix the reviewed corpus defects), so
# that every mutation starts from an accepted document.
RICH_RECIPES: dict[str, list[tuple[tuple, Any]]] = {
    "models/deepseek-ai/DeepSeek-V4-Flash.yaml": [
        (("meta", "difficulty"), "advanced")
    ],  # modes, notes, PD nodes map
    "models/moonshotai/Kimi-K3.yaml": [
        (("meta", "difficulty"), "advanced"),
        (("model", "active_parameters"), "32B"),
    ],  # strategy_min_gpus maps, router
    "models/Google/gemma-4-26B-A4B-it.yaml": [],  # meta.platforms objects
    "models/MiniMaxAI/MiniMax-M3.yaml": [],  # feature hardware_overrides, CUDA docker map
    "models/thinkingmachines/Inkling-Small.yaml": [],  # pool_modes, variant tp maps, strategy_hardware
    "models/nvidia/Cosmos3-Nano.yaml": [],  # omni task objects, install pip null
}


@pytest.mark.slow
@pytest.mark.parametrize("rel", sorted(RICH_RECIPES))
def test_agreement_under_mutation_of_rich_corpus_recipes(corpus_tree: Path, rel: str) -> None:
    data = next(d.data for d in load_tree(corpus_tree).recipes if d.rel == rel)
    for pointer, value in RICH_RECIPES[rel]:
        data = replaced(data, pointer, lambda _, v=value: v)
    assert schema_accepts("recipe", data) and model_accepts("recipe", data)
    assert assert_agreement_under_mutation("recipe", data, CORPUS_SAMPLE) > 200


def test_agreement_under_mutation_of_corpus_vocabulary_files(corpus_tree: Path) -> None:
    tree = load_tree(corpus_tree)
    for doc in [tree.taxonomy, tree.platforms, tree.strategies[-1], tree.kv_stores[0]]:
        assert doc is not None
        assert assert_agreement_under_mutation(doc.kind, doc.data, CORPUS_SAMPLE) > 200


def test_typed_access() -> None:
    recipe = parse_document(parse_yaml(RECIPE, kind="recipe"))
    assert isinstance(recipe, Recipe)
    assert recipe.meta.date_added == "2026-05-01" and recipe.meta.tasks == ["text"]
    assert recipe.model.context_length == 32768 and recipe.model.base_env == {"VLLM_USE_V1": "1"}
    assert recipe.default_variant.precision == "bf16"
    assert recipe.variants["fp8"].extra_args == ["--kv-cache-dtype", "fp8"]
    assert (
        recipe.features is not None
        and recipe.features["tool_calling"].args[0] == "--enable-auto-tool-choice"
    )


def test_parse_document_returns_none_for_invalid_unusable_and_other_documents() -> None:
    assert (
        parse_document(parse_yaml(RECIPE.replace("extra_args:", "extra_argz:"), kind="recipe"))
        is None
    )
    assert parse_document(parse_yaml("meta: [", kind="recipe")) is None
    assert parse_document(parse_yaml("a: 1\n", kind="other")) is None
