"""RL201–RL214 (recipelint/rules/references.py): keyspaces per place, cross-file references,
the feature-mode rules upstream enforces.

A finding between two files reaches every named file that takes part in it (RL210):
pre-commit names only the files a commit touches, so a new recipe that copies another one's
slug must be reported when only the new file is checked, and each file must get the
findings a check of the whole tree gives it, so that a baseline written from the whole tree
matches a check of one file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import EMBEDDED_TREE
from hypothesis import example, given
from hypothesis import strategies as st
from rulehelp import findings_of
from treehelp import BlockYaml, base_recipe, checked, context_text, findings_by_code

from recipelint.cli import main
from recipelint.diagnostics import Diagnostic
from recipelint.rules.references import (
    MAX_RESPELLING_EDITS,
    MAX_SUGGESTION_INPUT,
    Keyspace,
    Suggester,
    _edits,
    _respelling,
    closest_name,
)


def recipe(**changes: Any) -> dict[str, Any]:
    """The base recipe with each ``parent__key=value`` set."""
    data = base_recipe()
    for dotted, value in changes.items():
        node = data
        *parents, last = dotted.split("__")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return data


def findings(tmp_path: Path, files: dict[str, dict[str, Any]], code: str) -> list[tuple[str, str]]:
    """(file, message) of each ``code`` finding in a tree holding ``files``."""
    documents = {rel: BlockYaml(data) for rel, data in files.items()}
    return [
        (d.path.relative_to(tmp_path).as_posix(), d.message)
        for d in checked(tmp_path, documents)
        if d.code == code
    ]


def test_duplicate_slug_is_reported_on_each_recipe_that_shares_it(tmp_path: Path) -> None:
    first = recipe()
    second = recipe(model__model_id="acme/other")
    third = recipe(model__model_id="acme/third")
    files = {"models/acme/demo.yaml": first, "models/acme/other.yaml": second}
    assert findings(tmp_path / "two", files, "RL210") == [
        ("models/acme/demo.yaml", "slug `demo` is also used by models/acme/other.yaml"),
        ("models/acme/other.yaml", "slug `demo` is already used by models/acme/demo.yaml"),
    ]
    files["models/acme/third.yaml"] = third
    assert findings(tmp_path / "three", files, "RL210") == [
        (
            "models/acme/demo.yaml",
            "slug `demo` is also used by models/acme/other.yaml and 1 other recipe",
        ),
        ("models/acme/other.yaml", "slug `demo` is already used by models/acme/demo.yaml"),
        ("models/acme/third.yaml", "slug `demo` is already used by models/acme/demo.yaml"),
    ]


def test_exact_id_is_ignored_at_recipe_level_but_read_in_a_variant(tmp_path: Path) -> None:
    data = recipe(hardware_overrides={"h200": {"extra_args": ["--max-num-seqs", "8"]}})
    data["variants"]["default"]["hardware_overrides"] = {
        "h200": {"extra_args": ["--max-num-seqs", "8"]}
    }
    found = findings(tmp_path, {"models/acme/demo.yaml": data}, "RL202")
    assert (
        len(found) == 1 and "recipe-level hardware_overrides reads only generations" in found[0][1]
    )


def test_mode_hardware_reads_no_brand_while_mode_overrides_do(tmp_path: Path) -> None:
    mode = {
        "args": ["--speculative-config", '{"method":"mtp"}'],
        "hardware": {"amd": "unsupported"},
        "hardware_overrides": {"nvidia": {"args": []}},
    }
    data = recipe(features={"spec_decoding": {"description": "x", "modes": {"mtp": mode}}})
    found = findings(tmp_path, {"models/acme/demo.yaml": data}, "RL202")
    # `amd` is a generation of the embedded taxonomy as well as a brand, so it is read; `nvidia` is only a brand.
    assert found == []
    mode["hardware"] = {"nvidia": "unsupported"}
    found = findings(tmp_path / "2", {"models/acme/demo.yaml": data}, "RL202")
    assert (
        len(found) == 1
        and "mode hardware reads only exact hardware ids, generations" in found[0][1]
    )


def test_unknown_hardware_gets_a_suggestion_beside_adding_its_profile(tmp_path: Path) -> None:
    """A hardware id one character from a known one may be another product (`h20` and `h200`,
    `a100` and `h100`, `mi350x` and `mi355x`): the hint offers the known id only beside
    adding the unknown one's profile."""
    data = recipe(meta__hardware={"h2000": "verified", "zz9": "verified"})
    documents = {"models/acme/demo.yaml": BlockYaml(data)}
    hits = {d.pointer[-1]: d.hint for d in checked(tmp_path, documents) if d.code == "RL201"}
    assert hits == {
        "h2000": "did you mean `h200`? If `h2000` is hardware taxonomy.yaml does not "
        "describe, add its profile there instead",
        "zz9": "if `zz9` is hardware taxonomy.yaml does not describe, add its profile there; "
        "otherwise remove it",
    }


