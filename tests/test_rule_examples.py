"""How a catalog example's fragment becomes a file: merged into the base document of its kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_harness import DEMO_RECIPE
from treehelp import CONTEXT, Fragment, findings_by_code

from recipelint.read.load import parse_yaml
from recipelint.read.tree import recipe_hf_id
from recipelint.rulebook.catalog import DEFAULT_EXAMPLE_PATH, Example, load_rulebook
from recipelint.rulebook.docs import explain_text
from recipelint.rulebook.examples import (
    ExampleError,
    base_document,
    file_kind,
    fragment_changes,
    merged_document,
)

RECIPE = DEFAULT_EXAMPLE_PATH


def merged(fragment: str) -> dict:
    return parse_yaml(merged_document(RECIPE, fragment)).data


def test_mappings_merge_key_by_key() -> None:
    data = merged("meta:\n  slug: other\nvariants:\n  fp8: {precision: fp8}\n")
    assert data["meta"] == {**DEMO_RECIPE["meta"], "slug": "other"}
    assert data["variants"] == {**DEMO_RECIPE["variants"], "fp8": {"precision": "fp8"}}
    assert list(data) == list(DEMO_RECIPE)  # keys keep the base's order


def test_lists_and_scalars_replace_the_base_value() -> None:
    data = merged('meta:\n  tasks: [embed]\nmodel:\n  base_args: ["--seed", "1"]\n')
    assert data["meta"]["tasks"] == ["embed"]
    assert data["model"]["base_args"] == ["--seed", "1"]


def test_delete_removes_a_key_and_null_stays_a_value() -> None:
    data = merged("meta:\n  slug: !delete\nguide: null\n")
    assert "slug" not in data["meta"]
    assert data["guide"] is None


def test_new_keys_join_the_end_of_their_mapping() -> None:
    data = merged("model:\n  docker_image: vllm/vllm-openai:v0.20.0\n")
    assert list(data["model"])[-1] == "docker_image"


def test_the_fragment_text_survives_as_written() -> None:
    text = merged_document(
        RECIPE,
        'meta:\n  date_added: 2026-02-30\n  tasks: ["text"]  # why this matters\n'
        "model:\n  base_env: {FLAG: yes}\n",
    )
    assert "date_added: 2026-02-30\n" in text  # an impossible date is not constructed
    assert 'tasks: ["text"]  # why this matters' in text
    assert parse_yaml(text).data["model"]["base_env"] == {"FLAG": "yes"}  # YAML 1.2: a string
    assert not text.startswith("#")  # the base file's header stays out


@pytest.mark.parametrize("fragment", ["- a list\n", "plain words\n", "a: [\n", "a: 1\na: 2\n"])
def test_a_fragment_that_is_no_mapping_is_an_example_error(fragment: str) -> None:
    with pytest.raises(ExampleError):
        merged_document(RECIPE, fragment)


def test_a_kind_without_a_base_is_an_example_error() -> None:
    with pytest.raises(ExampleError, match="no base document"):
        merged_document("platforms.yaml", "a: 1\n")


def test_fragment_changes_names_the_keys_set_and_removed() -> None:
    fragment = "meta:\n  slug: !delete\n  title: T\nfeatures:\n  x: {args: []}\n"
    assert fragment_changes(RECIPE, fragment) == (["meta.title", "features"], ["meta.slug"])


def test_file_kinds_follow_the_tree_layout() -> None:
    assert [
        file_kind(path)
        for path in (RECIPE, "strategies/x.yaml", "kv_store/y.yaml", "taxonomy.yaml", "a.txt")
    ] == ["recipe", "strategy", "kv_store", "taxonomy", "other"]


def test_the_default_path_publishes_the_base_recipe_model_id() -> None:
    assert recipe_hf_id(RECIPE) == DEMO_RECIPE["model"]["model_id"]


@pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)
@pytest.mark.parametrize(
    ("path", "restated"),
    [
        (RECIPE, "meta:\n  title: Demo\n"),
        ("strategies/single_node_tp.yaml", "name: single_node_tp\n"),
    ],
)
def test_each_base_document_alone_has_no_findings(tmp_path: Path, path: str, restated: str) -> None:
    assert (
        parse_yaml(merged_document(path, restated)).data
        == parse_yaml(base_document(file_kind(path))).data
    )
    assert findings_by_code(tmp_path, {path: Fragment(restated)}) == {}


def test_explain_prints_the_merged_file_and_names_what_the_fragment_changes() -> None:
    info = load_rulebook()["RL304"]
    text = explain_text(info)
    failing = info.failing[0]
    assert failing.is_fragment
    assert f"Fails ({RECIPE}: the base recipe with model.base_args set):" in text
    assert all("    " + line in text.splitlines() for line in failing.content.splitlines() if line)


def test_an_example_written_whole_is_its_own_content() -> None:
    whole = Example("models/acme/x.yaml", "meta: {}\n")
    assert whole.content == "meta: {}\n" and not whole.is_fragment