def test_min_gpus_reads_strategies_and_exact_ids_only(tmp_path: Path) -> None:
    # `dep` is a PD pool key (minGpusForStrategy falls back to multi_node_dep for it).
    data = recipe(
        strategy_min_gpus={
            "single_node_tp": 8,
            "h100": {"multi_node_tp": 16},
            "hopper": 16,
            "dep": 16,
        }
    )
    assert [m for _, m in findings(tmp_path, {"models/acme/demo.yaml": data}, "RL202")] == [
        "strategy_min_gpus key `hopper` is a generation key; this map reads only strategy ids and exact "
        "hardware ids, so the floor is ignored"
    ]


def test_kv_topology_in_compatible_strategies_is_tolerated_elsewhere_reported(
    tmp_path: Path,
) -> None:
    data = recipe(
        compatible_strategies=["single_node_tp", "kv_store_distributed_mooncake"],
        strategy_overrides={"kv_store_distributed_mooncake": {"extra_args": []}},
    )
    found = findings(tmp_path, {"models/acme/demo.yaml": data}, "RL203")
    assert len(found) == 1 and "a kv_store topology, not a serving strategy" in found[0][1]


def test_every_variant_needs_a_mode_and_default_modes_must_be_offered(tmp_path: Path) -> None:
    modes = {"mtp": {"args": [], "variants": ["default"]}}
    data = recipe(features={"spec_decoding": {"description": "x", "modes": modes}})
    data["variants"]["fp8"] = {
        "precision": "fp8",
        "vram_minimum_gb": 10,
        "default_modes": {"spec_decoding": "mtp"},
    }
    messages = sorted(m for _, m in findings(tmp_path, {"models/acme/demo.yaml": data}, "RL213"))
    assert len(messages) == 2
    assert messages[0].startswith("default_modes selects `mtp`")
    assert messages[1].startswith("no mode of spec_decoding is available for variant `fp8`")


def test_default_strategy_offered_through_strategy_hardware_is_fine(tmp_path: Path) -> None:
    data = recipe(
        default_strategy="multi_node_tp", strategy_hardware={"multi_node_tp": {"h200": "supported"}}
    )
    assert findings(tmp_path, {"models/acme/demo.yaml": data}, "RL214") == []


def test_related_recipe_case_mismatch_names_the_real_id(tmp_path: Path) -> None:
    other = recipe(model__model_id="Acme/Other", meta__slug="other")
    data = recipe(meta__related_recipes=["acme/Other"])
    documents = {
        "models/acme/demo.yaml": BlockYaml(data),
        "models/Acme/Other.yaml": BlockYaml(other),
    }
    hits = [d for d in checked(tmp_path, documents) if d.code == "RL208"]
    assert [d.hint for d in hits] == ["the recipe is `Acme/Other` (ids are case-sensitive)"]


# --- RL210 between files, whichever are named ----------------------------------------------


ORIGINAL = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
# Sorts before the original (`-` < `.`): the original is the later of the two in tree order.
COPY = "models/Qwen/Qwen2.5-7B-Instruct-Copy.yaml"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The embedded tree with a copy of a recipe under another model_id and the same slug."""
    root = tmp_path / "tree"
    shutil.copytree(EMBEDDED_TREE, root)
    text = (root / ORIGINAL).read_text(encoding="utf-8")
    model_id = 'model_id: "Qwen/Qwen2.5-7B-Instruct"'
    assert model_id in text
    copy = text.replace(model_id, 'model_id: "Qwen/Qwen2.5-7B-Instruct-Copy"', 1)
    (root / COPY).write_text(copy, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def _slug_findings(capsys: pytest.CaptureFixture[str], *paths: str) -> list[tuple[str, list[str]]]:
    """(file, files of the related places) of each RL210 finding of ``check PATHS``."""
    status = main(["check", "--jobs", "1", "--format", "json", "--select", "RL210", *paths])
    found = json.loads(capsys.readouterr().out)
    assert status == (1 if found else 0)
    return [(f["path"], [r["path"] for r in f["related"]]) for f in found]


def test_only_the_new_copy_named_reports_the_duplicate_slug(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _slug_findings(capsys, COPY) == [(COPY, [ORIGINAL])]


def test_only_the_untouched_original_named_reports_it_too(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _slug_findings(capsys, ORIGINAL) == [(ORIGINAL, [COPY])]


def test_both_named_give_each_file_one_finding_as_the_whole_tree_does(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    both = _slug_findings(capsys, COPY, ORIGINAL)
    assert both == [(COPY, [ORIGINAL]), (ORIGINAL, [COPY])]
    assert _slug_findings(capsys, ".") == both


def test_a_baseline_of_the_whole_tree_covers_a_check_of_the_copy(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--select", "RL210", "--write-baseline", "b.json", "."]) == 0
    capsys.readouterr()
    assert main(["check", "--select", "RL210", "--baseline", "b.json", COPY]) == 0
    assert "1 finding was already present in b.json" in capsys.readouterr().err


# --- RL204-RL212: names that point nowhere, and malformed modes -----------------------------


def test_an_opt_out_for_a_kv_store_topology_that_does_not_exist_is_an_error(
    tmp_path: Path,
) -> None:
    hardware = "kv_cache_strategy_hardware:\n  {}:\n    h100: unsupported\n"
    [finding] = findings_of(tmp_path / "a", hardware.format("kv_store_mooncake"), "RL204")
    assert finding.pointer == ("kv_cache_strategy_hardware", "kv_store_mooncake")
    assert finding.message == (
        "`kv_store_mooncake` is no kv_store topology: the opt-out is ignored"
    )
    assert (
        findings_of(tmp_path / "b", hardware.format("kv_store_distributed_mooncake"), "RL204") == []
    )


def test_opt_in_features_must_be_declared_features_on_every_hardware(tmp_path: Path) -> None:
    features = (
        "features:\n  tool_calling:\n    description: Tool calling\n"
        "    args: [--enable-auto-tool-choice]\n"
    )
    found = findings_of(
        tmp_path / "a",
        features + "opt_in_features: [tool_calling, tool_call]\n"
        "hardware_opt_in_features:\n  h100: [reasoning]\n",
        "RL205",
    )
    assert [(f.pointer, f.message) for f in found] == [
        (("opt_in_features", 1), "opt-in feature `tool_call` is not declared under features"),
        (
            ("hardware_opt_in_features", "h100", 0),
            "opt-in feature `reasoning` is not declared under features",
        ),
    ]
    passing = features + "opt_in_features: [tool_calling]\n"
    assert findings_of(tmp_path / "b", passing, "RL205") == []


SPEC_DECODING = """\
features:
  spec_decoding:
    description: Speculative decoding
    default_mode: {default}
    modes:
      mtp:
        label: MTP
        variants: [{variant}]
        args: ["--speculative-config", '{{"method":"mtp","num_speculative_tokens":1}}']
"""


def test_a_default_mode_naming_no_mode_is_an_error_at_the_field(tmp_path: Path) -> None:
    failing = SPEC_DECODING.format(default="eagle", variant="default")
    [finding] = findings_of(tmp_path / "a", failing, "RL206")
    assert finding.pointer == ("features", "spec_decoding", "default_mode")
    assert finding.message == (
        "default_mode `eagle` is not a mode of spec_decoding (upstream aborts the build)"
    )
    passing = SPEC_DECODING.format(default="mtp", variant="default")
    assert findings_of(tmp_path / "b", passing, "RL206") == []


def test_a_variants_default_modes_naming_no_feature_is_an_error_at_the_key(
    tmp_path: Path,
) -> None:
    modal = SPEC_DECODING.format(default="mtp", variant="default")
    selecting = "variants:\n  default:\n    default_modes: {%s: mtp}\n"
    [finding] = findings_of(tmp_path / "a", modal + selecting % "spec_decode", "RL206")
    assert finding.pointer == ("variants", "default", "default_modes", "spec_decode")
    assert finding.message == (
        "default_modes names unknown feature `spec_decode` (upstream aborts the build)"
    )
    assert findings_of(tmp_path / "b", modal + selecting % "spec_decoding", "RL206") == []


def test_a_mode_offered_to_a_variant_the_recipe_lacks_is_an_error_at_the_item(
    tmp_path: Path,
) -> None:
    failing = SPEC_DECODING.format(default="mtp", variant="fp8")
    [finding] = findings_of(tmp_path / "a", failing, "RL207")
    assert finding.pointer == ("features", "spec_decoding", "modes", "mtp", "variants", 0)
    assert finding.message == (
        "mode `mtp` of spec_decoding names unknown variant `fp8` (upstream aborts the build)"
    )
    passing = SPEC_DECODING.format(default="mtp", variant="default")
    assert findings_of(tmp_path / "b", passing, "RL207") == []


def test_a_model_id_the_file_path_does_not_publish_is_an_error(tmp_path: Path) -> None:
    [finding] = findings_of(tmp_path / "a", 'model:\n  model_id: "Acme/demo"\n', "RL209")
    assert finding.pointer == ("model", "model_id")
    assert finding.message == (
        "model.model_id `Acme/demo` does not match the file path, which publishes the recipe "
        "as `acme/demo`"
    )
    assert finding.hint == "rename the file to models/Acme/demo.yaml, or fix the id"
    assert findings_of(tmp_path / "b", 'model:\n  model_id: "acme/demo"\n', "RL209") == []


def _strategy_findings(tmp_path: Path, rel: str, name: str) -> list[Diagnostic]:
    text = context_text("strategies/single_node_tp.yaml").replace(
        "name: single_node_tp", f"name: {name}", 1
    )
    return findings_by_code(tmp_path, {rel: text}).get("RL211", [])


def test_a_strategy_outside_the_vocabulary_or_its_file_name_is_an_error_at_its_name(
    tmp_path: Path,
) -> None:
    [unlisted] = _strategy_findings(
        tmp_path / "a", "strategies/single_node_xp.yaml", "single_node_xp"
    )
    assert unlisted.pointer == ("name",)
    assert (
        unlisted.message == "strategy `single_node_xp` is not listed in taxonomy.yaml `strategies`"
    )
    [renamed] = _strategy_findings(tmp_path / "b", "strategies/tp.yaml", "single_node_tp")
    assert renamed.message.startswith("strategy file `tp.yaml` declares name `single_node_tp`")
    assert renamed.hint == "rename the file to `single_node_tp.yaml`"
    listed = _strategy_findings(tmp_path / "c", "strategies/single_node_tp.yaml", "single_node_tp")
    assert listed == []


def test_a_modal_feature_with_its_own_args_too_is_an_error_at_the_args(tmp_path: Path) -> None:
    modal = SPEC_DECODING.format(default="mtp", variant="default")
    both = modal.replace("    modes:\n", "    args: [--speculative-config, '{}']\n    modes:\n")
    [finding] = findings_of(tmp_path / "a", both, "RL212")
    assert finding.pointer == ("features", "spec_decoding", "args")
    assert finding.message == (
        "features.spec_decoding declares both args and modes; upstream aborts the build"
    )
    assert findings_of(tmp_path / "b", modal, "RL212") == []


def test_a_generation_key_where_exact_ids_are_read_lists_the_ids_it_meant(
    tmp_path: Path,
) -> None:
    data = recipe(meta__hardware={"hopper": "verified"})
    documents = {"models/acme/demo.yaml": BlockYaml(data)}
    [hint] = [d.hint for d in checked(tmp_path, documents) if d.code == "RL202"]
    assert hint == "list the exact hardware ids instead (h100, h200)"


def test_the_suggester_stops_suggesting_when_its_budget_is_spent() -> None:
    suggest = Suggester(["h100", "h200"], budget=2)
    assert [suggest("h2000"), suggest("h2000"), suggest("h2000")] == ["h200", "h200", None]


def test_a_respelling_is_offered_only_for_the_same_digits() -> None:
    known = ["Qwen/Qwen3-8B", "Qwen/Other"]
    assert _respelling("qwen/qwen3-8b", known, None) == "did you mean `Qwen/Qwen3-8B`?"
    assert _respelling("Qwen/Qwen3-6B", known, None) is None  # another size, not a typo


def _plain_edits(one: str, other: str) -> int:
    """Levenshtein distance, the whole table: what the banded computation must agree with."""
    previous = list(range(len(other) + 1))
    for i, a in enumerate(one, start=1):
        current = [i]
        for j, b in enumerate(other, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


@given(st.text("abc", max_size=7), st.text("abc", max_size=7))
@example("abcd", "ab")
@example("abc", "")
@example("aaa", "bbb")
def test_edits_are_the_levenshtein_distance_up_to_one_past_the_limit(one: str, other: str) -> None:
    assert _edits(one, other) == min(_plain_edits(one, other), MAX_RESPELLING_EDITS + 1)


def test_no_suggestion_for_a_name_longer_than_any_id() -> None:
    long_name = "h" * (MAX_SUGGESTION_INPUT + 1)
    assert closest_name(long_name, [long_name]) is None
    assert closest_name("h1000", ["h100"]) == "h100"


def test_a_suggester_answers_fifty_times_then_stops() -> None:
    suggest = Suggester(["h100", "h200"])
    answers = [suggest("h1000") for _ in range(51)]
    assert answers[:50] == ["h100"] * 50 and answers[50] is None


def test_a_keyspace_names_the_kinds_of_key_it_reads() -> None:
    assert Keyspace(exact=True).describe() == "exact hardware ids"
    assert Keyspace(generation=True, nvidia=True).describe() == "generations, `nvidia`"
    assert Keyspace(nvidia=True, brand=True).describe() == "brands"


def test_a_mode_hardware_key_of_the_wrong_kind_is_told_the_kinds_it_may_use(
    tmp_path: Path,
) -> None:
    mode = {
        "args": ["--speculative-config", '{"method":"mtp"}'],
        "hardware": {"nvidia": "unsupported"},
    }
    data = recipe(features={"spec_decoding": {"description": "x", "modes": {"mtp": mode}}})
    documents = {"models/acme/demo.yaml": BlockYaml(data)}
    [finding] = [d for d in checked(tmp_path, documents) if d.code == "RL202"]
    assert finding.hint == "use one of: exact hardware ids, generations"


def test_a_taxonomy_whose_strategies_are_no_list_judges_no_strategy_name(tmp_path: Path) -> None:
    taxonomy = context_text("taxonomy.yaml")
    assert "\nstrategies:\n" in taxonomy
    start = taxonomy.index("\nstrategies:\n")
    end = taxonomy.find("\n\n", start + 1)
    for name, strategies in (("text", '\nstrategies: "single_node"'), ("missing", "")):
        documents = {"taxonomy.yaml": taxonomy[:start] + strategies + taxonomy[end:]}
        assert findings_by_code(tmp_path / name, documents).get("RL211", []) == [], name
